// The three tables of a Parquet export and their columns (docs/scale.md
// "The export's tables"). Each begins with `incident`. The events have the
// columns of `kvrewind query`'s `events` table, with the same names and the
// same values, so a question asked of one incident with `kvrewind query` is
// asked of many with the same SQL: rooms as their exact text (a 63-bit room
// never passes through a float), attrs as the JSON text of the kind's typed
// fields (rooms in it as strings), ts_inferred NULL for a dated record, 1
// for an inferred time, 2 for a timeless record. Sources join the events on
// (incident, source_id); findings name their witness events by seq.

import { EVENTS_TABLE_COLUMNS, type EventsColumn } from "../../store/eventsTable.js";
import type { IncidentDb } from "../../store/db.js";
import type { FindingRow } from "../../store/read/analysis.js";
import type { SourceRow } from "../../store/read/sources.js";
import { eventPlaces } from "../../store/read/seqs.js";
import { findingSchema, type Finding } from "../rules/finding.js";
import type { ParquetColumn, ParquetColumnType } from "./parquetFile.js";

const INCIDENT: ParquetColumn = { name: "incident", type: "string", required: true };

/** Each events column's Parquet type: every column of the query's table, and no other. */
const EVENTS_COLUMN_TYPES: Record<EventsColumn, Omit<ParquetColumn, "name">> = {
  seq: { type: "int64", required: true, delta: true },
  ts_us: { type: "int64", required: true, delta: true },
  ts_inferred: { type: "int32" },
  source_id: { type: "int64", required: true },
  line: { type: "int64", required: true },
  host: { type: "string" },
  role: { type: "string" },
  dp: { type: "int64" },
  pp: { type: "int64" },
  tp: { type: "int64" },
  kind: { type: "string", required: true },
  room: { type: "string" },
  rid: { type: "string" },
  chunk: { type: "int64" },
  layer: { type: "int64" },
  page_lo: { type: "int64" },
  page_hi: { type: "int64" },
  state: { type: "int64" },
  attrs: { type: "string", freeText: true },
};

export const EVENTS_PARQUET = { file: "events.parquet", columns: [INCIDENT, ...EVENTS_TABLE_COLUMNS.map((name) => ({ name, ...EVENTS_COLUMN_TYPES[name] }))] };

/** A column of a table built from rows: its name, type and value in one place. */
interface Field<T> extends ParquetColumn {
  value: (row: T) => unknown;
}

const field = <T>(name: string, type: ParquetColumnType, value: (row: T) => unknown, required = false): Field<T> => ({ name, type, required, value });

/** A row of `sources` (store/read/sources.ts SourceRow); errors and unparsed_shapes as JSON text. */
const SOURCE_FIELDS: Field<SourceRow>[] = [
  field("source_id", "int64", (s) => s.id, true),
  field("path", "string", (s) => s.path, true),
  field("stream", "string", (s) => s.stream, true),
  field("format", "string", (s) => s.format, true),
  field("wrapper", "string", (s) => s.wrapper),
  field("host", "string", (s) => s.host),
  field("role", "string", (s) => s.role),
  field("ranks", "string list", (s) => s.ranks, true),
  field("status", "string", (s) => s.status, true),
  field("reason", "string", (s) => s.reason),
  field("sha256", "string", (s) => s.sha256, true),
  field("bytes", "int64", (s) => s.bytes, true),
  field("lines", "int64", (s) => s.lines, true),
  field("events", "int64", (s) => s.events, true),
  field("pages", "int64", (s) => s.pages, true),
  field("unparsed", "int64", (s) => s.unparsed, true),
  field("inferred", "int64", (s) => s.inferred, true),
  field("error_count", "int64", (s) => s.errorCount, true),
  field("errors", "string", (s) => JSON.stringify(s.errors), true),
  field("unparsed_shapes", "string", (s) => JSON.stringify(s.unparsedShapes), true),
  field("time_origin", "string", (s) => s.timeOrigin),
  field("first_ts_us", "int64", (s) => s.firstTsUs),
  field("last_ts_us", "int64", (s) => s.lastTsUs),
];

