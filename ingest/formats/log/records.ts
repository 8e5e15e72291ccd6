// Multi-line records. A record is a line that opens one (a prefixed log line,
// `Exception in thread …`, `Fatal Python error: …`, a torch line, an NCCL
// line, any other line) plus the lines that continue it: indented or blank
// lines, the rest of a traceback (its exception line, chain markers, the
// chained traceback), a faulthandler thread dump, a C++ backtrace. Python
// writes a `logger.exception` traceback right after its message, so such
// lines belong to the record above. Any other line opens a record of its own:
// a plain `print` line is one record, counted and kept. A record is handed to
// the dater (./dating.ts) when the next one opens. Lines are read as their
// inner text (a container wrapper stripped); the record's text keeps them raw.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { glooTimeout, type TorchStamp } from "../sglang/torchLines.js";
import { messageTailOf } from "./crash.js";
import { pyspyDumpSummary } from "./pyspyDump.js";
import { dumpSummary, isBacktraceLine, isDumpLine, isErrorChainHead, isUrllib3MessagePart } from "./recordTails.js";
import type { RecordDater } from "./dating.js";
import { classifyFailure } from "../messages/failureClass.js";
import { ascendReportTail, ASCEND_DIALECT } from "./dialects/ascend.js";
import { waitOfFrames } from "./waitingFrames.js";
import { exceptionOf, innermostFrames, isInterrupt, isRustPanicTail, nextTracebackState, opensRustPanic, TRACEBACK, tracebackGoesOn, tracebackStateOfHead, TracebackState } from "./traceback.js";
import { settleUnread, type RecordHead } from "./unread.js";
import { SOURCE_RANK } from "../../sources/sourceIdentity.js";

/**
 * Lines SGLang logs with logger.info/debug and no exc_info (the periodic batch
 * stats, the transfer thread's notifications): a traceback below one is not
 * its own but a crash printed to stderr after it, a record of its own.
 */
const NEVER_WITH_TRACEBACK = new Set<string>([LogKind.prefillBatch, LogKind.decodeBatch, LogKind.notifSent]);

/**
 * The place a glog-style prefix names, when it is a C++ or CUDA source (`ProcessGroupNCCL.cpp:4561`): a C++ logger's
 * line, after which a Python traceback is never its own (Python's loggers that print in glog's shape, absl-py's, name a
 * `.py` file).
 */
const CPP_PLACE = /\.(?:cc|cpp|cxx|cu|cuh|h|hpp)(?::\d+)?$/;

function isCppPlace(source: string | undefined): boolean {
  return source !== undefined && CPP_PLACE.test(source);
}

/** A record longer than this is cut: its next line opens an unparsed record (bounded memory). */
const MAX_RECORD_LINES = 2000;

/** How a record is timed: by its own time, by a stamp without a year, or not at all. */
export const RecordTime = { own: 0, stamp: 1, none: 2 } as const;
export type RecordTime = (typeof RecordTime)[keyof typeof RecordTime];

/** Ranks whose records may stand aside at once; past that, the one that opened first closes. */
const MAX_PARKED = 64;
/** Records other lines may open while one stands aside; past that, it closes. */
const MAX_PARKED_RECORDS = 64;

/** An open record's state, while it stands aside for another rank's lines (RecordAssembler.resumeRank). */
interface OpenRecord {
  current: ParsedEvent;
  time: RecordTime;
  stamp: TorchStamp | null;
  head: string;
  more: string[];
  moreRaw: string[] | null;
  tb: TracebackState;
  dump: boolean;
  panic: boolean;
  tail: ((line: string) => boolean) | null;
  block: "blank" | "prefix" | null;
  how: RecordHead;
  /** Its place among the records in the order they opened. */
  seq: number;
  /** The count of records opened when it was set aside. */
  parkedAt?: number;
}

/** A record closed while one opened before it stands aside: it goes to the dater after that one, in file order. */
interface ClosedRecord {
  seq: number;
  ev: ParsedEvent;
  time: RecordTime;
  stamp: TorchStamp | null;
}

