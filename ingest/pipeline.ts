// `ingest`: the files a user names → one ordered history in an incident
// database. The stages:
//   1. inputs   directories walked, gzip/tar unpacked (ingest/inputs/inputs.ts);
//   2. scan     per source, on worker threads: content hash, format, host and
//               role, clock anchors (ingest/scan/scan.ts);
//   3. store    under the incident's write lock: sources already present
//               (same sha256) are skipped, clock offsets estimated from every
//               source's anchors (ingest/scan/clock.ts), then the load workers
//               parse and merge shares of the new sources, and this thread
//               merges their streams into the global order as it inserts the
//               rows (ingest/load/loadStream.ts, ingest/load/streamMerge.ts,
//               store/writer.ts), which writes them as compressed
//               column blocks (store/blocks/).
// The store stage is one transaction: killed at any point, it leaves the
// incident as it was.

import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { alignClocks } from "./scan/clock.js";
import type { ParseIssue } from "../domain/event.js";
import type { Role } from "../domain/vocabulary.js";
import type { FormatName } from "./formats/format.js";
import { InputError, parseTimeZone, UTC, type PathReading, type TimeZoneSpec } from "./inputs/pathIdentity.js";
import { identityOf, readBundlePaths, shareFolderIdentity } from "./inputs/machines.js";
import { inStreamOrder, streamOf } from "./inputs/rotation.js";
import { assertPathsExist, expandInputs, type InputFile } from "./inputs/inputs.js";
import type { LoadedStats, LoadSource } from "./load/loadStream.js";
import { StoredEventsMerger } from "./load/rebuild.js";
import type { ScanReport, ScanRequest } from "./scan/scan.js";
import { mergeScanParts, scanRequestsOf } from "./scan/scanParts.js";
import { anchorBounds, anchorDomains, mergeScanAnchors } from "../store/anchors.js";
import type { SourceStats } from "../store/read/sources.js";
import { incidentExtent, type IncidentExtent } from "../store/read/incident.js";
import { openIncident } from "../store/db.js";
import { IncidentWriter, sourceKey, type NotIngestedSource } from "../store/writer.js";
import type { SplitOptions } from "./load/loadPlan.js";
import { IN_THREAD_BYTES, runLoad, scanAll } from "./load/workers.js";
import { isoFromUs } from "../domain/timeFormat.js";
import { datingHints, type TimeSpan } from "./scan/timeHints.js";
import { isLogFormat, namesHostPerEvent, takesDatingHints } from "./formats/index.js";
import type { DatingHints } from "./formats/log/dating.js";
import { assertSameIncident } from "./load/sameIncident.js";
import { pageByteFiles, pageBytesFormat, planPageDumps, storePageDumps, type PageBytesFormat, type PageByteSource, type PageDumpIndex } from "./inputs/pageDumps.js";

/** A source that is no file the user named: its content in a file, its path saying where it came from. */
export interface PulledFile {
  displayPath: string;
  plainPath: string;
}

export interface IngestOptions {
  /** The incident database (created when missing). */
  db: string;
  /** Files, directories, .gz and .tar.gz bundles. */
  paths: readonly string[];
  /** Sources read from elsewhere into a file (a Prometheus pull, ingest/prometheus/pull.ts), each under its own path. */
  pulled?: readonly PulledFile[];
  /** Host and role for sources whose content and path do not say. */
  host?: string;
  role?: Role;
  /** Zone the log timestamps were written in: an IANA name or ±HH:MM (default UTC). */
  tz?: string;
  /** The sources belong to the incident already in the database, whatever their zone or time span. */
  append?: boolean;
  onProgress?: (p: IngestProgress) => void;
  /** How long to wait for another ingest into the same database (default 10 minutes). */
  lockTimeoutMs?: number;
  /** Parse workers of the load (default: two for large inputs, none — this thread — for small ones, ingest/load/workers.ts IN_THREAD_BYTES). */
  loadWorkers?: number;
  /** Scan workers (default: two for large inputs, none — this thread — for small ones). */
  scanWorkers?: number;
  /** Files from this size up are scanned in parts on both scan workers (default ingest/scan/scanParts.ts SCAN_SPLIT_BYTES). */
  scanSplitBytes?: number;
  /** From what size a file is parsed in parts on both load workers, and the parts' size (default ingest/load/loadPlan.ts DEFAULT_SPLIT). */
  loadSplit?: SplitOptions;
}

