// Typed read queries over an incident: what the analyzer and the UI read.
// Rows come back as plain camelCase objects; rooms stay strings.

import type { IncidentDb } from "./db.js";
import type { Role, StoredEvent } from "../event.js";
import { eventTexts } from "./eventText.js";

export type { StoredEvent };

/** What became of an input: ingested, or recorded with the reason it was not. */
export type SourceStatus = "complete" | "skipped" | "refused";

/** A message shape among a source's unparsed lines (numbers and ids masked), with one example. */
export interface UnparsedShape {
  shape: string;
  count: number;
  /** The line of the first example. */
  line: number;
  example: string;
}

export interface SourceRow {
  id: number;
  path: string;
  format: string;
  /** The container wrapper stripped from each line: none, cri, docker-json, kubectl, journald. */
  wrapper: string | null;
  host: string | null;
  role: string | null;
  ranks: string[];
  sha256: string;
  bytes: number;
  lines: number;
  events: number;
  unparsed: number;
  /** Events whose time was interpolated or anchored (no time of their own). */
  inferred: number;
  /** A sample of the parse errors; errorCount counts every one. */
  errors: { line: number; message: string }[];
  errorCount: number;
  unparsedShapes: UnparsedShape[];
  /** Where the times of undated lines and the year of glog lines came from, when it mattered. */
  timeOrigin: string | null;
  firstTsUs: number | null;
  lastTsUs: number | null;
  status: SourceStatus;
  /** Why a source was skipped or refused. */
  reason: string | null;
}

const EVENT_COLUMNS = "seq, ts_us, source_id, line, host, role, dp, pp, tp, kind, room, rid, chunk, layer, page_lo, page_hi, state, attrs, ts_inferred";

/** A row of EVENT_COLUMNS as read raw (arrays build faster than better-sqlite3's named-column objects). */
type RawEvent = [
  seq: number, tsUs: number, sourceId: number, line: number, host: string | null, role: Role | null, dp: number | null,
  pp: number | null, tp: number | null, kind: string, room: string | null, rid: string | null, chunk: number | null,
  layer: number | null, pageLo: number | null, pageHi: number | null, state: number | null, attrs: string | null,
  tsInferred: number | null,
];

/** A row as read, with its attrs parsed and its text looked up (run after the row's statement has finished). */
function toStoredEvent(db: IncidentDb, r: RawEvent): StoredEvent {
  return {
    seq: r[0], tsUs: r[1], tsInferred: r[18] === 1, sourceId: r[2], line: r[3], host: r[4], role: r[5], dp: r[6], pp: r[7], tp: r[8], kind: r[9],
    room: r[10], rid: r[11], chunk: r[12], layer: r[13], pageLo: r[14], pageHi: r[15], state: r[16],
    attrs: r[17] === null ? null : (JSON.parse(r[17]) as Record<string, unknown>),
    text: eventTexts(db).text(r[2], r[3]),
  };
}

function toStoredEvents(db: IncidentDb, rows: RawEvent[]): StoredEvent[] {
  return rows.map((r) => toStoredEvent(db, r));
}

/** A statement over EVENT_COLUMNS that returns raw rows. */
function eventQuery(db: IncidentDb, sql: string): { get(...p: unknown[]): RawEvent | undefined; all(...p: unknown[]): RawEvent[] } {
  const st = db.prepare(sql).raw(true);
  return { get: (...p) => st.get(...p) as RawEvent | undefined, all: (...p) => st.all(...p) as RawEvent[] };
}

export function eventBySeq(db: IncidentDb, seq: number): StoredEvent | undefined {
  const raw = eventQuery(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE seq = ?`).get(seq);
  return raw && toStoredEvent(db, raw);
}

/** Events with fromUs <= ts_us < toUs, in seq order. */
export function eventsInWindow(db: IncidentDb, fromUs: number, toUs: number, limit = 100_000): StoredEvent[] {
  const rows = eventQuery(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE ts_us >= ? AND ts_us < ? ORDER BY seq LIMIT ?`).all(fromUs, toUs, limit);
  return toStoredEvents(db, rows);
}

