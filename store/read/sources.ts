// The incident's sources (table `sources`): every input with its statistics
// and status, a source's name, the SGLang log sources, and where a source's
// periodic records pause.

import type { EventCursor } from "../blocks/eventCursor.js";
import type { Reading } from "../blocks/pass.js";
import type { IncidentDb } from "../db.js";
import type { NewSource } from "../writer.js";
import type { ParseIssue } from "../../domain/event.js";

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

/**
 * A source's statistics: one shape wherever they are, as a load worker
 * counts them (ingest/load/loadStream.ts LoadedStats), as the writer stores
 * them (writer.ts completeSource), as the readers return them (SourceRow) and
 * as the ingest summary prints them (ingest/pipeline.ts SourceSummary, its
 * times as ISO text).
 */
export interface SourceStats {
  lines: number;
  events: number;
  unparsed: number;
  /** Events whose time was interpolated or anchored (no time of their own). */
  inferred: number;
  /** The most frequent shapes among the unparsed lines, with a count and an example each. */
  unparsedShapes: UnparsedShape[];
  /** Where the times of undated lines and the year of glog lines came from, when it mattered. */
  timeOrigin: string | null;
  /** A sample of the parse errors with their line numbers; errorCount counts every one. */
  errors: ParseIssue[];
  errorCount: number;
  /** First and last event time (aligned), µs. */
  firstTsUs: number | null;
  lastTsUs: number | null;
  ranks: string[];
}

/** A source's statistics before anything of it is read. */
export function noSourceStats(): SourceStats {
  return { lines: 0, events: 0, unparsed: 0, inferred: 0, unparsedShapes: [], timeOrigin: null, errors: [], errorCount: 0, firstTsUs: null, lastTsUs: null, ranks: [] };
}

/** A row of `sources`: the input, what became of it, and its statistics. */
export interface SourceRow extends SourceStats, NewSource {
  id: number;
  /** Pages read from a file of page bytes (a page dump's .bin, .npy or .safetensors); 0 for other sources. */
  pages: number;
  status: SourceStatus;
  /** Why a source was skipped or refused. */
  reason: string | null;
  /** The live file a rotated part was cut from, else the source's own path: one stream is one writer's record. */
  stream: string;
}

type RawSourceRow = Omit<SourceRow, "ranks" | "errors" | "unparsedShapes"> & { ranks: string; errors: string; unparsedShapes: string };

const SOURCE_COLUMNS =
  "id, path, format, wrapper, host, role, ranks, sha256, bytes, lines, events, pages, unparsed, inferred, errors, " +
  "error_count AS errorCount, unparsed_shapes AS unparsedShapes, time_origin AS timeOrigin, " +
  "first_ts_us AS firstTsUs, last_ts_us AS lastTsUs, status, reason, stream";

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

/** The path and format of a source, by id. */
export function sourceName(db: IncidentDb, sourceId: number): { path: string; format: string } | undefined {
  return db.prepare("SELECT path, format FROM sources WHERE id = ?").get(sourceId) as { path: string; format: string } | undefined;
}

/** The ingested SGLang log sources, by id. */
export function sglangLogSources(db: IncidentDb): number[] {
  return db.prepare("SELECT id FROM sources WHERE status = 'complete' AND format = 'sglang-log' ORDER BY id").pluck().all() as number[];
}

/** The plain text files ingested whole (a terminal's text, a note): no log dialect decided their format. */
export function textSources(db: IncidentDb): number[] {
  return db.prepare("SELECT id FROM sources WHERE status = 'complete' AND format = 'text' ORDER BY id").pluck().all() as number[];
}

/** The stream of each source, by id: the parts of a rotated log share one (schema.ts). */
export function streamsById(db: IncidentDb): Map<number, string> {
  const rows = db.prepare("SELECT id, stream FROM sources").all() as { id: number; stream: string }[];
  return new Map(rows.map((r) => [r.id, r.stream]));
}

/** Two consecutive records of the kinds in one stream, at least `minGapUs` apart (each in its own part of a rotated stream). */
export interface SourcePause {
  stream: string;
  /** The source of the record before the pause. */
  sourceId: number;
  beforeSeq: number;
  beforeUs: number;
  afterSeq: number;
  afterUs: number;
}

/** Per stream, every pause of at least `minGapUs` between consecutive records of `kinds`, the gaps between a rotated stream's files included. */
export function sourcePausesReading(db: IncidentDb, kinds: readonly string[], minGapUs: number): Reading<SourcePause[]> {
  const streams = streamsById(db);
  const last = new Map<string, { sourceId: number; seq: number; tsUs: number }>();
  const out: SourcePause[] = [];
  const visit = (ev: EventCursor): void => {
    const sourceId = ev.sourceId;
    const stream = streams.get(sourceId) ?? String(sourceId);
    const before = last.get(stream);
    const tsUs = ev.tsUs;
    if (before && tsUs - before.tsUs >= minGapUs) out.push({ stream, sourceId: before.sourceId, beforeSeq: before.seq, beforeUs: before.tsUs, afterSeq: ev.seq, afterUs: tsUs });
    last.set(stream, { sourceId, seq: ev.seq, tsUs });
  };
  return { readers: [{ kinds, visit }], finish: () => out.sort((a, b) => a.sourceId - b.sourceId || a.afterSeq - b.afterSeq) };
}
