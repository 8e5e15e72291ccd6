// Typed reads the web UI's server makes (ui/server): the timeline index scan,
// the findings and suspects as stored, the events that follow one in the same
// rank, a source's name, the incident's summary figures, and the searches of
// the omnibox. Rows come back as plain camelCase objects; rooms stay strings.

import type { IncidentDb } from "./db.js";
import { eventBySeq, type StoredEvent } from "./queries.js";

/** The columns the timeline index keeps of every event, as read raw (arrays are cheaper than objects). */
export type TimelineRow = [
  seq: number, tsUs: number, host: string | null, role: string | null, dp: number | null, pp: number | null, tp: number | null,
  kind: string, state: number | null,
];

/** Every event's timeline columns, in table order (sequential pages: much faster than walking an index). */
export function timelineRows(db: IncidentDb): { count: number; maxSeq: number; rows: Iterable<TimelineRow> } {
  const { n, maxSeq } = db.prepare("SELECT COUNT(*) AS n, COALESCE(MAX(seq), 0) AS maxSeq FROM events").get() as { n: number; maxSeq: number };
  const rows = db.prepare("SELECT seq, ts_us, host, role, dp, pp, tp, kind, state FROM events").raw(true).iterate() as Iterable<TimelineRow>;
  return { count: n, maxSeq, rows };
}

/** What the timeline draws names and spans from, for the events of some kinds only. */
export type DetailRow = [seq: number, kind: string, room: string | null, chunk: number | null, state: number | null, attrs: string | null];

/** seq, kind, room, chunk, state and attrs (as JSON text) of the events of `kinds`, in seq order. */
export function detailRows(db: IncidentDb, kinds: readonly string[]): Iterable<DetailRow> {
  if (kinds.length === 0) return [];
  return db
    .prepare(`SELECT seq, kind, room, chunk, state, attrs FROM events WHERE kind IN (${kinds.map(() => "?").join(", ")}) ORDER BY seq`)
    .raw(true)
    .iterate(...kinds) as Iterable<DetailRow>;
}

/** A finding as stored: its JSON columns still as text. */
export interface StoredFindingRow {
  id: string;
  rule: string;
  severity: string;
  verdict: string;
  title: string;
  tsUs: number | null;
  /** JSON array of witness seqs. */
  witness: string;
  /** The whole finding as JSON (DESIGN.md "Findings — the JSON contract"). */
  body: string;
}

export function storedFindings(db: IncidentDb): StoredFindingRow[] {
  return db.prepare("SELECT id, rule, severity, verdict, title, ts_us AS tsUs, witness, body FROM findings").all() as StoredFindingRow[];
}

export interface StoredSuspectRow {
  rank: number;
  cause: string;
  confidence: number;
  /** The whole suspect as JSON. */
  body: string;
}

export function storedSuspects(db: IncidentDb): StoredSuspectRow[] {
  return db.prepare("SELECT rank, cause, confidence, body FROM suspects ORDER BY rank").all() as StoredSuspectRow[];
}

/** The path and format of a source, by id. */
export function sourceName(db: IncidentDb, sourceId: number): { path: string; format: string } | undefined {
  return db.prepare("SELECT path, format FROM sources WHERE id = ?").get(sourceId) as { path: string; format: string } | undefined;
}

/** What the incident list shows of an incident: its ranks, time span, violated findings per severity, top suspect. */
export interface SummaryFigures {
  ranks: { host: string | null; role: string | null; tp: number }[];
  firstTsUs: number | null;
  lastTsUs: number | null;
  violatedBySeverity: Record<string, number>;
  topSuspect: StoredSuspectRow | undefined;
}

export function summaryFigures(db: IncidentDb): SummaryFigures {
  const ranks = db.prepare("SELECT DISTINCT host, role, tp FROM events WHERE tp IS NOT NULL").all() as SummaryFigures["ranks"];
  const span = db.prepare("SELECT MIN(ts_us) AS first, MAX(ts_us) AS last FROM events").get() as { first: number | null; last: number | null };
  const violatedBySeverity: Record<string, number> = {};
  const bySeverity = db.prepare("SELECT severity, COUNT(*) AS n FROM findings WHERE verdict = 'violated' GROUP BY severity").all() as { severity: string; n: number }[];
  for (const row of bySeverity) violatedBySeverity[row.severity] = row.n;
  const topSuspect = db.prepare("SELECT rank, cause, confidence, body FROM suspects ORDER BY rank LIMIT 1").get() as StoredSuspectRow | undefined;
  return { ranks, firstTsUs: span.first, lastTsUs: span.last, violatedBySeverity, topSuspect };
}

/** Where to look after an event: its kinds, and optionally one host and role (and a TP, where null also matches). */
export interface FollowingQuery {
  afterSeq: number;
  kinds: readonly string[];
  host?: string | null;
  role?: string | null;
  /** Events with this TP or none (a traceback block carries no TP). */
  tpOrNone?: number | null;
}

const FOLLOWING_PAGE = 256;

