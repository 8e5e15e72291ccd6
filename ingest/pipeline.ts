// `ingest`: the files a user names → one ordered history in an incident
// database. The stages:
//   1. inputs   directories walked, gzip/tar unpacked (ingest/inputs/inputs.ts);
//   2. sniff    per file, its head: format, wrapper, the zone its dates are
//               read in (ingest/inputs/sniff.ts);
//   3. store    under the incident's write lock, in one transaction:
//      a. parse   every source read once, on the load workers: its events
//                 packed into a run of row batches in file order, and in the
//                 same pass its content hash, what its content says of who
//                 wrote it, its dated span and its clock anchors
//                 (ingest/load/loadStream.ts, ingest/load/sourceFacts.ts);
//      b. decide  from every source's facts: duplicates (same path, same
//                 sha256), who wrote each, the dating hints of undated
//                 records (ingest/sources/candidates.ts), the clock offsets
//                 (ingest/sources/clock.ts);
//      c. merge   the runs merged into the global order on this thread,
//                 each row given its source's id, identity and clock offset
//                 (ingest/load/runs.ts), and written by store/writer.ts as
//                 compressed column blocks (store/blocks/).
// The store stage is one transaction: killed at any point, it leaves the
// incident as it was.

import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { alignClocks } from "./sources/clock.js";
import type { ParseIssue } from "../domain/event.js";
import type { Role } from "../domain/vocabulary.js";
import { InputError, parseTimeZone, UTC, type TimeZoneSpec } from "./inputs/pathIdentity.js";
import { readBundlePaths } from "./inputs/machines.js";
import { streamOf } from "./inputs/rotation.js";
import { assertPathsExist, expandInputs, type InputFile } from "./inputs/inputs.js";
import { sniffSource, type Sniff } from "./inputs/sniff.js";
import type { LoadedStats } from "./load/loadStream.js";
import { StoredEventsMerger } from "./load/rebuild.js";
import { mergeRuns, type Run } from "./load/runs.js";
import { RunStore } from "./load/runStore.js";
import { OWN_DOMAIN } from "./load/sourceFacts.js";
import { parseCandidates, type Candidate } from "./sources/candidates.js";
import { rankNameOf } from "./sources/sourceIdentity.js";
import { addAnchors, anchorBounds, anchorDomains } from "../store/anchors.js";
import type { ClockAlignment } from "../domain/clockAnchors.js";
import { incidentExtent, type IncidentExtent } from "../store/read/incident.js";
import { openIncident } from "../store/db.js";
import { IncidentWriter, type KnownSource } from "../store/writer.js";
import { allKnownAlready } from "./sources/knownAgain.js";
import { DUPLICATE_REASON, emptySummary, knownSummary, nothingReadable, notIngestedRow, summaryOf, type SourceSummary } from "./sourceSummaries.js";
import type { SplitOptions } from "./load/loadPlan.js";
import { isoFromUs } from "../domain/timeFormat.js";
import type { TimeSpan } from "./sources/timeHints.js";
import { isLogFormat, namesHostPerEvent } from "./formats/index.js";
import { assertSameIncident } from "./load/sameIncident.js";
import { pageByteFiles, pageBytesFormat, planPageDumps, storePageDumps, type PageByteSource, type PageDumpIndex } from "./inputs/pageDumps.js";

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
  /** Parse workers (default: two for large inputs, none — this thread — for small ones, ingest/load/workers.ts IN_THREAD_BYTES). */
  loadWorkers?: number;
  /** From what size a file is parsed in parts on both load workers, and the parts' size (default ingest/load/loadPlan.ts DEFAULT_SPLIT). */
  loadSplit?: SplitOptions;
  /** Most bytes the compressed inputs (`.gz`, `.zst`, `.xz`, a `.tar.zst`) may unpack to, together; past it a file is refused (default: no limit; the server passes its upload limit). */
  maxUnpackedBytes?: number;
  /** Bytes counted against `maxUnpackedBytes` before the ingest (an upload's archives the server unpacked). */
  unpackedBefore?: number;
  /** Bytes of parsed rows kept in memory until the merge; past them the rows wait in a temporary file (default ingest/load/runStore.ts RUN_MEMORY_BYTES). */
  runMemoryBytes?: number;
}