/** The tensor-parallel rank a record's line named; undefined where it named none (the source's rank goes there). */
function rankOf(ev: ParsedEvent): number | undefined {
  return ev.tp === SOURCE_RANK ? undefined : ev.tp;
}

export class RecordAssembler {
  private current: ParsedEvent | null = null;
  private time: RecordTime = RecordTime.none;
  private stamp: TorchStamp | null = null;
  /** The opening line's inner text (ev.text is the raw line). */
  private head = "";
  private more: string[] = [];
  /** The raw continuation lines, when any differs from its inner text (a wrapped file). */
  private moreRaw: string[] | null = null;
  private tb: TracebackState = TracebackState.none;
  private dump = false;
  /** A Rust panic's header: its message is the next line, whatever its shape, and the hook's note follows. */
  private panic = false;
  /** The rest of a fixed-format message the first line starts (a C++ terminate's type, quote and `what()`; the EFA provider's abort), on lines of its own. */
  private tail: ((line: string) => boolean) | null = null;
  /**
   * A watchdog's dump: its debug-info block runs to a blank line; py-spy's
   * dump, which holds blank lines, runs to the next line with a prefix.
   */
  private block: "blank" | "prefix" | null = null;
  private how: RecordHead = NO_DIALECT;
  /** The open record's place in the order records opened. */
  private seq = 0;
  /** Records of ranks whose lines another rank's came between, by rank (resumeRank). */
  private readonly parked = new Map<number, OpenRecord>();
  /** Closed records that wait, in the order they opened, for an older one standing aside to close. */
  private waiting: ClosedRecord[] = [];
  /** True while a record set aside closes and the open one waits aside (closeSetAside). */
  private closingAside = false;
  /** Records opened so far: a reader tells by it whether a line opened one. */
  opened = 0;

  constructor(private readonly dater: RecordDater) {}

  /** Closes the open record and opens `ev`, whose first line reads `inner` (ev.text holds it raw), its prefix read as `how`. */
  open(ev: ParsedEvent, time: RecordTime, stamp: TorchStamp | null, inner: string, how: RecordHead = NO_DIALECT): void {
    this.close();
    // A record set aside whose rank wrote nothing for a while is done: it closes, so that its time stays near its lines.
    if (this.parked.size > 0) this.closeParkedBefore(this.opened - MAX_PARKED_RECORDS, Infinity);
    if (this.waiting.length > 0) this.releaseWaiting();
    this.seq = this.opened++;
    this.current = ev;
    this.how = how;
    this.time = time;
    this.stamp = stamp;
    this.head = inner;
    this.tb = tracebackStateOfHead(inner, how.msgStart);
    this.dump = ev.kind === LogKind.crash && inner.startsWith("Fatal Python error");
    this.panic = ev.kind === LogKind.exception && opensRustPanic(inner);
    this.tail = messageTailOf(inner) ?? (how.dialect === ASCEND_DIALECT ? ascendReportTail(inner) : null);
    const report = ev.kind === LogKind.schedulerWatchdog ? ev.attrs?.report : undefined;
    this.block = report === "debug-info" ? "blank" : report === "pyspy-dump" ? "prefix" : null;
  }

  /** True when the open record is its first line alone and no template read that line. */
  openIsUnreadLine(): boolean {
    return this.current !== null && this.current.kind === LogKind.unparsed && this.more.length === 0;
  }

  /** Drops the open record unread (its line is read again, joined with the rest a paste broke off: ./hardWrap.ts). */
  discardOpen(): void {
    this.current = null;
    this.moreRaw = null;
  }

