// `kvrewind export --format parquet --out DIR`: the incident's events,
// sources and findings as three Parquet files (parquetTables.ts), so that the
// incidents of a fleet are queried together by DuckDB, ClickHouse or Spark
// (docs/scale.md). Every row carries the incident's name, so one glob over
// many exports' folders reads them as one table. The events are written one
// stored block to one row group, read a block at a time; the findings are
// the last analysis's (`kvrewind analyze` stores them), none when none ran.
//
// Nothing is written until every target has been checked, and nothing is put
// in place until every file is complete: an export that fails leaves the
// folder as it found it.

import { mkdirSync, statSync, type Stats } from "node:fs";
import { basename, join } from "node:path";
import type { IncidentDb } from "../../store/db.js";
import { SCHEMA_VERSION } from "../../store/schema.js";
import { eventColumnBlocks } from "../../store/read/eventColumns.js";
import { eventBlocks } from "../../store/blocks/eventBlocks.js";
import { listSources } from "../../store/read/sources.js";
import { readAnalysisRows } from "../../store/read/analysis.js";
import { isParquetFile, ParquetFile } from "./parquetFile.js";
import { EVENTS_PARQUET, FINDINGS_PARQUET, findingsColumns, SOURCES_PARQUET, sourcesColumns, withIncident } from "./parquetTables.js";

export const PARQUET_FILE_NAMES = [EVENTS_PARQUET.file, SOURCES_PARQUET.file, FINDINGS_PARQUET.file] as const;

export interface ParquetExportOptions {
  /** The folder the files are written to; made when it is not there. */
  dir: string;
  /** The `incident` column of every row: what tells incidents apart in a query over many exports. */
  incident: string;
  /** Replace the Parquet files of an earlier export (never a file that is not Parquet). */
  force: boolean;
  /** Called after each block of events is written. */
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface ParquetFileSummary {
  file: string;
  rows: number;
  rowGroups: number;
  bytes: number;
}

export interface ParquetExportSummary {
  files: ParquetFileSummary[];
  /** Whether an analysis was stored: without one, findings.parquet has no rows. */
  analyzed: boolean;
}

/** An output the export will not write to; nothing was written or changed. */
export class ExportTargetError extends Error {}

/** Makes `dir` and checks that each file may be written: absent, or (with `force`) a Parquet file. */
export function prepareTarget(dir: string, force: boolean): void {
  const kind = statOrNull(dir);
  if (kind !== null && !kind.isDirectory()) throw new ExportTargetError(`${dir}: not a folder; --out names the folder the Parquet files are written to`);
  for (const name of PARQUET_FILE_NAMES) {
    const path = join(dir, name);
    if (statOrNull(path) === null) continue;
    if (!force) throw new ExportTargetError(`${path}: already there; it was left as it was (--force replaces the files of an earlier export)`);
    if (!isParquetFile(path)) throw new ExportTargetError(`${path}: not a Parquet file; it was left as it was (--force replaces only Parquet files)`);
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new ExportTargetError(`${dir}: cannot make the folder (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Writes events.parquet, sources.parquet and findings.parquet into `opts.dir` (prepareTarget first). */
export function exportParquet(db: IncidentDb, opts: ParquetExportOptions): ParquetExportSummary {
  prepareTarget(opts.dir, opts.force);
  const meta = [
    { key: "kvrewind.incident", value: opts.incident },
    { key: "kvrewind.incident_schema", value: String(SCHEMA_VERSION) },
  ];
  const open = (file: string, columns: ConstructorParameters<typeof ParquetFile>[1]): ParquetFile => {
    try {
      return new ParquetFile(join(opts.dir, file), columns, meta);
    } catch (err) {
      throw new ExportTargetError(`${join(opts.dir, file)}: cannot write (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const written: ParquetFile[] = [];
  try {
    const events = open(EVENTS_PARQUET.file, EVENTS_PARQUET.columns);
    written.push(events);
    writeEvents(db, events, opts);
    const sources = open(SOURCES_PARQUET.file, SOURCES_PARQUET.columns);
    written.push(sources);
    const sourceRows = sourcesColumns(listSources(db));
    sources.writeRowGroup(withIncident(sourceRows.columns, sourceRows.count, opts.incident), sourceRows.count);
    const findings = open(FINDINGS_PARQUET.file, FINDINGS_PARQUET.columns);
    written.push(findings);
    const analysis = readAnalysisRows(db);
    const findingRows = findingsColumns(db, analysis?.findings ?? []);
    findings.writeRowGroup(withIncident(findingRows.columns, findingRows.count, opts.incident), findingRows.count);
    const files = written.map((f) => ({ file: basename(f.path), ...f.finish() }));
    for (const f of written) f.commit();
    return { files, analyzed: analysis !== undefined };
  } catch (err) {
    for (const f of written) f.discard();
    throw err;
  }
}

/** One row group per stored block, in seq order. */
function writeEvents(db: IncidentDb, file: ParquetFile, opts: ParquetExportOptions): void {
  const total = eventBlocks(db).list.length;
  let done = 0;
  for (const block of eventColumnBlocks(db)) {
    file.writeRowGroup(withIncident(block.columns, block.count, opts.incident), block.count);
    opts.onProgress?.("export events (blocks)", ++done, total);
  }
}