/** Where an ingest stands: scan and load count bytes. */
export interface IngestProgress {
  phase: "scan" | "load";
  done: number;
  total: number;
  /** Lines parsed so far in the load. */
  lines: number;
}

export type SourceStatus = "ingested" | "duplicate" | "skipped" | "refused";

/** An input as the ingest reports it: what became of it and its statistics (store/read/sources.ts SourceStats), its times as text. */
export interface SourceSummary extends Omit<SourceStats, "firstTsUs" | "lastTsUs"> {
  path: string;
  status: SourceStatus;
  /** Why a source was not ingested. */
  reason?: string;
  format: FormatName | PageBytesFormat | null;
  /** The container wrapper around each line, when the file has one. */
  wrapper: string | null;
  host: string | null;
  role: Role | null;
  /** Pages read from a file of page bytes; 0 for other sources. */
  pages: number;
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
  /** What the incident holds after the ingest, earlier ingests included. */
  incident: IncidentSpan;
  /** Microseconds added to each host's (clock domain's) raw times. */
  clockOffsetsUs: Record<string, number>;
}

/** The ranks and hosts an incident's events name, and the times its dated records cover (ISO 8601 UTC). */
export interface IncidentSpan {
  ranks: IncidentExtent["ranks"];
  hosts: string[];
  first: string | null;
  last: string | null;
}

const DEFAULT_LOCK_TIMEOUT_MS = 10 * 60 * 1000;


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
    pages: 0,
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
  /** The clock domain the scan gave the source's anchors, when the source took a host only later. */
  scannedDomain?: string;
  /** What its path says, read with the rest of its bundle. */
  reading: PathReading;
}

