// Probe JSONL records and checksum dump lines for rule tests (DESIGN.md
// "Probe JSONL record", "Checksum dumps"). Rooms are written as bare JSON
// integers, as the instrumentation prints them, never through a JS number.

const START_S = Date.parse("2026-08-20T10:00:00Z") / 1000;

export interface Rank {
  host: string;
  role: "prefill" | "decode";
  tp: number;
}

/** A JSON object line whose `room` (when given) is a raw 63-bit integer. */
function jsonLine(fields: Record<string, unknown>, room?: string): string {
  const body = JSON.stringify(fields);
  return room === undefined ? body : `${body.slice(0, -1)},"room":${room}}`;
}

/** A probe record at `sec` seconds after 10:00:00 UTC (ts as float seconds with microseconds). */
export function probe(sec: number, rank: Rank, ev: string, fields: Record<string, unknown> = {}, room?: string): string {
  return jsonLine({ ts: Number((START_S + sec).toFixed(6)), host: rank.host, role: rank.role, dp: 0, pp: 0, tp: rank.tp, ev, ...fields }, room);
}

export interface ChecksumLine {
  sec: number;
  host: string;
  role: "prefill" | "decode";
  side: "prefill_store" | "decode_recv" | "decode_read";
  room: string;
  layer: number;
  page: number;
  pos: number;
  hash: string;
}

export function checksum(c: ChecksumLine): string {
  return jsonLine(
    { ts: Number((START_S + c.sec).toFixed(6)), host: c.host, role: c.role, tp: 0, side: c.side, buffer: "index_k", layer: c.layer, page: c.page, pos: c.pos, algo: "xxh64", hash: c.hash },
    c.room,
  );
}
