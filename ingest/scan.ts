// The first pass over a source (runs in a scan worker): its content hash,
// line count, format, who wrote it, and its clock anchors. Only the lines
// that can carry an anchor or say the source's role are parsed here; the full
// parse happens once, in the load.

import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { ParsedEvent, ParseIssue, Role } from "./event.js";
import { AnchorTable, type AnchorAgg } from "./clock.js";
import type { FormatName, InputFormat } from "./formats/format.js";
import { detectFormat, HEAD_BYTES, looksBinary } from "./formats/index.js";
import { firstLogWallClock, identityFromPath, offsetMinutesForWallClock, type TimeZoneSpec } from "./identity.js";
import { ChunkReader, forEachLine, type TextChunk } from "./lines.js";

export interface ScanRequest {
  plainPath: string;
  displayPath: string;
  /** The path host/role are read from (an archive entry's own name). */
  identityPath: string;
  flagHost: string | null;
  flagRole: Role | null;
  tz: TimeZoneSpec;
}

export interface ScanReport {
  sha256: string;
  bytes: number;
  lines: number;
  format: FormatName | null;
  /** Why the source is not ingested ("skipped": nothing to ingest; "refused": bad input). */
  rejection: { status: "skipped" | "refused"; reason: string } | null;
  host: string | null;
  role: Role | null;
  domain: string;
  tzOffsetMinutes: number;
}

/** Receives a source's anchors in parts as the scan goes (ingest/store/anchors.ts keeps them). */
export type AnchorSink = (aggs: AnchorAgg[]) => void;

/** Keys an anchor table may hold before it is handed to the sink. */
const ANCHOR_FLUSH_KEYS = 20_000;

/**
 * Lines worth parsing in the scan, per format: those that can be a clock
 * anchor (ingest/clock.ts) and, for logs, those that say the role.
 */
const ANCHOR_LINES: Partial<Record<FormatName, RegExp>> = {
  "sglang-log": /with notif |Sending to prefill server|got info room=|abort notification for room|ABORT_ACK for room/g,
  "probe-jsonl": /"(?:kv\.post|kv\.notify|kv\.meta|boot\.msg|coll\.enter|coll\.exit)"/g,
};
const LOG_ROLE_LINES = /Prefill batch|Decode batch|Decode transfer failed|Prefill transfer failed|Decode handshake failed|Prefill bootstrap failed/g;

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

/** Host and role decided so far: content first, then the path, then the flags. */
class Identity {
  host: string | null;
  role: Role | null;
  private roleFromContent = false;
  private hostFromContent = false;

  constructor(req: ScanRequest) {
    const fromPath = identityFromPath(req.identityPath);
    this.host = fromPath.host ?? req.flagHost;
    this.role = fromPath.role ?? req.flagRole;
  }

  get roleSettled(): boolean {
    return this.roleFromContent;
  }

  fromEvent(ev: ParsedEvent): void {
    if (!this.hostFromContent && ev.host !== undefined) {
      this.host = ev.host;
      this.hostFromContent = true;
    }
    if (!this.roleFromContent && ev.role !== undefined && ev.role !== "unknown") {
      this.role = ev.role;
      this.roleFromContent = true;
    }
  }
}

