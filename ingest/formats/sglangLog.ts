// SGLang server logs (DESIGN.md "Inputs" 1; sglang-pd-logs-and-protocol.md §1–§3, §6).
//
// Grammar, one record at a time:
//   record      := prefixed-line continuation* | opener continuation*
//   prefixed    := "[" YYYY-MM-DD HH:MM:SS ("." mmm)? (" " TAG N)* "] " message
//   opener      := "Exception in thread " name ":" | "terminate called after throwing …"
//                | torch c10/glog line | "Traceback (most recent call last):" after a finished traceback
//   continuation:= any other line without a prefix (traceback frames, multi-line messages)
// A message is matched by template (lines carry no level name): batch lines,
// PD failure / abort / bootstrap / transfer lines, uvicorn access lines, the
// NCCL watchdog. Anything else is kept as `log.unparsed`. Timestamps are in the
// zone `ctx.tzOffsetMinutes` east of UTC. Records that open without a prefix
// take the time of the last prefixed line seen (they were written after it).
//
// The per-line path: strip a stray `\r`, scan the prefix by hand, then
// dispatch on the message's first character before any template regex runs.

import type { ParsedEvent, ParseIssue } from "../event.js";
import { LogKind } from "../event.js";
import type { InputFormat, LineParser, ParseContext } from "./format.js";
import { parseBatchLine } from "./sglang/batchLine.js";
import { parseBootstrapLine } from "./sglang/bootstrapLines.js";
import { parseHicacheLine } from "./sglang/hicacheLines.js";
import { parseHttpAccess } from "./sglang/httpAccess.js";
import type { MatchResult } from "./sglang/match.js";
import { parsePdLine } from "./sglang/pdLines.js";
import { civilToUs, isValidCivil, PrefixReader, PrefixResult } from "./sglang/prefix.js";
import { RecordAssembler } from "./sglang/record.js";
import { parseSchedulerLine } from "./sglang/schedulerLines.js";
import { TRACEBACK, terminateTypeOf, threadDeathOf } from "./sglang/traceback.js";
import { looksLikeTorchLine, parseWatchdog, readTorchLine, type TorchStamp } from "./sglang/torchLines.js";
import { parseTransferLine } from "./sglang/transferLines.js";

/** Lines of the head inspected by `detect`. */
const DETECT_LINES = 500;

export const sglangLog: InputFormat = {
  name: "sglang-log",
  detect(head: string): boolean {
    if (head.indexOf("\u0000") >= 0) return false;
    const prefix = new PrefixReader(0);
    let start = 0;
    for (let n = 0; n < DETECT_LINES && start < head.length; n++) {
      let end = head.indexOf("\n", start);
      if (end < 0) end = head.length;
      const line = stripCr(head.substring(start, end));
      if (prefix.read(line) === PrefixResult.ok) return true;
      if (looksLikeTorchLine(line) && readTorchLine(line) !== null) return true;
      start = end + 1;
    }
    return false;
  },
  createParser(ctx: ParseContext): LineParser {
    return new SglangLogParser(ctx);
  },
};

class SglangLogParser implements LineParser {
  private readonly prefix: PrefixReader;
  private readonly records: RecordAssembler;
  /** tsUs of the last prefixed line, -1 before the first. */
  private lastTsUs = -1;

  constructor(private readonly ctx: ParseContext) {
    this.prefix = new PrefixReader(ctx.tzOffsetMinutes);
    this.records = new RecordAssembler((s) => this.dateStamp(s));
  }

  line(raw: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    const line = stripCr(raw);
    const found = this.prefix.read(line);
    if (found === PrefixResult.ok) return this.prefixed(line, lineNo, out, issues);
    if (found === PrefixResult.badTime) {
      issues.push({ line: lineNo, message: "impossible date or time in the log prefix; the line is kept as text" });
    }
    if (opensRecord(line) || !this.records.append(line)) this.opener(line, lineNo, out, issues);
  }

  end(out: ParsedEvent[], issues: ParseIssue[]): void {
    this.records.finish(out, issues);
  }

  private prefixed(line: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    const p = this.prefix;
    const ev = this.newEvent(line, lineNo, p.tsUs);
    if (p.dp >= 0) ev.dp = p.dp;
    if (p.pp >= 0) ev.pp = p.pp;
    if (p.tp >= 0) ev.tp = p.tp;
    const matched = dispatch(line, p.msgStart, ev);
    if (typeof matched === "string") {
      issues.push({ line: lineNo, message: `looks like a ${matched} but does not match its template; kept as unparsed` });
    }
    if (p.tagAttrs !== null) ev.attrs = ev.attrs === undefined ? p.tagAttrs : Object.assign(ev.attrs, p.tagAttrs);
    this.lastTsUs = p.tsUs;
    this.records.open(ev, true, null, out, issues);
  }

