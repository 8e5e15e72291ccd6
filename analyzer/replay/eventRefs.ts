// An event as a reader cites it: its seq, the file and line it came from and
// the raw text there. Everything the replay reports points at events this way.

import type { IncidentDb } from "../../ingest/store/db.js";
import { eventTexts } from "../../ingest/store/eventText.js";

export interface EventRef {
  seq: number;
  tsUs: number;
  kind: string;
  /** Like "decode/tp3" or "p0/prefill/tp3"; null when the event names no rank. */
  rank: string | null;
  room: string | null;
  source: string;
  line: number;
  text: string;
}

interface RefRow {
  seq: number;
  tsUs: number;
  kind: string;
  host: string | null;
  role: string | null;
  tp: number | null;
  room: string | null;
  source: string;
  sourceId: number;
  line: number;
}

const REF_SQL =
  "SELECT e.seq, e.ts_us AS tsUs, e.kind, e.host, e.role, e.tp, e.room, s.path AS source, e.source_id AS sourceId, e.line " +
  "FROM events e JOIN sources s ON s.id = e.source_id";

/** Host, role and TP rank as one label; the parts an event lacks are left out. */
export function rankLabel(host: string | null, role: string | null, tp: number | null): string | null {
  const parts = [host, role, tp === null ? null : `tp${tp}`].filter((p): p is string => p !== null);
  return parts.length ? parts.join("/") : null;
}

/** Run after the row's statement has finished (the text is another read). */
function toRef(db: IncidentDb, r: RefRow): EventRef {
  return {
    seq: r.seq,
    tsUs: r.tsUs,
    kind: r.kind,
    rank: rankLabel(r.host, r.role, r.tp),
    room: r.room,
    source: r.source,
    line: r.line,
    text: eventTexts(db).text(r.sourceId, r.line),
  };
}

export function eventRef(db: IncidentDb, seq: number): EventRef | null {
  const row = db.prepare(`${REF_SQL} WHERE e.seq = ?`).get(seq) as RefRow | undefined;
  return row ? toRef(db, row) : null;
}

/** The refs of many seqs at once, keyed by seq; seqs that name no event are absent. */
export function eventRefs(db: IncidentDb, seqs: Iterable<number>): Map<number, EventRef> {
  const unique = [...new Set(seqs)].sort((a, b) => a - b);
  const out = new Map<number, EventRef>();
  const batch = 500;
  for (let i = 0; i < unique.length; i += batch) {
    const part = unique.slice(i, i + batch);
    const rows = db.prepare(`${REF_SQL} WHERE e.seq IN (${part.map(() => "?").join(",")})`).all(...part) as RefRow[];
    for (const r of rows) out.set(r.seq, toRef(db, r));
  }
  return out;
}
