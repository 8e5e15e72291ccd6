// Store figures on a realistic incident (bench:store): the replay benchmark's
// healthy incident (BENCH_QUERY_EVENTS, default 6 M events), its file size
// against the raw logs, and the latency of the four reads the UI and the
// analyzer make most: a 60,000-event time window, one room's events, one
// rank's 60 s window, and one seq on a freshly opened connection (cold).
// Each is timed twice: reading the events' columns from the blocks (what the
// timeline, the replay and `kvrewind query` read), and as whole events with
// their raw text, which lives in its own compressed slices (a 60,000-event
// window touches ~300 of them).

import { statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { collectEvents, scanEvents, type EventFilter } from "../store/blocks/scan.js";
import { eventBlocks, KeyDim } from "../store/blocks/eventBlocks.js";
import { openIncident, type IncidentDb } from "../store/db.js";
import { eventBySeq, eventsInWindow, eventsOfRoom } from "../store/read/events.js";
import { listIngestedSources } from "../store/read/sources.js";
import { healthyIncidentDb } from "./healthyIncident.js";

const TARGET = Number(process.env.BENCH_QUERY_EVENTS ?? 6_000_000);
const REPEATS = 40;

function percentiles(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number): number => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  return `p50 ${at(50).toFixed(2)} ms, p95 ${at(95).toFixed(2)} ms`;
}

function timedEach(n: number, f: (i: number) => number): { ms: number[]; items: number } {
  const ms: number[] = [];
  let items = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    items += f(i);
    ms.push(performance.now() - t);
  }
  return { ms, items: items / n };
}

/** A pseudo-random sequence, the same every run. */
function picks(n: number, span: number): number[] {
  let seed = 20261202;
  return Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % span);
}

/** The events matching `filter`, their columns read (no text, no attrs object): what a scan of the blocks costs. */
function columnsOnly(db: IncidentDb, filter: EventFilter): number {
  let n = 0;
  let sink = 0;
  scanEvents(db, filter, (ev) => {
    sink += ev.seq + ev.tsUs + (ev.tp ?? 0) + ev.kind.length + (ev.room?.length ?? 0);
    n++;
  });
  return sink === -1 ? 0 : n;
}

function figureLine(what: string, columns: { ms: number[] }, whole: { ms: number[] }, target: string): string {
  return `  ${what}: columns ${percentiles(columns.ms)}; whole events with text ${percentiles(whole.ms)} (target <= ${target})`;
}

function windowFigures(db: IncidentDb): void {
  const list = eventBlocks(db).list;
  const first = list[0]!.minTsUs;
  const last = list[list.length - 1]!.maxTsUs;
  const events = eventBlocks(db).events;
  // A window the incident's mean rate fills with ~60,000 events.
  const width = Math.round(((last - first) * 60_000) / events);
  const starts = picks(REPEATS, Math.max(1, last - first - width));
  const c = timedEach(REPEATS, (i) => columnsOnly(db, { fromUs: first + starts[i]!, toUs: first + starts[i]! + width }));
  const w = timedEach(REPEATS, (i) => eventsInWindow(db, first + starts[i]!, first + starts[i]! + width, 100_000).length);
  console.log(figureLine(`window of ${(width / 1e6).toFixed(2)} s (${Math.round(w.items)} events on average)`, c, w, "20 ms"));
}

function roomFigures(db: IncidentDb): void {
  const rooms = eventBlocks(db).keysWithPrefix(KeyDim.room, "", 2000);
  const chosen = picks(REPEATS, rooms.length).map((i) => rooms[i]!);
  const c = timedEach(REPEATS, (i) => columnsOnly(db, { room: chosen[i]! }));
  const r = timedEach(REPEATS, (i) => eventsOfRoom(db, chosen[i]!).length);
  console.log(figureLine(`one room's events (${r.items.toFixed(0)} on average)`, c, r, "10 ms"));
}

function rankFigures(db: IncidentDb): void {
  const list = eventBlocks(db).list;
  const first = list[0]!.minTsUs;
  const last = list[list.length - 1]!.maxTsUs;
  const starts = picks(REPEATS, Math.max(1, last - first - 60_000_000));
  const filter = (i: number): EventFilter => ({ rank: { host: "d0", role: "decode", tp: i % 8 }, fromUs: first + starts[i]!, toUs: first + starts[i]! + 60_000_000 });
  const c = timedEach(REPEATS, (i) => columnsOnly(db, filter(i)));
  const r = timedEach(REPEATS, (i) => collectEvents(db, filter(i)).length);
  console.log(figureLine(`one rank's 60 s window (d0/decode/tpN, ${r.items.toFixed(0)} events on average)`, c, r, "10 ms"));
}

function seqFigures(path: string, lastSeq: number): void {
  const seqs = picks(REPEATS, lastSeq).map((s) => s + 1);
  const cold = (read: (db: IncidentDb, seq: number) => unknown): { ms: number[] } => {
    const ms: number[] = [];
    for (const seq of seqs) {
      const db = openIncident(path, { readonly: true });
      const t = performance.now();
      read(db, seq);
      ms.push(performance.now() - t);
      db.close();
    }
    return { ms };
  };
  const w = cold((db, seq) => eventBySeq(db, seq));
  console.log(`  one seq on a fresh connection (cold: its block found through the first_seq index, decoded, its text read): ${percentiles(w.ms)} (target <= 1 ms)`);
}

export async function queryFigures(): Promise<void> {
  const path = await healthyIncidentDb(TARGET, "replay");
  const db = openIncident(path, { readonly: true });
  try {
    const blocks = eventBlocks(db);
    const logBytes = listIngestedSources(db).reduce((n, s) => n + s.bytes, 0);
    const fileBytes = statSync(path).size;
    console.log(`incident: ${blocks.events.toLocaleString("en-US")} events in ${blocks.list.length} blocks`);
    console.log(
      `  file ${(fileBytes / 1e6).toFixed(1)} MB for ${(logBytes / 1e6).toFixed(1)} MB of logs = ${((100 * fileBytes) / logBytes).toFixed(1)}% (target <= 30%);` +
        ` event blocks ${(blocks.list.reduce((n, b) => n + b.bytes, 0) / 1e6).toFixed(1)} MB`,
    );
    windowFigures(db);
    roomFigures(db);
    rankFigures(db);
    seqFigures(path, blocks.list.at(-1)!.lastSeq);
  } finally {
    db.close();
  }
}