  /**
   * Makes the record of the rank a line's tag names the open one, so that its lines join it while other ranks' lines
   * come between them: several processes write to one stream a line at a time (torchrun's tee, Open MPI's
   * `--tag-output`, vLLM's workers), and each one's traceback is its own record. The open record of another rank is
   * set aside until its rank writes again; a record of no rank, which no later line can claim, closes.
   */
  resumeRank(rank: number): void {
    const openRank = this.current === null ? undefined : rankOf(this.current);
    if (openRank === rank) return;
    const resumed = this.parked.get(rank);
    if (resumed === undefined && openRank === undefined) return;
    // A traceback that ended with its exception line is whole: it closes rather than waits.
    if (openRank !== undefined && this.tb !== TracebackState.done) this.park(openRank);
    else this.close();
    if (resumed !== undefined) {
      this.parked.delete(rank);
      this.restore(resumed);
    }
    if (this.waiting.length > 0) this.releaseWaiting();
  }

  private park(rank: number): void {
    if (this.parked.size >= MAX_PARKED) this.closeParkedBefore(Infinity, 1);
    this.parked.set(rank, this.save(this.opened));
    this.current = null;
    this.more = [];
    this.moreRaw = null;
  }

  /** Closes, oldest first, at most `count` records set aside before the `opened` count `before`. */
  private closeParkedBefore(before: number, count: number): void {
    let any = false;
    for (const r of this.parked.values()) any ||= r.parkedAt! < before;
    if (!any) return;
    const stale = [...this.parked].filter(([, r]) => r.parkedAt! < before).sort((a, b) => a[1].current.line - b[1].current.line);
    for (const [rank, record] of stale.slice(0, count)) {
      this.parked.delete(rank);
      this.closeSetAside(record);
    }
  }

  /** Closes a record set aside, leaving the open one open. */
  private closeSetAside(record: OpenRecord): void {
    const open = this.current === null ? null : this.save();
    this.restore(record);
    this.closingAside = true;
    this.close();
    this.closingAside = false;
    if (open !== null) this.restore(open);
    else this.more = [];
  }

  /** Hands the dater the waiting records opened before every record still open or standing aside. */
  private releaseWaiting(): void {
    let oldestOpen = this.current !== null ? this.seq : Infinity;
    for (const r of this.parked.values()) oldestOpen = Math.min(oldestOpen, r.seq);
    let n = 0;
    for (; n < this.waiting.length && this.waiting[n]!.seq < oldestOpen; n++) {
      const r = this.waiting[n]!;
      this.date(r.ev, r.time, r.stamp);
    }
    if (n > 0) this.waiting = this.waiting.slice(n);
  }

  private date(ev: ParsedEvent, time: RecordTime, stamp: TorchStamp | null): void {
    if (time === RecordTime.own) this.dater.dated(ev);
    else if (time === RecordTime.stamp) this.dater.stamped(ev, stamp!);
    else this.dater.undated(ev);
  }

  private save(parkedAt?: number): OpenRecord {
    return {
      parkedAt,
      current: this.current!, time: this.time, stamp: this.stamp, head: this.head, more: this.more, moreRaw: this.moreRaw,
      tb: this.tb, dump: this.dump, panic: this.panic, tail: this.tail, block: this.block, how: this.how, seq: this.seq,
    };
  }

  private restore(r: OpenRecord): void {
    this.current = r.current;
    this.time = r.time;
    this.stamp = r.stamp;
    this.head = r.head;
    this.more = r.more;
    this.moreRaw = r.moreRaw;
    this.tb = r.tb;
    this.dump = r.dump;
    this.panic = r.panic;
    this.tail = r.tail;
    this.block = r.block;
    this.how = r.how;
    this.seq = r.seq;
  }

  /** The open record's own time, -1 when none is open or it has none yet (the dater times it when it closes). */
  openTimeUs(): number {
    return this.current !== null && this.time === RecordTime.own ? this.current.tsUs : -1;
  }

  /** Adds a line that opens nothing to the open record; false when it must be a record of its own. */
  append(line: string, raw: string | null): boolean {
    if (this.current === null || this.more.length >= MAX_RECORD_LINES || !this.continues(line)) return false;
    this.tb = nextTracebackState(this.tb, line);
    this.push(line, raw);
    return true;
  }

  /** Adds a line that goes on with the report the open record of `dialect` opened (its tail); false when it opens a record. */
  appendToReport(dialect: string, line: string, raw: string | null): boolean {
    if (this.current === null || this.how.dialect !== dialect || this.tail === null || this.more.length >= MAX_RECORD_LINES || !this.tail(line)) return false;
    this.push(line, raw);
    return true;
  }