export function scanSource(req: ScanRequest, onAnchors: AnchorSink): ScanReport {
  const head = readHead(req.plainPath);
  const identity = new Identity(req);
  const report: ScanReport = {
    sha256: "",
    bytes: statSync(req.plainPath).size,
    lines: 0,
    format: null,
    rejection: null,
    host: identity.host,
    role: identity.role,
    domain: identity.host ?? `src:${req.displayPath}`,
    tzOffsetMinutes: 0,
  };
  const format = head.length === 0 || looksBinary(head) ? undefined : detectFormat(head.toString("utf8"));
  if (head.length === 0) report.rejection = { status: "skipped", reason: "empty file" };
  else if (looksBinary(head)) report.rejection = { status: "refused", reason: "binary content (NUL bytes); not a log, probe or dump file" };
  else if (!format) {
    report.rejection = {
      status: "refused",
      reason: "not a recognized input format (SGLang log, probe JSONL, checksum dump, Flight Recorder JSON)",
    };
  }
  if (!format || report.rejection) return report;

  const hash = createHash("sha256");
  let bytes = 0;
  const reader = new ChunkReader(req.plainPath, (chunk) => {
    hash.update(chunk);
    bytes += chunk.length;
  });
  try {
    scanContent(reader, format, req, identity, report, onAnchors);
  } finally {
    reader.close();
  }
  report.bytes = bytes;
  report.lines = reader.linesRead;
  report.sha256 = hash.digest("hex");
  report.format = format.name;
  report.host = identity.host;
  report.role = identity.role;
  report.domain = identity.host ?? `src:${req.displayPath}`;
  return report;
}

function scanContent(
  reader: ChunkReader,
  format: InputFormat,
  req: ScanRequest,
  identity: Identity,
  report: ScanReport,
  onAnchors: AnchorSink,
): void {
  const first = reader.next();
  if (!first) return;
  const wall = format.name === "sglang-log" ? firstLogWallClock(first.text.slice(0, HEAD_BYTES)) : undefined;
  report.tzOffsetMinutes = offsetMinutesForWallClock(req.tz, wall ?? Date.now());
  const parser = format.createParser({ sourcePath: req.displayPath, tzOffsetMinutes: report.tzOffsetMinutes });
  const anchors = new AnchorTable();
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  const take = (): void => {
    for (const ev of events) {
      identity.fromEvent(ev);
      anchors.addEvent(ev, ev.host ?? identity.host ?? `src:${req.displayPath}`);
    }
    events.length = 0;
    if (anchors.size >= ANCHOR_FLUSH_KEYS) onAnchors(anchors.drain());
  };
  const selector = lineSelector(format.name, identity);
  for (let chunk: TextChunk | null = first; chunk; chunk = reader.next()) {
    selector(chunk, (line, no) => parser.line(line, no, events, issues));
    take();
  }
  parser.end(events, issues);
  take();
  if (anchors.size > 0) onAnchors(anchors.drain());
}

type LineVisitor = (line: string, lineNo: number) => void;

/** Which lines of a chunk the scan parses, by format. */
function lineSelector(format: FormatName, identity: Identity): (chunk: TextChunk, visit: LineVisitor) => void {
  if (format === "flight-recorder") return (chunk, visit) => forEachLine(chunk, visit);
  if (format === "checksum-csv" || format === "checksum-jsonl") {
    // No anchors; the header and first record say host and role.
    return (chunk, visit) => {
      if (chunk.firstLine === 1) visitFirstLines(chunk, 2, visit);
    };
  }
  const anchorRe = ANCHOR_LINES[format];
  return (chunk, visit) => {
    if (format === "probe-jsonl" && chunk.firstLine === 1) visitFirstLines(chunk, 1, visit);
    const roleRe = format === "sglang-log" && !identity.roleSettled ? LOG_ROLE_LINES : undefined;
    visitMatching(chunk, [anchorRe, roleRe], visit);
  };
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

/** Visits, in order and once each, the lines where any of the patterns match. */
function visitMatching(chunk: TextChunk, patterns: (RegExp | undefined)[], visit: LineVisitor): void {
  const text = chunk.text;
  const starts: number[] = [];
  for (const re of patterns) {
    if (!re) continue;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      starts.push(text.lastIndexOf("\n", m.index - 1) + 1);
      const end = text.indexOf("\n", m.index);
      if (end < 0) break;
      re.lastIndex = end + 1;
    }
  }
  if (starts.length === 0) return;
  starts.sort((a, b) => a - b);
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
    visit(stripCr(text.slice(start, end)), lineNo);
  }
}
