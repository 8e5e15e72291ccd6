// `ingest`: the files a user names → one ordered history in an incident
// database. The stages:
//   1. inputs   directories walked, gzip/tar unpacked (ingest/inputs.ts);
//   2. scan     per source, on worker threads: content hash, format, host and
//               role, clock anchors (ingest/scan.ts);
//   3. store    under the incident's write lock: sources already present
//               (same sha256) are skipped, clock offsets estimated from every
//               source's anchors (ingest/clock.ts), then the load workers
//               parse and merge shares of the new sources, and this thread
//               merges their streams into the global order as it inserts the
//               rows (ingest/loadStream.ts, ingest/streamMerge.ts,
//               ingest/store/writer.ts); indexes are built after the load.
// The store stage is one transaction: killed at any point, it leaves the
// incident as it was.

import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { alignClocks } from "./clock.js";
import type { ParseIssue, Role } from "./event.js";
import type { FormatName } from "./formats/format.js";
import { InputError, parseTimeZone, UTC, type TimeZoneSpec } from "./identity.js";
import { assertPathsExist, expandInputs, type InputFile } from "./inputs.js";
import type { LoadedStats, LoadSource } from "./loadStream.js";
import { StoredEventsMerger } from "./rebuild.js";
import type { ScanReport } from "./scan.js";
import { anchorBounds, anchorDomains, mergeScanAnchors } from "./store/anchors.js";
import type { UnparsedShape } from "./store/queries.js";
import { IncidentWriter, type NotIngestedSource } from "./store/writer.js";
import { runLoad, scanAll } from "./workers.js";

export interface IngestOptions {
  /** The incident database (created when missing). */
  db: string;
  /** Files, directories, .gz and .tar.gz bundles. */
  paths: readonly string[];
  /** Host and role for sources whose content and path do not say. */
  host?: string;
  role?: Role;
  /** Zone the log timestamps were written in: an IANA name or ±HH:MM (default UTC). */
  tz?: string;
  onProgress?: (p: IngestProgress) => void;
  /** How long to wait for another ingest into the same database (default 10 minutes). */
  lockTimeoutMs?: number;
  /** Parse workers of the load (default: two for large inputs, else one). */
  loadWorkers?: number;
}

/** Where an ingest stands: scan and load count bytes, index counts the indexes built. */
export interface IngestProgress {
  phase: "scan" | "load" | "index";
  done: number;
  total: number;
  /** Lines parsed so far in the load. */
  lines: number;
}

export type SourceStatus = "ingested" | "duplicate" | "skipped" | "refused";

export interface SourceSummary {
  path: string;
  status: SourceStatus;
  /** Why a source was not ingested. */
  reason?: string;
  format: FormatName | null;
  /** The container wrapper around each line, when the file has one. */
  wrapper: string | null;
  host: string | null;
  role: Role | null;
  ranks: string[];
  lines: number;
  events: number;
  unparsed: number;
  /** Events whose time was interpolated or anchored (no time of their own). */
  inferred: number;
  /** The most frequent shapes among the unparsed lines, with a count and an example each. */
  unparsedShapes: UnparsedShape[];
  /** Where the times of undated lines (or the year of glog lines) came from, when it mattered. */
  timeOrigin: string | null;
  /** Parse errors with their line numbers (a sample; errorCount counts all). */
  errors: ParseIssue[];
  errorCount: number;
  /** First and last event time (aligned), ISO 8601 UTC with microseconds. */
  first: string | null;
  last: string | null;
  bytes: number;
  sha256: string | null;
}

export interface IngestSummary {
  db: string;
  sources: SourceSummary[];
  eventsAdded: number;
  eventsTotal: number;
  /** Microseconds added to each host's (clock domain's) raw times. */
  clockOffsetsUs: Record<string, number>;
}

const DEFAULT_LOCK_TIMEOUT_MS = 10 * 60 * 1000;