  /** Adds a line to the open record; `raw` null: the line's text in the file is already the record's (a later line of a structured record's message). */
  private push(line: string, raw: string | null): void {
    if (raw !== line && this.moreRaw === null) this.moreRaw = this.more.slice();
    this.more.push(line);
    if (raw !== null) this.moreRaw?.push(raw);
  }

  /**
   * Adds a line whose prefix repeats the open record's dialect and whose
   * message continues the record's traceback (vLLM and dynamo re-log each
   * traceback line under their own prefix): false when it opens a record.
   */
  appendRelogged(dialect: string, inner: string, msgStart: number, raw: string | null): boolean {
    if (this.current === null || this.how.dialect !== dialect || this.more.length >= MAX_RECORD_LINES) return false;
    const c = inner.charCodeAt(msgStart);
    const indented = c === 32 || c === 9;
    const inTraceback = tracebackGoesOn(this.tb);
    // Most lines of a dialect continue nothing: decided on the first character, before any copy.
    if (!indented && !inTraceback && !(this.tb !== TracebackState.done && inner.startsWith(TRACEBACK, msgStart))) return false;
    if (!indented && inTraceback && msgStart >= inner.length) return false;
    const message = inner.substring(msgStart);
    this.tb = nextTracebackState(this.tb, message);
    if (this.moreRaw === null) this.moreRaw = this.more.slice();
    this.more.push(message);
    if (raw !== null) this.moreRaw.push(raw);
    return true;
  }


  /** End of input: the open record goes to the dater, then those set aside, in the order they opened. */
  finish(): void {
    this.close();
    const setAside = [...this.parked.values()].sort((a, b) => a.current.line - b.current.line);
    this.parked.clear();
    for (const record of setAside) this.closeSetAside(record);
    this.releaseWaiting();
  }

  private continues(line: string): boolean {
    if (line.length === 0) {
      if (this.block === "blank") this.block = null;
      return true;
    }
    if (this.block !== null) return true;
    const c = line.charCodeAt(0);
    if (c === 32 || c === 9) return true;
    const tb = this.tb;
    if (line.startsWith(TRACEBACK)) return tb !== TracebackState.done && !NEVER_WITH_TRACEBACK.has(this.current!.kind) && !isCppPlace(this.how.source);
    // After a traceback's frames, its exception line; after that, a chain marker and the chained traceback.
    if (tracebackGoesOn(tb)) return true;
    if (tb === TracebackState.done && nextTracebackState(tb, line) === TracebackState.chained) return true;
    if (this.dump && isDumpLine(line)) return true;
    if (this.panic && (this.more.length === 0 || isRustPanicTail(line))) return true;
    if (this.tail !== null && this.tail(line)) return true;
    return isBacktraceLine(line) || isErrorChainHead(line) || isUrllib3MessagePart(line);
  }

  private close(): void {
    const ev = this.current;
    if (ev === null) return;
    if (this.more.length > 0) {
      const raw = this.moreRaw ?? this.more;
      if (raw.length > 0) ev.text += "\n" + raw.join("\n");
      attachContinuation(ev, this.head, this.more);
    }
    settleUnread(ev, this.head, this.more, this.how);
    keepProgramLine(ev, this.head);
    // Most records are one line: their empty list serves the next.
    if (this.more.length > 0) this.more = [];
    this.moreRaw = null;
    this.current = null;
    // Most often nothing stands aside: the record goes to the dater at once.
    if (this.parked.size === 0 && this.waiting.length === 0 && !this.closingAside) return this.date(ev, this.time, this.stamp);
    const closed: ClosedRecord = { seq: this.seq, ev, time: this.time, stamp: this.stamp };
    let at = this.waiting.length;
    while (at > 0 && this.waiting[at - 1]!.seq > closed.seq) at--;
    this.waiting.splice(at, 0, closed);
  }
}

