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

/** seq, kind, room, chunk, state and attrs (as JSON text) of the events of `kinds`, in seq order per kind. */
export function detailRows(db: IncidentDb, kinds: readonly string[]): Iterable<DetailRow> {
  if (kinds.length === 0) return [];
  return db
    .prepare(`SELECT seq, kind, room, chunk, state, attrs FROM events WHERE kind IN (${kinds.map(() => "?").join(", ")})`)
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
