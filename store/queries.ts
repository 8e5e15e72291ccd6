// Typed read queries over an incident: what the analyzer and the UI read.
// Rows come back as plain camelCase objects; rooms stay strings. Events are
// read from the blocks (blocks/scan.ts), everything else from its table.

import { getMetaJson, type IncidentDb } from "./db.js";
import type { StoredEvent } from "../domain/event.js";
import { currentEventBlocks, decodeBlockHolding, eventBlocks, KeyDim } from "./blocks/eventBlocks.js";
import { EventCursor } from "./blocks/eventCursor.js";
import { collectEvents, scanEvents, type RankKey } from "./blocks/scan.js";

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
  /** Pages read from a file of page bytes (a page dump's .bin, .npy or .safetensors); 0 for other sources. */
  pages: number;
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

export type { RankKey };

export function eventBySeq(db: IncidentDb, seq: number): StoredEvent | undefined {
  if (currentEventBlocks(db) !== null) return collectEvents(db, { fromSeq: seq, toSeq: seq }, 1)[0];
  const block = decodeBlockHolding(db, seq);
  if (block === null) return undefined;
  const cursor = new EventCursor(db);
  cursor.bind(block);
  for (let i = 0; i < block.count; i++) {
    cursor.moveTo(i);
    if (cursor.seq === seq) return cursor.toStoredEvent();
  }
  return undefined;
}

/** Events with fromUs <= ts_us < toUs, in seq order. */
export function eventsInWindow(db: IncidentDb, fromUs: number, toUs: number, limit = 100_000): StoredEvent[] {
  return collectEvents(db, { fromUs, toUs }, limit);
}

export function eventsOfRoom(db: IncidentDb, room: string): StoredEvent[] {
  return collectEvents(db, { room });
}

/** The events of one rank with seq > afterSeq, in seq order (the blocks the rank occurs in). */
export function eventsOfRank(db: IncidentDb, rank: RankKey, afterSeq = 0, limit = 100_000): StoredEvent[] {
  return collectEvents(db, { rank, fromSeq: afterSeq + 1 }, limit);
}

/** Microseconds added to each host's raw times at ingest (ingest/scan/clock.ts); empty before any ingest. */
export function clockOffsets(db: IncidentDb): Record<string, number> {
  return getMetaJson<Record<string, number>>(db, "clock_offsets") ?? {};
}

export function eventsOfKind(db: IncidentDb, kind: string): StoredEvent[] {
  return collectEvents(db, { kinds: [kind] });
}

/** Every event from `fromSeq` in seq order, decoded a block at a time. */
export function* iterateEvents(db: IncidentDb, fromSeq = 0): Generator<StoredEvent> {
  const blocks = eventBlocks(db);
  for (let i = blocks.indexAtOrAfter(fromSeq); i < blocks.list.length; i++) {
    const b = blocks.list[i]!;
    yield* collectEvents(db, { fromSeq: Math.max(fromSeq, b.firstSeq), toSeq: b.lastSeq });
  }
}

export function countsByKind(db: IncidentDb): { kind: string; count: number }[] {
  const counts = new Map<string, number>();
  scanEvents(db, {}, (ev) => {
    const k = ev.kind;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  });
  return [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count);
}

/** The kinds the incident holds, from the blocks' side table (no block is read). */
export function kindsPresent(db: IncidentDb): Set<string> {
  return new Set(eventBlocks(db).keysOf(KeyDim.kind));
}

type RawSourceRow = Omit<SourceRow, "ranks" | "errors" | "unparsedShapes"> & { ranks: string; errors: string; unparsedShapes: string };

const SOURCE_COLUMNS =
  "id, path, format, wrapper, host, role, ranks, sha256, bytes, lines, events, pages, unparsed, inferred, errors, " +
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
  return eventBlocks(db).events;
}