const NO_DIALECT: RecordHead = { dialect: null, msgStart: 0 };

/** Kinds a finding may quote by their text (analyzer/rules/failures.ts summaryOf). */
const QUOTED_KINDS: ReadonlySet<string> = new Set([LogKind.crash, LogKind.error, LogKind.exception]);
const QUOTED_LEVELS: ReadonlySet<unknown> = new Set(["warning", "error", "fatal"]);

/**
 * A record keeps its raw text (a wrapper's envelope, a paste's debris around each line); where a finding may quote it,
 * the first line as its program wrote it is kept beside it (`attrs.programLine`), so that the finding quotes the program.
 */
function keepProgramLine(ev: ParsedEvent, head: string): void {
  if (ev.text.startsWith(head)) return;
  const a = ev.attrs;
  if (!QUOTED_KINDS.has(ev.kind) && !QUOTED_LEVELS.has(a?.level) && a?.failureClass === undefined) return;
  (ev.attrs ??= {}).programLine = head;
}

/** What the continuation lines of a record say: the exception a traceback ends with, a thread dump's summary. */
function attachContinuation(ev: ParsedEvent, head: string, more: string[]): void {
  if (ev.kind === LogKind.crash && head.startsWith("Fatal Python error")) {
    Object.assign((ev.attrs ??= {}), dumpSummary(more));
    return;
  }
  if (ev.kind === LogKind.schedulerWatchdog && ev.attrs?.report === "pyspy-dump") {
    Object.assign(ev.attrs, pyspyDumpSummary(more));
    return;
  }
  if (ev.kind === LogKind.stackDump) {
    const summary = pyspyDumpSummary(more);
    // A process caught waiting in a collective or a transfer is a hang's evidence; elsewhere, a dump is information.
    Object.assign((ev.attrs ??= {}), summary, summary.waitingIn !== undefined && { failureClass: "hang" });
    return;
  }
  if (ev.kind === LogKind.exception && ev.attrs?.excType === "panic") {
    // A Rust panic's message is the line below its header (Rust 1.73 on).
    if (ev.attrs.excMessage === undefined && more.length > 0 && opensRustPanic(head)) ev.attrs.excMessage = more[0];
    ev.attrs.failureClass ??= classifyFailure("panic", String(ev.attrs.excMessage ?? ""));
    return;
  }
  const exc = exceptionOf(head, more);
  if (exc === null) return;
  const attrs = (ev.attrs ??= {});
  attrs.excType = exc.excType;
  if (exc.excMessage !== undefined) attrs.excMessage = exc.excMessage;
  attrs.failureClass ??= classifyFailure(exc.excType, exc.excMessage ?? "");
  if (isInterrupt(exc.excType)) Object.assign(attrs, interruptAttrs(more));
  if (ev.kind !== LogKind.unparsed && ev.kind !== LogKind.exception) return;
  const gloo = exc.excMessage !== undefined ? glooTimeout(exc.excMessage) : null;
  if (gloo !== null) {
    ev.kind = LogKind.watchdog;
    attrs.backend = "gloo";
    attrs.report = "timeout";
    attrs.op = gloo.op;
    attrs.timeoutMs = gloo.timeoutMs;
  } else {
    ev.kind = LogKind.exception;
  }
}

/**
 * An interrupt's traceback is a stop someone asked for, and a picture of the main thread at that instant, as a py-spy
 * dump is: where its innermost frames wait in a collective or a KV transfer, it is a hang's evidence (the operator
 * stopped a process that hung); otherwise it says only that someone stopped the process.
 */
function interruptAttrs(more: readonly string[]): Record<string, unknown> {
  const frames = innermostFrames(more);
  const wait = waitOfFrames(frames);
  const top = frames[0];
  const stuckIn = top === undefined ? undefined : `${top.fn} (${top.file}${top.line !== undefined ? `:${top.line}` : ""})`;
  return { interrupted: true, ...(stuckIn !== undefined && { stuckIn }), ...(wait !== undefined && { ...wait, failureClass: "hang" }) };
}