/** The events after `afterSeq` of the kinds (and rank) asked, in seq order, read a page at a time. */
export function* eventsFollowing(db: IncidentDb, q: FollowingQuery): Generator<StoredEvent> {
  const where = [`kind IN (${q.kinds.map(() => "?").join(", ")})`, "seq > ?"];
  const args: unknown[] = [...q.kinds];
  if (q.host !== undefined) where.push("host IS ?");
  if (q.role !== undefined) where.push("role IS ?");
  if (q.tpOrNone !== undefined) where.push("(tp IS ? OR tp IS NULL)");
  const page = db.prepare(`SELECT seq FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ${FOLLOWING_PAGE}`).pluck();
  const rankArgs = [q.host, q.role, q.tpOrNone].filter((v) => v !== undefined);
  for (let after = q.afterSeq; ; ) {
    const seqs = page.all(...args, after, ...rankArgs) as number[];
    for (const seq of seqs) yield eventBySeq(db, seq)!;
    if (seqs.length < FOLLOWING_PAGE) return;
    after = seqs[seqs.length - 1]!;
  }
}

/** A room found by the omnibox: its first event and how many events name it. */
export interface RoomHit {
  room: string;
  firstSeq: number;
  events: number;
}

/** Rooms whose decimal string starts with `prefix` (the room index, a range scan). */
export function roomsWithPrefix(db: IncidentDb, prefix: string, limit: number): RoomHit[] {
  // Every string that starts with the prefix sorts in [prefix, prefix + U+FFFF).
  return db
    .prepare("SELECT room, MIN(seq) AS firstSeq, COUNT(*) AS events FROM events WHERE room >= ? AND room < ? GROUP BY room ORDER BY room LIMIT ?")
    .all(prefix, `${prefix}\uffff`, limit) as RoomHit[];
}

/** Request ids holding `needle`, each with its first event (one pass in seq order, stopped once enough are found). */
export function ridsContaining(db: IncidentDb, needle: string, limit: number): { rid: string; firstSeq: number }[] {
  const out = new Map<string, number>();
  const rows = db.prepare("SELECT rid, seq FROM events WHERE rid IS NOT NULL AND instr(rid, ?) > 0").raw(true).iterate(needle) as Iterable<[string, number]>;
  for (const [rid, seq] of rows) {
    if (!out.has(rid)) out.set(rid, seq);
    if (out.size >= limit) break;
  }
  return [...out].map(([rid, firstSeq]) => ({ rid, firstSeq }));
}

/** A record whose text holds a needle: where it is and the text around the first match. */
export interface TextHit {
  seq: number;
  sourceId: number;
  line: number;
  excerpt: string;
}

const EXCERPT_AROUND = 60;

/**
 * Records whose raw text holds `needle` (exact bytes), read from the text
 * blocks source by source in line order, up to `limit`; `complete` says
 * whether every block was read.
 */
export function textContaining(db: IncidentDb, needle: string, limit: number): { hits: TextHit[]; complete: boolean } {
  const want = Buffer.from(needle);
  const found: Omit<TextHit, "seq">[] = [];
  let complete = true;
  const blocks = db.prepare("SELECT source_id, lines, ends, text FROM event_text ORDER BY source_id, first_line").raw(true).iterate() as Iterable<[number, Buffer, Buffer, Buffer]>;
  for (const [sourceId, lines, ends, text] of blocks) {
    for (let from = text.indexOf(want); from >= 0; ) {
      const entry = entryAt(ends, from);
      const start = entry === 0 ? 0 : ends.readUInt32LE((entry - 1) * 4);
      const end = ends.readUInt32LE(entry * 4);
      const lo = Math.max(start, from - EXCERPT_AROUND);
      const hi = Math.min(end, from + want.length + EXCERPT_AROUND);
      found.push({ sourceId, line: lines.readUInt32LE(entry * 4), excerpt: text.toString("utf8", lo, hi) });
      from = text.indexOf(want, end);
      if (found.length >= limit) break;
    }
    if (found.length >= limit) {
      complete = false;
      break;
    }
  }
  const seqs = firstSeqOfLines(db, found);
  const hits = found.flatMap((f) => {
    const seq = seqs.get(`${f.sourceId}:${f.line}`);
    return seq === undefined ? [] : [{ ...f, seq }];
  });
  return { hits: hits.sort((a, b) => a.seq - b.seq), complete };
}

/** The entry of a text block whose text spans byte `at`: the first whose end is past it. */
function entryAt(ends: Buffer, at: number): number {
  let lo = 0;
  let hi = ends.length / 4 - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends.readUInt32LE(mid * 4) > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** "source:line" → the first seq of the records on those lines, in one pass (no index leads from a line to a seq). */
function firstSeqOfLines(db: IncidentDb, at: { sourceId: number; line: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  if (at.length === 0) return out;
  const lines = [...new Set(at.map((a) => a.line))];
  const rows = db
    .prepare(`SELECT source_id AS sourceId, line, MIN(seq) AS seq FROM events WHERE line IN (${lines.map(() => "?").join(", ")}) GROUP BY source_id, line`)
    .all(...lines) as { sourceId: number; line: number; seq: number }[];
  const wanted = new Set(at.map((a) => `${a.sourceId}:${a.line}`));
  for (const r of rows) if (wanted.has(`${r.sourceId}:${r.line}`)) out.set(`${r.sourceId}:${r.line}`, r.seq);
  return out;
}
