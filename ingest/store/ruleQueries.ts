// Typed reads the analyzer's evidence checks and time travel need beyond
// queries.ts: where a source's periodic records pause or stop, how many
// records of those kinds other sources wrote meanwhile, the first and last
// record of a room and of the incident, transfer posts and notifications, and
// records of a kind without their texts (timeouts, batch-line gauges).
// Index-driven (events_kind, events_room), so none of them scans the whole table.

import type { IncidentDb } from "./db.js";

/** Two consecutive records of the kinds in one source, at least `minGapUs` apart. */
export interface SourcePause {
  sourceId: number;
  beforeSeq: number;
  beforeUs: number;
  afterSeq: number;
  afterUs: number;
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => "?").join(", ");
}

/** Per source, every pause of at least `minGapUs` between consecutive records of `kinds`. */
export function sourcePauses(db: IncidentDb, kinds: readonly string[], minGapUs: number): SourcePause[] {
  return db
    .prepare(
      `SELECT source_id AS sourceId, prevSeq AS beforeSeq, prevTs AS beforeUs, seq AS afterSeq, ts_us AS afterUs FROM (
         SELECT source_id, seq, ts_us, LAG(ts_us) OVER w AS prevTs, LAG(seq) OVER w AS prevSeq FROM events WHERE kind IN (${placeholders(kinds.length)})
         WINDOW w AS (PARTITION BY source_id ORDER BY seq))
       WHERE ts_us - prevTs >= ?`,
    )
    .all(...kinds, minGapUs) as SourcePause[];
}

/** Per source, its last record of `kinds`. */
export function lastRecordPerSource(db: IncidentDb, kinds: readonly string[]): { sourceId: number; seq: number; tsUs: number }[] {
  return db
    .prepare(`SELECT source_id AS sourceId, MAX(seq) AS seq, ts_us AS tsUs FROM events WHERE kind IN (${placeholders(kinds.length)}) GROUP BY source_id`)
    .all(...kinds) as { sourceId: number; seq: number; tsUs: number }[];
}

/** Records of `kinds` strictly between two times, in sources other than `exceptSourceId`. */
export function recordsBetweenElsewhere(db: IncidentDb, kinds: readonly string[], fromUs: number, toUs: number, exceptSourceId: number): number {
  const row = db
    .prepare(`SELECT COUNT(*) AS n FROM events WHERE kind IN (${placeholders(kinds.length)}) AND ts_us > ? AND ts_us < ? AND source_id != ?`)
    .get(...kinds, fromUs, toUs, exceptSourceId) as { n: number };
  return row.n;
}

/** The first record of a room (its seq and time), or undefined when no event names it. */
export function roomFirstRecord(db: IncidentDb, room: string): { seq: number; tsUs: number } | undefined {
  return db.prepare("SELECT seq, ts_us AS tsUs FROM events WHERE room = ? ORDER BY seq LIMIT 1").get(room) as { seq: number; tsUs: number } | undefined;
}

/** The last record of a room, or undefined when no event names it. */
export function roomLastRecord(db: IncidentDb, room: string): { seq: number; tsUs: number } | undefined {
  return db.prepare("SELECT seq, ts_us AS tsUs FROM events WHERE room = ? ORDER BY seq DESC LIMIT 1").get(room) as { seq: number; tsUs: number } | undefined;
}

/** The first and last event of the incident (seq and time), undefined when it has none. */
export function incidentSpan(db: IncidentDb): { firstSeq: number; firstUs: number; lastSeq: number; lastUs: number } | undefined {
  const first = db.prepare("SELECT seq, ts_us AS tsUs FROM events ORDER BY seq LIMIT 1").get() as { seq: number; tsUs: number } | undefined;
  const last = db.prepare("SELECT seq, ts_us AS tsUs FROM events ORDER BY seq DESC LIMIT 1").get() as { seq: number; tsUs: number } | undefined;
  return first && last ? { firstSeq: first.seq, firstUs: first.tsUs, lastSeq: last.seq, lastUs: last.tsUs } : undefined;
}

/** The time of the event `seq`, undefined when there is none. */
export function eventTime(db: IncidentDb, seq: number): number | undefined {
  return db.prepare("SELECT ts_us FROM events WHERE seq = ?").pluck().get(seq) as number | undefined;
}

/** A batch line's queue gauges: its place and the numeric values of `fields`. */
export interface GaugeLine {
  seq: number;
  tsUs: number;
  host: string | null;
  role: string | null;
  pp: number | null;
  tp: number | null;
  values: (number | null)[];
}

/** Every record of `kind` that carries one of `fields` (attribute names like "#transfer-req"), in seq order. */
export function gaugeLines(db: IncidentDb, kind: string, fields: readonly string[]): GaugeLine[] {
  const picks = fields.map((f) => `json_extract(attrs, '$."${f.replace(/"/g, "")}"')`).join(", ");
  const rows = db.prepare(`SELECT seq, ts_us, host, role, pp, tp, ${picks} FROM events WHERE kind = ? ORDER BY seq`).raw().all(kind) as unknown[][];
  return rows.map((r) => ({
    seq: r[0] as number, tsUs: r[1] as number, host: r[2] as string | null, role: r[3] as string | null, pp: r[4] as number | null, tp: r[5] as number | null,
    values: r.slice(6).map((v) => (typeof v === "number" ? v : null)),
  }));
}

/** Distinct hosts named by events, in order. */
export function eventHosts(db: IncidentDb): string[] {
  return db.prepare("SELECT DISTINCT host FROM events WHERE host IS NOT NULL ORDER BY host").pluck().all() as string[];
}

/** A transfer record's place: room, chunk and TP rank (kv.post / kv.notify probe records). */
export interface TransferStamp {
  seq: number;
  tsUs: number;
  room: string;
  chunk: number | null;
  tp: number | null;
  /** kv.notify only: the notification tag. */
  tag: string | null;
}

/** Every kv.post with a room, in seq order. */
export function transferPosts(db: IncidentDb): TransferStamp[] {
  return db.prepare("SELECT seq, ts_us AS tsUs, room, chunk, tp, NULL AS tag FROM events WHERE kind = 'kv.post' AND room IS NOT NULL ORDER BY seq").all() as TransferStamp[];
}

/** Every kv.notify with a room, in seq order. */
export function transferNotifies(db: IncidentDb): TransferStamp[] {
  return db
    .prepare("SELECT seq, ts_us AS tsUs, room, chunk, tp, json_extract(attrs, '$.tag') AS tag FROM events WHERE kind = 'kv.notify' AND room IS NOT NULL ORDER BY seq")
    .all() as TransferStamp[];
}

/** A record's place and attributes without its text: what reading many records of a kind needs. */
export interface RecordStamp {
  seq: number;
  tsUs: number;
  host: string | null;
  role: string | null;
  pp: number | null;
  tp: number | null;
  room: string | null;
  state: number | null;
  attrs: Record<string, unknown> | null;
}

/** Every record of the kinds, in seq order, without texts (index events_kind). */
export function recordStamps(db: IncidentDb, kinds: readonly string[]): RecordStamp[] {
  const rows = db
    .prepare(`SELECT seq, ts_us AS tsUs, host, role, pp, tp, room, state, attrs FROM events WHERE kind IN (${placeholders(kinds.length)}) ORDER BY seq`)
    .all(...kinds) as (Omit<RecordStamp, "attrs"> & { attrs: string | null })[];
  return rows.map((r) => ({ ...r, attrs: r.attrs === null ? null : (JSON.parse(r.attrs) as Record<string, unknown>) }));
}