  /**
   * A line without a prefix that opens its own record (`Exception in thread …`,
   * a torch line, …). Such lines carry no time of their own (torch lines carry
   * month/day/time only), so the record takes the time of the last prefixed
   * line seen: it was written after that line and before the next.
   */
  private opener(line: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    const ev = this.newEvent(line, lineNo, this.lastTsUs);
    let stamp: TorchStamp | null = null;
    const torch = looksLikeTorchLine(line) ? readTorchLine(line) : null;
    if (torch !== null) {
      parseWatchdog(line, torch.msgStart, ev);
      if (torch.globalRank !== undefined) (ev.attrs ??= {}).globalRank = torch.globalRank;
      stamp = torch.stamp ?? null;
    } else {
      openerKind(line, ev);
    }
    const stampUs = stamp !== null ? this.dateStamp(stamp) : null;
    if (stampUs !== null) ev.tsUs = stampUs;
    // Before any prefixed line there is neither a time nor a year: the record waits (RecordAssembler).
    const dated = stampUs !== null || this.lastTsUs >= 0;
    this.records.open(ev, dated, stamp, out, issues);
  }

  private newEvent(text: string, lineNo: number, tsUs: number): ParsedEvent {
    return {
      tsUs,
      line: lineNo,
      kind: LogKind.unparsed,
      host: this.ctx.host,
      role: this.ctx.role,
      dp: undefined,
      pp: undefined,
      tp: undefined,
      room: undefined,
      rid: undefined,
      chunk: undefined,
      state: undefined,
      attrs: undefined,
      text,
    };
  }

  /**
   * A torch stamp has no year: take the last prefixed line's, stepping a year
   * when the months are more than half a year apart (a log across New Year).
   */
  private dateStamp(s: TorchStamp): number | null {
    const year = this.prefix.lastYear;
    if (year === 0) return null;
    const lastMonth = this.prefix.lastMonth;
    const y = s.month - lastMonth > 6 ? year - 1 : lastMonth - s.month > 6 ? year + 1 : year;
    const civil = { year: y, month: s.month, day: s.day, hour: s.hour, minute: s.minute, second: s.second };
    if (!isValidCivil(civil)) return null;
    return civilToUs(civil, s.fractionUs, this.ctx.tzOffsetMinutes);
  }
}

/** The message's template, tried cheapest first; every module rejects on its first character. */
function dispatch(line: string, at: number, ev: ParsedEvent): MatchResult {
  const c = line.charCodeAt(at);
  if (c === 80 /* P */ || c === 68 /* D */) {
    const batch = parseBatchLine(line, at);
    if (batch !== null) {
      ev.kind = batch.kind;
      if (batch.role !== undefined) ev.role = batch.role;
      ev.attrs = batch.attrs;
      return true;
    }
  }
  const pd = parsePdLine(line, at, ev);
  if (pd !== false) return pd;
  const transfer = parseTransferLine(line, at, ev);
  if (transfer !== false) return transfer;
  const bootstrap = parseBootstrapLine(line, at, ev);
  if (bootstrap !== false) return bootstrap;
  const scheduler = parseSchedulerLine(line, at, ev);
  if (scheduler !== false) return scheduler;
  const hicache = parseHicacheLine(line, at, ev);
  if (hicache !== false) return hicache;
  return parseHttpAccess(line, at, ev);
}

/** Unprefixed lines that open a record of their own rather than continue the one above. */
function opensRecord(line: string): boolean {
  switch (line.charCodeAt(0)) {
    case 69 /* E */:
      return line.startsWith("Exception in thread ") || looksLikeTorchLine(line);
    case 116 /* t */:
      return line.startsWith("terminate called after throwing");
    case 91 /* [ */:
    case 73 /* I */:
    case 87 /* W */:
    case 70 /* F */:
      return looksLikeTorchLine(line);
    default:
      return false;
  }
}

/** Kinds of the unprefixed openers that are not torch lines. */
function openerKind(line: string, ev: ParsedEvent): void {
  const death = threadDeathOf(line);
  if (death !== null) {
    ev.kind = LogKind.exception;
    ev.attrs = { thread: death.thread, threadName: death.threadName };
    return;
  }
  const cppType = terminateTypeOf(line);
  if (cppType !== null) {
    ev.kind = LogKind.exception;
    ev.attrs = { excType: cppType };
    return;
  }
  if (line.startsWith(TRACEBACK)) ev.kind = LogKind.exception;
}

/** The pipeline strips line endings; a `\r` left over from CRLF text would defeat `$` in the templates. */
function stripCr(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 13) end--;
  return end === line.length ? line : line.substring(0, end);
}