/** "2026-08-20T10:15:32.123456Z" from epoch microseconds. */
export function isoFromUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = String(((us % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, "0");
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
}

function emptySummary(path: string, status: SourceStatus, reason: string, bytes = 0): SourceSummary {
  return {
    path,
    status,
    reason,
    format: null,
    wrapper: null,
    host: null,
    role: null,
    ranks: [],
    lines: 0,
    events: 0,
    unparsed: 0,
    inferred: 0,
    unparsedShapes: [],
    timeOrigin: null,
    errors: [],
    errorCount: 0,
    first: null,
    last: null,
    bytes,
    sha256: null,
  };
}

interface Candidate {
  /** Index of the file in the scan (its anchors' key in the scan store). */
  index: number;
  file: InputFile;
  report: ScanReport;
  summary: SourceSummary;
}

export async function ingest(opts: IngestOptions): Promise<IngestSummary> {
  if (opts.paths.length === 0) throw new InputError("name at least one file or directory to ingest");
  assertPathsExist(opts.paths);
  const tz = opts.tz !== undefined ? parseTimeZone(opts.tz) : UTC;
  const dbDir = dirname(opts.db);
  if (!existsSync(dbDir) || !statSync(dbDir).isDirectory()) throw new InputError(`${opts.db}: directory ${dbDir} does not exist`);
  const temp = mkdtempSync(join(tmpdir(), "kvrewind-ingest-"));
  try {
    const inputs = await expandInputs(opts.paths, temp);
    const summaries = inputs.rejected.map((r) => emptySummary(r.displayPath, "refused", r.reason));
    const { candidates, anchorStores } = await scanInputs(inputs.files, opts, tz, temp, summaries);
    const result = await store(opts, candidates, anchorStores, summaries);
    return { ...result, sources: [...candidates.map((c) => c.summary), ...summaries] };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Scans every file; returns the ingestible ones and records the rest in `rejected`. */
async function scanInputs(
  files: InputFile[],
  opts: IngestOptions,
  tz: TimeZoneSpec,
  temp: string,
  rejected: SourceSummary[],
): Promise<{ candidates: Candidate[]; anchorStores: string[] }> {
  const sizes = files.map((f) => statSync(f.plainPath).size);
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;
  const requests = files.map((f, file) => ({
    file,
    plainPath: f.plainPath,
    displayPath: f.displayPath,
    identityPath: f.identityPath,
    flagHost: opts.host ?? null,
    flagRole: opts.role ?? null,
    tz,
  }));
  const { reports, anchorStores } = await scanAll(requests, Math.min(2, availableParallelism()), temp, (i) => {
    bytesDone += sizes[i]!;
    opts.onProgress?.({ phase: "scan", done: bytesDone, total: bytesTotal, lines: 0 });
  });
  const candidates: Candidate[] = [];
  const bySha = new Map<string, string>();
  files.forEach((file, i) => {
    const report = reports[i]!;
    if (report instanceof Error) {
      rejected.push(emptySummary(file.displayPath, "refused", `could not be read: ${report.message}`, sizes[i]));
      return;
    }
    const summary: SourceSummary = {
      ...emptySummary(file.displayPath, "ingested", "", report.bytes),
      format: report.format,
      host: report.host,
      role: report.role,
      lines: report.lines,
      sha256: report.sha256 || null,
    };
    delete summary.reason;
    if (report.rejection) {
      rejected.push({ ...summary, status: rejectionStatus(report.rejection.kind, file.named), reason: report.rejection.reason });
      return;
    }
    const twin = bySha.get(report.sha256);
    if (twin !== undefined) {
      rejected.push({ ...summary, status: "duplicate", reason: `same content as ${twin}` });
      return;
    }
    bySha.set(report.sha256, file.displayPath);
    candidates.push({ index: i, file, report, summary });
  });
  return { candidates, anchorStores };
}

/**
 * A binary file is bad input wherever it is; text in no known format is bad
 * input when the user named it, and skipped when it sits in a directory or an
 * archive beside the logs (a README, a config, notes); an empty file is skipped.
 */
function rejectionStatus(kind: "empty" | "binary" | "unrecognized", named: boolean): SourceStatus {
  if (kind === "binary") return "refused";
  return kind === "unrecognized" && named ? "refused" : "skipped";
}

async function store(
  opts: IngestOptions,
  candidates: Candidate[],
  anchorStores: string[],
  notIngested: readonly SourceSummary[],
): Promise<Omit<IngestSummary, "sources">> {
  const lockTimeoutMs = opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const writer = IncidentWriter.open(opts.db, lockTimeoutMs);
  try {
    const scanSchemas = writer.begin(lockTimeoutMs, anchorStores);
    const known = writer.knownSha256();
    const fresh = candidates.filter((c) => !known.has(c.report.sha256));
    for (const c of candidates) {
      if (known.has(c.report.sha256)) Object.assign(c.summary, { status: "duplicate", reason: "already in this incident (same sha256)" });
    }
    let recorded = 0;
    for (const s of notIngested) if (writer.recordNotIngested(notIngestedRow(s))) recorded++;
    if (fresh.length === 0) {
      if (recorded > 0) writer.commit();
      else writer.rollback();
      return { db: opts.db, eventsAdded: 0, eventsTotal: writer.eventCount(), clockOffsetsUs: writer.clockOffsets() };
    }
    mergeScanAnchors(writer.db, scanSchemas, fresh.map((c) => c.index));
    const stored = writer.storedSources();
    const domains = [...stored.map((s) => s.host ?? `src:${s.path}`), ...fresh.map((c) => c.report.domain), ...anchorDomains(writer.db)];
    const alignment = alignClocks(domains, anchorBounds(writer.db));

    const loadSources = fresh.map((c) => toLoadSource(c, writer));
    const merger = writer.hasEvents() ? setAside(writer, stored, alignment.offsetsUs) : undefined;
    const bytesTotal = fresh.reduce((n, c) => n + c.report.bytes, 0);
    const stats = await runLoad(loadSources, alignment.offsetsUs, merger ?? writer, (progress) =>
      opts.onProgress?.({ phase: "load", done: progress.bytes, total: bytesTotal, lines: progress.lines }),
      opts.loadWorkers,
    );
    if (merger) {
      merger.finish();
      writer.dropPreviousEvents();
    } else {
      writer.flushRows();
    }
    writer.buildIndexes((built, total) => opts.onProgress?.({ phase: "index", done: built, total, lines: stats.reduce((n, s) => n + s.lines, 0) }));
    stats.forEach((s, i) => finishSource(writer, fresh[i]!, s));
    writer.saveClock(alignment);
    writer.commit();
    const eventsAdded = stats.reduce((n, s) => n + s.events, 0);
    return { db: opts.db, eventsAdded, eventsTotal: writer.eventCount(), clockOffsetsUs: alignment.offsetsUs };
  } finally {
    writer.close();
  }
}

/** A skipped or refused input as the incident records it (duplicates within one ingest are skipped). */
function notIngestedRow(s: SourceSummary): NotIngestedSource {
  return {
    path: s.path,
    format: s.format,
    host: s.host,
    role: s.role,
    sha256: s.sha256,
    bytes: s.bytes,
    lines: s.lines,
    status: s.status === "refused" ? "refused" : "skipped",
    reason: s.reason ?? "",
  };
}

function toLoadSource(c: Candidate, writer: IncidentWriter): LoadSource {
  const r = c.report;
  const source = { path: c.file.displayPath, format: r.format!, wrapper: r.wrapper, host: r.host, role: r.role, sha256: r.sha256, bytes: r.bytes };
  return {
    sourceId: writer.addSource(source),
    plainPath: c.file.plainPath,
    displayPath: c.file.displayPath,
    format: r.format!,
    host: r.host,
    role: r.role,
    domain: r.domain,
    tzOffsetMinutes: r.tzOffsetMinutes,
    bytes: r.bytes,
  };
}

function setAside(writer: IncidentWriter, stored: ReturnType<IncidentWriter["storedSources"]>, offsets: Record<string, number>): StoredEventsMerger {
  const oldOffsets = writer.clockOffsets();
  writer.setAsideEvents();
  return new StoredEventsMerger(writer, stored, oldOffsets, offsets);
}

function finishSource(writer: IncidentWriter, c: Candidate, s: LoadedStats): void {
  writer.completeSource(s.sourceId, {
    lines: s.lines,
    events: s.events,
    unparsed: s.unparsed,
    inferred: s.inferred,
    errors: s.errors,
    errorCount: s.errorCount,
    unparsedShapes: s.unparsedShapes,
    timeOrigin: s.timeOrigin,
    firstTsUs: s.firstTsUs,
    lastTsUs: s.lastTsUs,
    ranks: s.ranks,
  });
  Object.assign(c.summary, {
    ranks: s.ranks,
    lines: s.lines,
    events: s.events,
    unparsed: s.unparsed,
    inferred: s.inferred,
    unparsedShapes: s.unparsedShapes,
    timeOrigin: s.timeOrigin,
    errors: s.errors,
    errorCount: s.errorCount,
    first: s.firstTsUs === null ? null : isoFromUs(s.firstTsUs),
    last: s.lastTsUs === null ? null : isoFromUs(s.lastTsUs),
  });
}