export async function ingest(opts: IngestOptions): Promise<IngestSummary> {
  const pulled = opts.pulled ?? [];
  if (opts.paths.length === 0 && pulled.length === 0) throw new InputError("name at least one file or directory to ingest");
  assertPathsExist(opts.paths);
  const tz = opts.tz !== undefined ? parseTimeZone(opts.tz) : UTC;
  const dbDir = dirname(opts.db);
  if (!existsSync(dbDir) || !statSync(dbDir).isDirectory()) throw new InputError(`${opts.db}: directory ${dbDir} does not exist`);
  const temp = mkdtempSync(join(tmpdir(), "kvrewind-ingest-"));
  try {
    const inputs = await expandInputs(opts.paths, temp);
    // A pulled source is named by the user, and its path names no machine folder, role or rank.
    const bundles = opts.paths.length;
    inputs.files.push(...pulled.map((p, i) => ({ displayPath: p.displayPath, plainPath: p.plainPath, identityPath: "pulled", named: true, bundle: bundles + i })));
    const summaries = inputs.rejected.map((r) => emptySummary(r.displayPath, r.status ?? "refused", r.reason));
    const scanned = await scanInputs(inputs.files, opts, tz, temp, summaries);
    const { dumps, pageFiles } = pageDumpsOf(scanned.candidates, inputs.files, summaries);
    const candidates = scanned.candidates.filter((c) => !pageFiles.has(c.file.displayPath));
    if (candidates.length === 0) throw new InputError(nothingReadable(opts.paths, summaries));
    const result = await store(opts, candidates, scanned.anchorStores, summaries, dumps);
    return { ...result, incident: incidentSpan(opts.db), sources: [...candidates.map((c) => c.summary), ...summaries] };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The incident's extent as the ingest reports it, read on a connection of its own (the writer's has closed). */
function incidentSpan(path: string): IncidentSpan {
  const db = openIncident(path, { readonly: true });
  try {
    const extent = incidentExtent(db);
    const iso = (us: number | null): string | null => (us === null ? null : isoFromUs(us));
    return { ranks: extent.ranks, hosts: extent.hosts, first: iso(extent.firstTsUs), last: iso(extent.lastTsUs) };
  } finally {
    db.close();
  }
}

/**
 * The page-dump indexes among the sources and the files they read their
 * pages from: those are page bytes, not inputs of their own (so not refused
 * as binary); their summaries say whose bytes they are.
 */
function pageDumpsOf(candidates: readonly Candidate[], files: readonly InputFile[], summaries: SourceSummary[]): { dumps: PageDumpIndex[]; pageFiles: Set<string> } {
  const dumps = planPageDumps(candidates.filter((c) => c.report.format === "page-dump-jsonl").map((c) => c.file), files);
  const pageFiles = pageByteFiles(dumps);
  const readBy = new Map(dumps.flatMap((d) => d.records.flatMap((r) => (r.file ? [[r.file.displayPath, d.index.displayPath] as const] : []))));
  const kept = summaries.filter((s) => !pageFiles.has(s.path));
  summaries.splice(0, summaries.length, ...kept);
  for (const [path, index] of readBy) {
    const size = statSync(files.find((f) => f.displayPath === path)!.plainPath).size;
    summaries.push({ ...emptySummary(path, "ingested", `page bytes read through the page-dump index ${index}`, size) });
  }
  return { dumps, pageFiles };
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
  const parallel = Math.min(2, availableParallelism());
  const readings = readBundlePaths(files.map((f) => ({ identityPath: f.identityPath, bundle: bundleOf(f) })));
  const wholeRequests: ScanRequest[] = files.map((f, file) => ({
    file,
    plainPath: f.plainPath,
    displayPath: f.displayPath,
    identityPath: f.identityPath,
    pathIdentity: identityOf(readings[file]!),
    flagHost: opts.host ?? null,
    flagRole: opts.role ?? null,
    tz,
  }));
  const requests = wholeRequests.flatMap((req, i) => scanRequestsOf(req, sizes[i]!, parallel, opts.scanSplitBytes));
  opts.onProgress?.({ phase: "scan", done: 0, total: bytesTotal, lines: 0 });
  const scanned = await scanAll(requests, opts.scanWorkers ?? (bytesTotal < IN_THREAD_BYTES ? 0 : parallel), temp, (i) => {
    const { part, file } = requests[i]!;
    bytesDone += part === undefined ? sizes[file]! : (part.endByte ?? sizes[file]!) - part.startByte;
    opts.onProgress?.({ phase: "scan", done: bytesDone, total: bytesTotal, lines: 0 });
  });
  const { anchorStores } = scanned;
  const partsOf: (ScanReport | Error)[][] = wholeRequests.map(() => []);
  scanned.reports.forEach((r, i) => partsOf[requests[i]!.file]!.push(r));
  const reports = wholeRequests.map((req, i) => {
    const failed = partsOf[i]!.find((p): p is Error => p instanceof Error);
    return failed ?? mergeScanParts(req, partsOf[i] as ScanReport[]);
  });
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  files.forEach((file, i) => {
    const report = reports[i]!;
    if (report instanceof Error) {
      rejected.push(emptySummary(file.displayPath, "refused", `could not be read: ${report.message}`, sizes[i]));
      return;
    }
    const summary: SourceSummary = {
      ...emptySummary(file.displayPath, "ingested", "", report.bytes),
      format: report.format,
      wrapper: report.wrapper,
      host: report.host,
      role: report.role,
      lines: report.lines,
      sha256: report.sha256 || null,
    };
    delete summary.reason;
    if (report.rejection) {
      rejected.push({ ...summary, status: report.rejection.kind === "binary" ? "refused" : "skipped", reason: report.rejection.reason });
      return;
    }
    // The same path named twice is one source; the same bytes under another path (identical per-rank files) are evidence of their own.
    const key = sourceKey(file.displayPath, report.sha256);
    if (seen.has(key)) {
      rejected.push({ ...summary, status: "duplicate", reason: "the same file, named twice" });
      return;
    }
    seen.add(key);
    candidates.push({ index: i, file, report, summary, reading: readings[i]! });
  });
  shareFolders(candidates);
  return { candidates: inStreamOrder(candidates, (c) => c.file.displayPath), anchorStores };
}

/**
 * The files of one machine's folder share what their content says of it
 * (ingest/inputs/machines.ts): a Flight Recorder dump takes the role of the
 * log beside it, a log the host its folder's probe records name. A source
 * that takes a host only now moves its scanned anchors to that host's clock domain.
 */
function shareFolders(candidates: readonly Candidate[]): void {
  const changes = shareFolderIdentity(
    candidates.map((c) => ({ bundle: bundleOf(c.file), reading: c.reading, contentHost: c.report.content.host, host: c.report.host, role: c.report.role })),
  );
  for (const [i, change] of changes) {
    const c = candidates[i]!;
    if (change.role !== undefined) c.report.role = c.summary.role = change.role;
    if (change.host === undefined) continue;
    c.scannedDomain = c.report.domain;
    c.report.host = c.summary.host = change.host;
    c.report.domain = change.host;
  }
}

/** Which bundle a file's folders belong to: files named one by one are read as given, their folders shared. */
function bundleOf(f: InputFile): number {
  return f.named ? -1 : f.bundle;
}

/** Why an ingest found nothing to read: every input was empty, binary or unreadable. */
function nothingReadable(paths: readonly string[], notRead: readonly SourceSummary[]): string {
  if (notRead.length === 0) return `no file to ingest in ${paths.join(", ")} (an empty directory or archive)`;
  const why = notRead.slice(0, 5).map((s) => `${s.path}: ${s.reason}`);
  const more = notRead.length > 5 ? `; and ${notRead.length - 5} more` : "";
  return `no readable file to ingest (${why.join("; ")}${more})`;
}

async function store(
  opts: IngestOptions,
  candidates: Candidate[],
  anchorStores: string[],
  notIngested: readonly SourceSummary[],
  dumps: readonly PageDumpIndex[],
): Promise<Omit<IngestSummary, "sources" | "incident">> {
  const lockTimeoutMs = opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const writer = IncidentWriter.open(opts.db, lockTimeoutMs);
  try {
    const scanSchemas = writer.begin(lockTimeoutMs, anchorStores);
    const known = writer.knownSources();
    const isKnown = (c: Candidate) => known.has(sourceKey(c.file.displayPath, c.report.sha256));
    const fresh = candidates.filter((c) => !isKnown(c));
    for (const c of candidates) {
      if (isKnown(c)) Object.assign(c.summary, { status: "duplicate", reason: "already in this incident (same path, same sha256)" });
    }
    let recorded = 0;
    for (const s of notIngested) if (s.status !== "ingested" && writer.recordNotIngested(notIngestedRow(s))) recorded++;
    if (fresh.length === 0) {
      if (recorded > 0) writer.commit();
      else writer.rollback();
      return { db: opts.db, eventsAdded: 0, eventsTotal: writer.eventCount(), clockOffsetsUs: writer.clockOffsets() };
    }
    const settings = { tz: opts.tz ?? "UTC" };
    const sameIncident = { db: opts.db, hasEvents: writer.hasEvents(), settings: writer.ingestSettings(), span: writer.ingestedSpan() };
    assertSameIncident(sameIncident, settings, spanOf(fresh), opts.append === true);
    const hints = datingHints(
      fresh.map((c) => ({ host: c.report.host, dated: c.report.dated, mtimeUs: c.report.mtimeUs })),
      sameIncident.span,
    );
    const renames = Object.fromEntries(fresh.flatMap((c) => (c.scannedDomain !== undefined ? [[c.scannedDomain, c.report.domain]] : [])));
    mergeScanAnchors(writer.db, scanSchemas, fresh.map((c) => c.index), renames);
    const stored = writer.storedSources();
    // A file with no time (a note, a README, a capture of undated lines) is no clock domain: there is no clock of its to align;
    // nor is a trace file, whose spans each name their host.
    const domains = [
      ...stored.filter((s) => s.timed && !namesHostPerEvent(s.format)).map((s) => s.host ?? `src:${s.path}`),
      ...fresh.filter((c) => (!isLogFormat(c.report.format!) || c.report.dated !== null) && !namesHostPerEvent(c.report.format)).map((c) => c.report.domain),
      ...anchorDomains(writer.db),
    ];
    const alignment = alignClocks(domains, anchorBounds(writer.db));

    const loadSources = fresh.map((c, i) => toLoadSource(c, writer, hints[i]!, opts.tz !== undefined));
    const merger = writer.hasEvents() ? setAside(writer, stored, alignment.offsetsUs) : undefined;
    const bytesTotal = fresh.reduce((n, c) => n + c.report.bytes, 0);
    const stats = await runLoad(loadSources, alignment.offsetsUs, merger ?? writer, (progress) =>
      opts.onProgress?.({ phase: "load", done: progress.bytes, total: bytesTotal, lines: progress.lines }),
      opts.loadWorkers,
      opts.loadSplit,
    );
    if (merger) {
      merger.finish();
      writer.dropPreviousEvents();
    } else {
      writer.flushRows();
    }
    const pageDumps = storePageDumps(writer.db, dumps, (index) => loadSources.find((s) => s.displayPath === index.displayPath)?.sourceId);
    stats.forEach((s, i) => finishSource(writer, fresh[i]!, withErrors(s, pageDumps.issues.get(s.sourceId))));
    recordPageByteSources(writer, pageDumps.files, fresh, notIngested);
    writer.saveClock(alignment);
    if (!sameIncident.hasEvents || writer.ingestSettings() === null) writer.saveIngestSettings(settings);
    writer.commit();
    const eventsAdded = stats.reduce((n, s) => n + s.events, 0);
    return { db: opts.db, eventsAdded, eventsTotal: writer.eventCount(), clockOffsetsUs: alignment.offsetsUs };
  } finally {
    writer.close();
  }
}

/**
 * Each file of page bytes an ingested index read becomes a source with its
 * provenance (format, size, sha256, pages read), on the index's host; its
 * summary says the same.
 */
function recordPageByteSources(writer: IncidentWriter, files: readonly PageByteSource[], fresh: readonly Candidate[], summaries: readonly SourceSummary[]): void {
  for (const f of files) {
    const host = fresh.find((c) => c.file.displayPath === f.index.displayPath)?.report.host ?? null;
    const format = pageBytesFormat(f.kind);
    const reason = `page bytes read through the page-dump index ${f.index.displayPath}`;
    writer.addPageByteSource({ path: f.path, format, host, sha256: f.sha256, bytes: f.bytes, pages: f.pages, reason });
    const summary = summaries.find((s) => s.path === f.path);
    if (summary) Object.assign(summary, { format, host, sha256: f.sha256, bytes: f.bytes, pages: f.pages, reason });
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

/** The dates the new sources' lines carry, all together (the scan's reading). */
function spanOf(sources: readonly Candidate[]): TimeSpan | null {
  let span: TimeSpan | null = null;
  for (const { report } of sources) {
    const d = report.dated;
    if (d === null || !isLogFormat(report.format!)) continue;
    span = span === null ? { ...d } : { firstUs: Math.min(span.firstUs, d.firstUs), lastUs: Math.max(span.lastUs, d.lastUs) };
  }
  return span;
}

function toLoadSource(c: Candidate, writer: IncidentWriter, dating: DatingHints, tzGiven: boolean): LoadSource {
  const r = c.report;
  const stream = streamOf(c.file.displayPath);
  const source = { path: c.file.displayPath, format: r.format!, wrapper: r.wrapper, host: r.host, role: r.role, sha256: r.sha256, bytes: r.bytes, stream };
  return {
    sourceId: writer.addSource(source),
    plainPath: c.file.plainPath,
    displayPath: c.file.displayPath,
    format: r.format!,
    wrapper: r.wrapper,
    host: r.host,
    role: r.role,
    rank: r.rank,
    dating: takesDatingHints(r.format!) ? dating : null,
    tzGiven,
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

/** A source's load figures with the errors found after its load (pages that could not be read). */
function withErrors(s: LoadedStats, more: readonly ParseIssue[] | undefined): LoadedStats {
  if (!more) return s;
  return { ...s, errors: [...s.errors, ...more], errorCount: s.errorCount + more.length };
}

function finishSource(writer: IncidentWriter, c: Candidate, s: LoadedStats): void {
  writer.completeSource(s.sourceId, s);
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