/** A finding as exported: its stored row, its body checked against the contract, its dated witnesses' time range. */
interface FindingOut {
  row: FindingRow;
  body: Finding;
  firstTsUs: number | null;
  lastTsUs: number | null;
}

/**
 * A finding (DESIGN.md "Findings — the JSON contract"): every room of a
 * grouped finding, its witness seqs, the time range its dated witnesses
 * span, and the whole finding as JSON in `body`.
 */
const FINDING_FIELDS: Field<FindingOut>[] = [
  field("id", "string", (f) => f.row.id, true),
  field("rule", "string", (f) => f.row.rule, true),
  field("severity", "string", (f) => f.row.severity, true),
  field("verdict", "string", (f) => f.row.verdict, true),
  field("title", "string", (f) => f.row.title, true),
  field("room", "string", (f) => f.row.room),
  field("rooms", "string list", (f) => f.body.rooms ?? (f.row.room === null ? [] : [f.row.room]), true),
  field("ranks", "string list", (f) => f.row.ranks, true),
  field("ts_us", "int64", (f) => f.row.tsUs),
  field("first_ts_us", "int64", (f) => f.firstTsUs),
  field("last_ts_us", "int64", (f) => f.lastTsUs),
  field("witness_seqs", "int64 list", (f) => f.row.witnessSeqs, true),
  field("count", "int64", (f) => f.body.count),
  field("checked", "int64", (f) => f.body.checked),
  field("explanation", "string", (f) => f.body.explanation, true),
  field("falsify", "string", (f) => f.body.falsify, true),
  field("body", "string", (f) => JSON.stringify(f.body), true),
];

const columnsOfFields = (fields: readonly Field<never>[]): ParquetColumn[] => [INCIDENT, ...fields.map(({ name, type, required }) => ({ name, type, required }))];

export const SOURCES_PARQUET = { file: "sources.parquet", columns: columnsOfFields(SOURCE_FIELDS) };
export const FINDINGS_PARQUET = { file: "findings.parquet", columns: columnsOfFields(FINDING_FIELDS) };

export interface TableRows {
  count: number;
  columns: Record<string, unknown[]>;
}

/** `columns` with the `incident` column added. */
export function withIncident(columns: Readonly<Record<string, unknown[]>>, count: number, incident: string): Record<string, unknown[]> {
  return { ...columns, incident: new Array<string>(count).fill(incident) };
}

/** Rows as columns: one array per field, in row order (null for absent). */
function columnsOf<T>(rows: readonly T[], fields: readonly Field<T>[]): TableRows {
  const columns: Record<string, unknown[]> = {};
  for (const f of fields) columns[f.name] = rows.map((r) => f.value(r) ?? null);
  return { count: rows.length, columns };
}

export function sourcesColumns(sources: readonly SourceRow[]): TableRows {
  return columnsOf(sources, SOURCE_FIELDS);
}

/** The findings, each with the time range of its dated witnesses (a timeless witness's time is only its place in the order). */
export function findingsColumns(db: IncidentDb, findings: readonly FindingRow[]): TableRows {
  const places = eventPlaces(db, findings.flatMap((f) => f.witnessSeqs));
  const rows = findings.map((row): FindingOut => {
    const body = findingSchema.parse(row.body);
    let firstTsUs: number | null = null;
    let lastTsUs: number | null = null;
    for (const w of body.witness) {
      const ts = places.get(w.seq)?.tsUs;
      if (w.timeless || ts === undefined) continue;
      if (firstTsUs === null || ts < firstTsUs) firstTsUs = ts;
      if (lastTsUs === null || ts > lastTsUs) lastTsUs = ts;
    }
    return { row, body, firstTsUs, lastTsUs };
  });
  return columnsOf(rows, FINDING_FIELDS);
}
