// The first pass over a source (runs in a scan worker): its content hash,
// line count, format, who wrote it, and its clock anchors. Only the lines
// that can carry an anchor or say the source's role are parsed here; the full
// parse happens once, in the load.

import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { Role } from "../../domain/vocabulary.js";
import { AnchorTable } from "./clock.js";
import { type AnchorAgg } from "../../domain/clockAnchors.js";
import type { FormatName, InputFormat } from "../formats/format.js";
import { detectBinaryFormat, detectFormat, HEAD_BYTES, isLogFormat, looksBinary } from "../formats/index.js";
import { wrapperOfHead } from "../formats/log/head.js";
import { ANCHOR_NEEDLES, ROLE_WORDS } from "../formats/templates/index.js";
import type { WrapperName } from "../formats/wrappers/index.js";
import { DateSpan } from "./dateSpan.js";
import { offsetMinutesForWallClock, type PathIdentity, type TimeZoneSpec } from "../inputs/pathIdentity.js";
import { ChunkReader, forEachLine, READ_BYTES, type TextChunk } from "../inputs/lines.js";
import { ContentIdentityReader, resolveIdentity, type ContentIdentity } from "./sourceIdentity.js";

export interface ScanRequest {
  /** The file's index in the ingest: its anchors are stored under it. */
  file: number;
  plainPath: string;
  displayPath: string;
  /** The path host/role are read from (an archive entry's own name). */
  identityPath: string;
  /** What the path says as read with the rest of its bundle (ingest/inputs/machines.ts). */
  pathIdentity?: PathIdentity;
  flagHost: string | null;
  flagRole: Role | null;
  tz: TimeZoneSpec;
  /** A part of a large file (ingest/scan/scanParts.ts); absent: the whole file. */
  part?: ScanPart;
}

/** Bytes [startByte, endByte) of a file, both line starts (endByte null: to its end); part 0 also hashes the rest. */
export interface ScanPart {
  index: number;
  startByte: number;
  endByte: number | null;
}

export interface ScanReport {
  sha256: string;
  bytes: number;
  lines: number;
  format: FormatName | null;
  /** The container wrapper around each line (CRI, docker json-file, kubectl, journald), null for none. */
  wrapper: WrapperName | null;
  /** Why the source is not ingested. */
  rejection: { kind: "empty" | "binary"; reason: string } | null;
  host: string | null;
  role: Role | null;
  /** The rank of the file's records that name none: from its path, else the one rank its lines name. */
  rank: { dp?: number; tp?: number } | null;
  domain: string;
  tzOffsetMinutes: number;
  /** Logs: the first and last dates written in the file (µs, read in its zone), null when it has none. */
  dated: { firstUs: number; lastUs: number } | null;
  /** The file's modification time (µs). */
  mtimeUs: number;
  /** What the content said of host, role and ranks (host, role and rank above also weigh the path and flags). */
  content: ContentIdentity;
}

/** Receives a source's anchors in parts as the scan goes (store/anchors.ts keeps them). */
export type AnchorSink = (aggs: AnchorAgg[]) => void;

/** Keys an anchor table may hold before it is handed to the sink. */
const ANCHOR_FLUSH_KEYS = 20_000;

/**
 * Lines worth parsing in the scan, per format: those that can be a clock
 * anchor (ingest/scan/clock.ts) and, for logs, those that say the role; the
 * log templates name both (ingest/formats/templates/).
 */
const LOG_ANCHOR_LINES = new RegExp(alternation(ANCHOR_NEEDLES), "g");
const PROBE_ANCHOR_LINES = /"(?:kv\.post|kv\.notify|kv\.meta|boot\.msg|coll\.enter|coll\.exit)"/g;
/** Lines of a log's head parsed whole in the scan: they say which ranks write the file. */
const HEAD_LINES = 200;
const LOG_ROLE_WORDS = alternation(ROLE_WORDS);
const LOG_ROLE_LINES = new RegExp(LOG_ROLE_WORDS, "g");
const LOG_ROLE_LINE = new RegExp(LOG_ROLE_WORDS);

/** A regex source matching any of `words` literally. */
function alternation(words: readonly string[]): string {
  return words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
}

/**
 * Anchor lines parsed in full per source before sampling starts. Past them,
 * only lines stamped in a second ending in 0 are parsed: both sides of a
 * room fall in the same seconds (clocks differ by milliseconds), so one
 * tenth of the rooms still pair up, at a tenth of the cost.
 */