export function eventsOfRoom(db: IncidentDb, room: string): StoredEvent[] {
  const rows = eventQuery(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE room = ? ORDER BY seq`).all(room);
  return toStoredEvents(db, rows);
}

/** A rank as events name it; null matches events without that field. */
export interface RankKey {
  host: string | null;
  role: string | null;
  tp: number | null;
}

/** The events of one rank with seq > afterSeq, in seq order (per-rank scans; index events_rank). */
export function eventsOfRank(db: IncidentDb, rank: RankKey, afterSeq = 0, limit = 100_000): StoredEvent[] {
  const rows = eventQuery(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE host IS ? AND role IS ? AND tp IS ? AND seq > ? ORDER BY seq LIMIT ?`).all(
    rank.host,
    rank.role,
    rank.tp,
    afterSeq,
    limit,
  );
  return toStoredEvents(db, rows);
}

/** Microseconds added to each host's raw times at ingest (ingest/clock.ts); empty before any ingest. */
export function clockOffsets(db: IncidentDb): Record<string, number> {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'clock_offsets'").get() as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as Record<string, number>) : {};
}

export function eventsOfKind(db: IncidentDb, kind: string): StoredEvent[] {
  const rows = eventQuery(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE kind = ? ORDER BY seq`).all(kind);
  return toStoredEvents(db, rows);
}

const ITERATE_PAGE = 1024;

/** Every event from `fromSeq` in seq order, streamed a page at a time. */
export function* iterateEvents(db: IncidentDb, fromSeq = 0): Generator<StoredEvent> {
  const page = eventQuery(db, `SELECT ${EVENT_COLUMNS} FROM events WHERE seq >= ? ORDER BY seq LIMIT ${ITERATE_PAGE}`);
  for (let from = fromSeq; ; ) {
    const rows = page.all(from);
    for (const raw of rows) yield toStoredEvent(db, raw);
    if (rows.length < ITERATE_PAGE) return;
    from = rows[rows.length - 1]![0] + 1;
  }
}

export function countsByKind(db: IncidentDb): { kind: string; count: number }[] {
  return db.prepare("SELECT kind, COUNT(*) AS count FROM events GROUP BY kind ORDER BY count DESC").all() as {
    kind: string;
    count: number;
  }[];
}

type RawSourceRow = Omit<SourceRow, "ranks" | "errors" | "unparsedShapes"> & { ranks: string; errors: string; unparsedShapes: string };

const SOURCE_COLUMNS =
  "id, path, format, wrapper, host, role, ranks, sha256, bytes, lines, events, unparsed, inferred, errors, " +
  "error_count AS errorCount, unparsed_shapes AS unparsedShapes, time_origin AS timeOrigin, " +
  "first_ts_us AS firstTsUs, last_ts_us AS lastTsUs, status, reason";

/** Every input of the incident, ingested or not (an ingest still running is not listed), in ingest order. */
export function listSources(db: IncidentDb): SourceRow[] {
  const rows = db.prepare(`SELECT ${SOURCE_COLUMNS} FROM sources WHERE status != 'ingesting' ORDER BY id`).all() as RawSourceRow[];
  return rows.map((r) => ({
    ...r,
    ranks: JSON.parse(r.ranks) as string[],
    errors: JSON.parse(r.errors) as SourceRow["errors"],
    unparsedShapes: JSON.parse(r.unparsedShapes) as UnparsedShape[],
  }));
}

/** The sources whose events are in the incident. */
export function listIngestedSources(db: IncidentDb): SourceRow[] {
  return listSources(db).filter((s) => s.status === "complete");
}

export function eventCount(db: IncidentDb): number {
  return (db.prepare("SELECT COUNT(*) AS n FROM events").get() as { n: number }).n;
}