/** Where an ingest stands: the load (the parse of every source) counts bytes, the store rows written. */
export interface IngestProgress {
  phase: "load" | "store";
  done: number;
  total: number;
  /** Lines parsed so far in the load. */
  lines: number;
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


export async function ingest(opts: IngestOptions): Promise<IngestSummary> {
  const pulled = opts.pulled ?? [];
  if (opts.paths.length === 0 && pulled.length === 0) throw new InputError("name at least one file or directory to ingest");
  assertPathsExist(opts.paths);
  const tz = opts.tz !== undefined ? parseTimeZone(opts.tz) : UTC;
  const dbDir = dirname(opts.db);
  if (!existsSync(dbDir) || !statSync(dbDir).isDirectory()) throw new InputError(`${opts.db}: directory ${dbDir} does not exist`);
  const temp = mkdtempSync(join(tmpdir(), "kvrewind-ingest-"));
  try {
    const inputs = await expandInputs(opts.paths, temp, opts.maxUnpackedBytes, opts.unpackedBefore);
    // A pulled source is named by the user, and its path names no machine folder, role or rank.
    const bundles = opts.paths.length;
    inputs.files.push(...pulled.map((p, i) => ({ displayPath: p.displayPath, plainPath: p.plainPath, identityPath: "pulled", named: true, bundle: bundles + i })));
    const notRead: Ordered[] = inputs.rejected.map((r) => ({ order: -1, summary: emptySummary(r.displayPath, r.status ?? "refused", r.reason) }));
    const sniffed = sniffInputs(inputs.files, tz, notRead);
    const { dumps, pageFiles } = pageDumpsOf(sniffed, inputs.files, notRead);
    const candidates = sniffed.filter((c) => !pageFiles.has(c.file.displayPath));
    if (candidates.length === 0) throw new InputError(nothingReadable(opts.paths, notRead.map((n) => n.summary)));
    const result = await store(opts, candidates, notRead, dumps, new RunStore(temp, opts.runMemoryBytes));
    return { ...result, incident: incidentSpan(opts.db) };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** A summary of an input not ingested, with its place in the report: inputs refused before reading, then files in input order, then page bytes. */
interface Ordered {
  order: number;
  summary: SourceSummary;
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
function pageDumpsOf(candidates: readonly Candidate[], files: readonly InputFile[], notRead: Ordered[]): { dumps: PageDumpIndex[]; pageFiles: Set<string> } {
  const dumps = planPageDumps(candidates.filter((c) => c.sniff.format === "page-dump-jsonl").map((c) => c.file), files);
  const pageFiles = pageByteFiles(dumps);
  const readBy = new Map(dumps.flatMap((d) => d.records.flatMap((r) => (r.file ? [[r.file.displayPath, d.index.displayPath] as const] : []))));
  const kept = notRead.filter((s) => !pageFiles.has(s.summary.path));
  notRead.splice(0, notRead.length, ...kept);
  for (const [path, index] of readBy) {
    const size = statSync(files.find((f) => f.displayPath === path)!.plainPath).size;
    notRead.push({ order: Infinity, summary: emptySummary(path, "ingested", `page bytes read through the page-dump index ${index}`, size) });
  }
  return { dumps, pageFiles };
}

/** Sniffs every file; returns the readable ones and records the rest in `notRead`. */
function sniffInputs(files: InputFile[], tz: TimeZoneSpec, notRead: Ordered[]): Candidate[] {
  const readings = readBundlePaths(files.map((f) => ({ identityPath: f.identityPath, bundle: bundleOf(f) })));
  const candidates: Candidate[] = [];
  files.forEach((file, index) => {
    let sniff: Sniff;
    try {
      sniff = sniffSource(file.plainPath, tz);
    } catch (e) {
      const size = existsSync(file.plainPath) ? statSync(file.plainPath).size : 0;
      notRead.push({ order: index, summary: emptySummary(file.displayPath, "refused", `could not be read: ${(e as Error).message}`, size) });
      return;
    }
    if (sniff.rejection !== null || sniff.format === null) {
      const rejection = sniff.rejection!;
      const summary = { ...emptySummary(file.displayPath, rejection.kind === "binary" ? "refused" : "skipped", rejection.reason, sniff.bytes), format: sniff.format };
      notRead.push({ order: index, summary });
      return;
    }
    candidates.push({ index, file, sniff: { ...sniff, format: sniff.format }, reading: readings[index]! });
  });
  return candidates;
}

/** Which bundle a file's folders belong to: files named one by one are read as given, their folders shared. */
function bundleOf(f: InputFile): number {
  return f.named ? -1 : f.bundle;
}

async function store(opts: IngestOptions, candidates: Candidate[], notRead: Ordered[], dumps: readonly PageDumpIndex[], runs: RunStore): Promise<Omit<IngestSummary, "incident">> {
  const lockTimeoutMs = opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const writer = IncidentWriter.open(opts.db, lockTimeoutMs);
  try {
    writer.begin(lockTimeoutMs);
    const settings = { tz: opts.tz ?? "UTC" };
    const sameIncident = { db: opts.db, hasEvents: writer.hasEvents(), settings: writer.ingestSettings(), span: writer.ingestedSpan() };
    const parseOptions = {
      runs,
      tzGiven: opts.tz !== undefined,
      flagHost: opts.host ?? null,
      flagRole: opts.role ?? null,
      ...(opts.loadWorkers !== undefined ? { loadWorkers: opts.loadWorkers } : {}),
      ...(opts.loadSplit !== undefined ? { loadSplit: opts.loadSplit } : {}),
      onProgress: (p: { bytes: number; lines: number; total: number }) => opts.onProgress?.({ phase: "load", done: p.bytes, total: p.total, lines: p.lines }),
    };
    const known = writer.knownSources();
    const again = await allKnownAlready(candidates, known);
    if (again !== null) return storedAgain(opts.db, writer, again, notRead);
    const decided = await parseCandidates(candidates, parseOptions, known, sameIncident.span);
    for (const c of decided.namedTwice) notRead.push({ order: c.index, summary: summaryOf(c, "duplicate", "the same file, named twice") });
    const summaries = new Map(decided.kept.map((c) => [c, summaryOf(c, "ingested")]));
    for (const c of decided.known) Object.assign(summaries.get(c)!, { status: "duplicate", reason: DUPLICATE_REASON });
    const others = notRead.sort((a, b) => a.order - b.order).map((n) => n.summary);
    const sources = [...summaries.values(), ...others];
    let recorded = 0;
    for (const s of others) if (s.status !== "ingested" && writer.recordNotIngested(notIngestedRow(s))) recorded++;
    const { fresh } = decided;
    if (fresh.length === 0) {
      if (recorded > 0) writer.commit();
      else writer.rollback();
      return { db: opts.db, eventsAdded: 0, eventsTotal: writer.eventCount(), clockOffsetsUs: writer.clockOffsets(), sources };
    }
    assertSameIncident(sameIncident, settings, spanOf(fresh), opts.append === true);
    const { alignment, stats } = storeFresh(writer, fresh, runs, (done, total) => opts.onProgress?.({ phase: "store", done, total, lines: 0 }));
    const pageDumps = storePageDumps(writer.db, dumps, (index) => stats[fresh.findIndex((c) => c.file.displayPath === index.displayPath)]?.sourceId);
    stats.forEach((s, i) => finishSource(writer, summaries.get(fresh[i]!)!, withErrors(s, pageDumps.issues.get(s.sourceId))));
    recordPageByteSources(writer, pageDumps.files, fresh, others);
    writer.saveClock(alignment);
    if (!sameIncident.hasEvents || writer.ingestSettings() === null) writer.saveIngestSettings(settings);
    writer.commit();
    const eventsAdded = stats.reduce((n, s) => n + s.events, 0);
    return { db: opts.db, eventsAdded, eventsTotal: writer.eventCount(), clockOffsetsUs: alignment.offsetsUs, sources };
  } finally {
    writer.close();
    runs.close();
  }
}

/** An ingest of files the incident holds, every one (ingest/sources/knownAgain.ts): each a duplicate as it was stored; only what was not read is recorded. */
function storedAgain(db: string, writer: IncidentWriter, again: readonly { c: Candidate; stored: KnownSource }[], notRead: Ordered[]): Omit<IngestSummary, "incident"> {
  const duplicates = again.map(({ c, stored }) => knownSummary(c, stored));
  const others = notRead.sort((a, b) => a.order - b.order).map((n) => n.summary);
  let recorded = 0;
  for (const s of others) if (s.status !== "ingested" && writer.recordNotIngested(notIngestedRow(s))) recorded++;
  if (recorded > 0) writer.commit();
  else writer.rollback();
  return { db, eventsAdded: 0, eventsTotal: writer.eventCount(), clockOffsetsUs: writer.clockOffsets(), sources: [...duplicates, ...others] };
}

/**
 * The new sources into the incident: their anchors and the clock offsets
 * they give, then their runs merged into the global order (with the stored
 * events, re-timed, when the incident has some). Returns the offsets and
 * each source's statistics.
 */
function storeFresh(writer: IncidentWriter, fresh: readonly Candidate[], store: RunStore, onProgress: (rows: number, total: number) => void): { alignment: ClockAlignment; stats: LoadedStats[] } {
  addAnchors(writer.db, fresh.flatMap((c) => c.parsed!.facts.anchors.map((a) => (a.domain === OWN_DOMAIN ? { ...a, domain: c.identity!.domain } : a))));
  const stored = writer.storedSources();
  // A file with no time (a note, a README, a capture of undated lines) is no clock domain: there is no clock of its to align;
  // nor is a trace file, whose spans each name their host.
  const domains = [
    ...stored.filter((s) => s.timed && !namesHostPerEvent(s.format)).map((s) => s.host ?? `src:${s.path}`),
    ...fresh.filter((c) => (!isLogFormat(c.sniff.format) || c.parsed!.facts.dated !== null) && !namesHostPerEvent(c.sniff.format)).map((c) => c.identity!.domain),
    ...anchorDomains(writer.db),
  ];
  const alignment = alignClocks(domains, anchorBounds(writer.db));
  const runs = fresh.map((c) => runOf(c, writer));
  const merger = writer.hasEvents() ? setAside(writer, stored, alignment.offsetsUs) : undefined;
  const total = fresh.reduce((n, c) => n + c.parsed!.stats.events, 0);
  const spans = mergeRuns(runs, store, alignment.offsetsUs, merger ?? writer, (rows) => onProgress(rows, total));
  if (merger) {
    merger.finish();
    writer.dropPreviousEvents();
  } else {
    writer.flushRows();
  }
  const stats = fresh.map((c, i) => {
    const ranks = [...new Set(c.parsed!.stats.ranks.map((r) => rankNameOf(r, c.identity!)))].sort();
    return { ...c.parsed!.stats, ...spans[i]!, sourceId: runs[i]!.sourceId, ranks };
  });
  return { alignment, stats };
}

/** A fresh source added to the incident, its run to be merged. */
function runOf(c: Candidate, writer: IncidentWriter): Run {
  const { host, role } = c.identity!;
  const facts = c.parsed!.facts;
  const source = { path: c.file.displayPath, format: c.sniff.format, wrapper: c.sniff.wrapper, host, role, sha256: facts.sha256, bytes: facts.bytes, stream: streamOf(c.file.displayPath) };
  return { batches: c.parsed!.batches, format: c.sniff.format, sourceId: writer.addSource(source), identity: c.identity!, domain: c.identity!.domain };
}

/**
 * Each file of page bytes an ingested index read becomes a source with its
 * provenance (format, size, sha256, pages read), on the index's host; its
 * summary says the same.
 */
function recordPageByteSources(writer: IncidentWriter, files: readonly PageByteSource[], fresh: readonly Candidate[], summaries: readonly SourceSummary[]): void {
  for (const f of files) {
    const host = fresh.find((c) => c.file.displayPath === f.index.displayPath)?.identity!.host ?? null;
    const format = pageBytesFormat(f.kind);
    const reason = `page bytes read through the page-dump index ${f.index.displayPath}`;
    writer.addPageByteSource({ path: f.path, format, host, sha256: f.sha256, bytes: f.bytes, pages: f.pages, reason });
    const summary = summaries.find((s) => s.path === f.path);
    if (summary) Object.assign(summary, { format, host, sha256: f.sha256, bytes: f.bytes, pages: f.pages, reason });
  }
}

/** The dates the new sources' lines carry, all together. */
function spanOf(sources: readonly Candidate[]): TimeSpan | null {
  let span: TimeSpan | null = null;
  for (const c of sources) {
    const d = c.parsed!.facts.dated;
    if (d === null || !isLogFormat(c.sniff.format)) continue;
    span = span === null ? { ...d } : { firstUs: Math.min(span.firstUs, d.firstUs), lastUs: Math.max(span.lastUs, d.lastUs) };
  }
  return span;
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

function finishSource(writer: IncidentWriter, summary: SourceSummary, s: LoadedStats): void {
  writer.completeSource(s.sourceId, s);
  Object.assign(summary, {
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