const FULL_ANCHOR_LINES = 5_000;

function readHead(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

type Rejection = NonNullable<ScanReport["rejection"]>;

/** The format of a file from its first bytes (every text file has one), or why it is not read. */
function classify(head: Buffer): { format: InputFormat; headText: string } | { rejection: Rejection } {
  if (head.length === 0) return { rejection: { kind: "empty", reason: "empty file" } };
  const binary = detectBinaryFormat(head);
  if (binary !== undefined) return { format: binary, headText: "" };
  if (looksBinary(head)) return { rejection: { kind: "binary", reason: "binary content (NUL bytes); not a log, probe or dump file" } };
  const headText = head.toString("utf8");
  return { format: detectFormat(headText), headText };
}

export function scanSource(req: ScanRequest, onAnchors: AnchorSink): ScanReport {
  const identity = new ContentIdentityReader(req);
  const st = statSync(req.plainPath);
  const report: ScanReport = {
    sha256: "",
    bytes: st.size,
    lines: 0,
    format: null,
    wrapper: null,
    rejection: null,
    host: null,
    role: null,
    rank: null,
    domain: "",
    tzOffsetMinutes: 0,
    dated: null,
    mtimeUs: Math.round(st.mtimeMs * 1000),
    content: { host: null, role: null, ranks: [] },
  };
  const kind = classify(readHead(req.plainPath));
  const part = "format" in kind && isScannedInParts(kind.format.name) ? req.part : undefined;
  // A later part of a file read whole (by its part 0) reads nothing.
  if (req.part !== undefined && req.part.index > 0 && part === undefined) return report;
  if ("rejection" in kind) report.rejection = kind.rejection;
  else if (kind.format.parseBytes !== undefined) scanWhole(req, kind.format, identity, report, onAnchors);
  else {
    if (isLogFormat(kind.format.name)) report.wrapper = wrapperOfHead(kind.headText)?.name ?? null;
    scanText(req, kind.format, part, identity, report, onAnchors);
    report.format = kind.format.name;
  }
  report.content = identity.result();
  Object.assign(report, resolveIdentity(req, [report.content]));
  report.domain = report.host ?? `src:${req.displayPath}`;
  return report;
}

/** Formats whose scan may be cut at line starts: each line is read on its own (logs' records only matter to the load). */
export function isScannedInParts(format: FormatName): boolean {
  return isLogFormat(format) || format === "probe-jsonl";
}

/** A text source, or part of one: its lines, and the hash of the whole file unless this is a later part. */
function scanText(req: ScanRequest, format: InputFormat, part: ScanPart | undefined, identity: ContentIdentityReader, report: ScanReport, onAnchors: AnchorSink): void {
  const hashing = part === undefined || part.index === 0;
  const hash = createHash("sha256");
  let bytes = 0;
  const onRead = hashing
    ? (chunk: Buffer): void => {
        hash.update(chunk);
        bytes += chunk.length;
      }
    : undefined;
  const reader = new ChunkReader(req.plainPath, onRead, READ_BYTES, part?.startByte ?? 0, 1, part?.endByte ?? null);
  try {
    const firstWallMs = part !== undefined && part.index > 0 ? fileFirstWallMs(req.plainPath, format) : undefined;
    scanContent(reader, format, req, identity, report, onAnchors, { fileHead: part === undefined || part.index === 0, firstWallMs });
  } finally {
    reader.close();
  }
  report.lines = reader.linesRead;
  if (!hashing) return;
  if (part?.endByte != null) bytes += hashRange(req.plainPath, part.endByte, hash);
  report.bytes = bytes;
  report.sha256 = hash.digest("hex");
}

/** Feeds the bytes from `start` to the end of the file to `hash`; returns how many. */
function hashRange(path: string, start: number, hash: ReturnType<typeof createHash>): number {
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(READ_BYTES);
  let at = start;
  try {
    for (let n = readSync(fd, buf, 0, buf.length, at); n > 0; n = readSync(fd, buf, 0, buf.length, at)) {
      hash.update(buf.subarray(0, n));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return at - start;
}

/** The first date of a log's first chunk, which sets its zone's offset (scanContent), for a later part's reading. */
function fileFirstWallMs(path: string, format: InputFormat): number | undefined {
  if (!isLogFormat(format.name)) return undefined;
  const reader = new ChunkReader(path);
  try {
    const first = reader.next();
    if (first === null) return undefined;
    const dates = new DateSpan();
    dates.add(first.text);
    return dates.firstWallMs;
  } finally {
    reader.close();
  }
}

/** A binary source is read whole: its hash, and the anchors of its events. */
function scanWhole(req: ScanRequest, format: InputFormat, identity: ContentIdentityReader, report: ScanReport, onAnchors: AnchorSink): void {
  const bytes = readFileSync(req.plainPath);
  report.sha256 = createHash("sha256").update(bytes).digest("hex");
  report.bytes = bytes.length;
  report.format = format.name;
  const events: ParsedEvent[] = [];
  format.parseBytes!(bytes, { sourcePath: req.displayPath, tzOffsetMinutes: 0 }, events, []);
  const anchors = new AnchorTable();
  for (const ev of events) {
    identity.fromEvent(ev);
    anchors.addEvent(ev, ev.host ?? identity.currentHost ?? `src:${req.displayPath}`, 1);
  }
  if (anchors.size > 0) onAnchors(anchors.drain());
}

/** Where a reading starts: at the file's head (its first lines say which ranks write it), and the file's first date when not. */
interface ReadingStart {
  fileHead: boolean;
  firstWallMs: number | undefined;
}

function scanContent(
  reader: ChunkReader,
  format: InputFormat,
  req: ScanRequest,
  identity: ContentIdentityReader,
  report: ScanReport,
  onAnchors: AnchorSink,
  start: ReadingStart,
): void {
  const first = reader.next();
  if (!first) return;
  const isLog = isLogFormat(format.name);
  const dates = isLog ? new DateSpan() : null;
  dates?.add(first.text);
  const wall = start.fileHead ? dates?.firstWallMs : start.firstWallMs;
  report.tzOffsetMinutes = offsetMinutesForWallClock(req.tz, wall ?? Date.now());
  const parser = format.createParser({
    sourcePath: req.displayPath,
    tzOffsetMinutes: report.tzOffsetMinutes,
    ...(report.wrapper !== null ? { wrapper: report.wrapper } : {}),
  });
  const anchors = new AnchorTable();
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  const take = (): void => {
    for (const ev of events) {
      identity.fromEvent(ev);
      anchors.addEvent(ev, ev.host ?? identity.currentHost ?? `src:${req.displayPath}`, stampQuantumUs(format.name, ev.text));
    }
    events.length = 0;
    // Parse issues are reported by the load, which reads every line.
    issues.length = 0;
    if (anchors.size >= ANCHOR_FLUSH_KEYS) onAnchors(anchors.drain());
  };
  const guarded = (f: () => void): void => {
    try {
      f();
    } catch {
      // A parser that throws costs the scan this line only; the load reports it.
    }
  };
  const selector = lineSelector(format.name, identity, start.fileHead);
  for (let chunk: TextChunk | null = first; chunk; chunk = reader.next()) {
    if (chunk !== first) dates?.add(chunk.text);
    selector(chunk, (line, no) => guarded(() => parser.line(line, no, events, issues)));
    take();
  }
  guarded(() => parser.end(events, issues));
  take();
  if (anchors.size > 0) onAnchors(anchors.drain());
  report.dated = dates?.span(report.tzOffsetMinutes) ?? null;
}

/** How finely a source stamps its events: logs to the millisecond with SGLANG_LOG_MS, else to the second (§1). */
function stampQuantumUs(format: FormatName, text: string): number {
  if (!isLogFormat(format)) return 1;
  const at = text.indexOf("[");
  return at >= 0 && text.charCodeAt(at + 20) === 46 /* . */ ? 1000 : 1_000_000;
}

type LineVisitor = (line: string, lineNo: number) => void;

/** Which lines of a chunk the scan parses, by format. */
function lineSelector(format: FormatName, identity: ContentIdentityReader, fileHead: boolean): (chunk: TextChunk, visit: LineVisitor) => void {
  if (format === "flight-recorder") return (chunk, visit) => forEachLine(chunk, visit);
  if (format === "checksum-csv" || format === "checksum-jsonl" || format === "page-dump-jsonl") {
    // No anchors; the header and first record say host and role.
    return (chunk, visit) => {
      if (chunk.firstLine === 1) visitFirstLines(chunk, 2, visit);
    };
  }
  const isLog = isLogFormat(format);
  const anchorRe = isLog ? LOG_ANCHOR_LINES : format === "probe-jsonl" ? PROBE_ANCHOR_LINES : undefined;
  const stampSecond = isLog ? logSecondDigit : (text: string, start: number, end: number) => probeSecondDigit(lineOf(text, start, end));
  let anchorLines = 0;
  return (chunk, visit) => {
    const headLines = fileHead && chunk.firstLine === 1 ? (isLog ? HEAD_LINES : format === "probe-jsonl" ? 1 : 0) : 0;
    if (headLines > 0) visitFirstLines(chunk, headLines, visit);
    const needRole = isLog && !identity.roleSettled;
    visitMatching(chunk, [anchorRe, needRole ? LOG_ROLE_LINES : undefined], (text, start, end, no) => {
      if (no <= headLines) return;
      const line = needRole ? lineOf(text, start, end) : null;
      if (line !== null && LOG_ROLE_LINE.test(line)) return visit(line, no);
      // Most of a prefill log's lines are anchor lines: they are sampled before they are cut out of the chunk.
      if (++anchorLines > FULL_ANCHOR_LINES && stampSecond(text, start, end) !== 48 /* '0' */) return;
      visit(line ?? lineOf(text, start, end), no);
    });
  };
}

/**
 * The last digit of the seconds of a log line's prefix `[YYYY-MM-DD HH:MM:SS`
 * (§1), as a char code; the line is text[start, end) (a '\r' before its end
 * reads as no digit, as past the end does).
 */
function logSecondDigit(text: string, start: number, end: number): number {
  const at = (i: number): number => (start + i < end ? text.charCodeAt(start + i) : NaN);
  return at(0) === 91 && at(17) === 58 ? at(19) : 48;
}

/** The last digit of the whole seconds of a probe record's ts (seconds float or integer ns), as a char code. */
function probeSecondDigit(line: string): number {
  const key = line.indexOf('"ts"');
  if (key < 0) return 48;
  let start = key + 4;
  while (start < line.length && (line.charCodeAt(start) < 48 || line.charCodeAt(start) > 57)) start++;
  let end = start;
  while (end < line.length && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
  const digits = end - start;
  if (digits === 0) return 48;
  // Integer digits beyond the seconds: 0 for seconds, 3 ms, 6 us, 9 ns (numerals.ts reads units the same way).
  const extra = line.charCodeAt(end) === 46 || digits <= 11 ? 0 : digits <= 14 ? 3 : digits <= 17 ? 6 : 9;
  return line.charCodeAt(end - 1 - extra);
}

function visitFirstLines(chunk: TextChunk, count: number, visit: LineVisitor): void {
  let start = 0;
  for (let i = 0; i < count && start < chunk.text.length; i++) {
    let end = chunk.text.indexOf("\n", start);
    if (end < 0) end = chunk.text.length;
    visit(stripCr(chunk.text.slice(start, end)), chunk.firstLine + i);
    start = end + 1;
  }
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function lineOf(text: string, start: number, end: number): string {
  return stripCr(text.slice(start, end));
}

/** A line of a chunk's text, text[start, end) without its '\n'; `lineNo` its number in the file. */
type LineAtVisitor = (text: string, start: number, end: number, lineNo: number) => void;

/** Visits, in order and once each, the lines where any of the patterns match. */
function visitMatching(chunk: TextChunk, patterns: (RegExp | undefined)[], visit: LineAtVisitor): void {
  const text = chunk.text;
  const starts: number[] = [];
  let used = 0;
  for (const re of patterns) {
    if (!re) continue;
    used++;
    re.lastIndex = 0;
    // test() leaves lastIndex at the match's end and makes no match array (the patterns span no '\n').
    while (re.test(text)) {
      const matchEnd = re.lastIndex;
      starts.push(text.lastIndexOf("\n", matchEnd - 1) + 1);
      const end = text.indexOf("\n", matchEnd);
      if (end < 0) break;
      re.lastIndex = end + 1;
    }
  }
  if (starts.length === 0) return;
  if (used > 1) starts.sort((a, b) => a - b);
  let lineNo = chunk.firstLine;
  let countedTo = 0;
  let previous = -1;
  for (const start of starts) {
    if (start === previous) continue;
    previous = start;
    for (let nl = text.indexOf("\n", countedTo); nl >= 0 && nl < start; nl = text.indexOf("\n", nl + 1)) {
      lineNo++;
      countedTo = nl + 1;
    }
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    visit(text, start, end, lineNo);
  }
}
