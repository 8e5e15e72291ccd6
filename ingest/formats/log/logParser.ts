// One parser for every log file (DESIGN.md "Inputs"): a file is one wrapper
// around lines of several dialects, decided per line. For each line:
//   1. the wrapper (CRI, docker json-file, kubectl, journald) is stripped and
//      its time kept; partial lines are joined; a line not in the wrapper's
//      shape stays a line of its own, reported by number (./wrappedLines.ts);
//   2. paste debris (`> `, backticks, stray spaces, `grep -n`'s file and line
//      number, an editor's line-number column: ./editorGutter.ts, a web
//      console's table turned into Markdown cells, an indentation every line
//      of a block carries: ./dedent.ts) is cleaned;
//   3. the dialect is read from the line's start: a structured (JSON) record,
//      SGLang's prefix (with a time, or only rank tags), torch c10 / glog /
//      absl, another logger's head (./dialects/dialectHead.ts: UCX, the
//      kernel's dmesg, ISO-dated lines, NCCL, Slurm, Ray, vLLM, Python's
//      logging default, …), uvicorn's access line, a crash or exception
//      opener, a bare level word, a progress bar — or none;
//   4. the message goes through the templates of its dialect (./messages.ts);
//   5. the line opens a record or continues the one above (./records.ts), and
//      records are timed by ./dating.ts (undated ones interpolated, never lost).
// Events keep the raw line; a record in a per-rank file inherits the file's
// rank when its line names none.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import type { LineParser, ParseContext, TimeTally } from "../format.js";
import { parseHttpAccess } from "../templates/platform/uvicorn.js";
import type { MatchResult } from "../sglang/match.js";
import { civilToUs, isValidCivil, PrefixReader, PrefixResult } from "../sglang/prefix.js";
import { glogStartInside, looksLikeTorchLine, readGlogPlace, readTorchLine, type TorchStamp } from "../sglang/torchLines.js";
import { wrapperByName, type Unwrapped } from "../wrappers/index.js";
import { containerDeathOf, crashAttrs, crashHeadOf } from "./crash.js";
import { nearestYear, RecordDater, timeOriginOf } from "./dating.js";
import { BlockDedenter } from "./dedent.js";
import { EditorGutter } from "./editorGutter.js";
import { KernelClock } from "./kernelClock.js";
import { ANY_MESSAGES, ENGINE_MESSAGES, KERNEL_MESSAGES, matchMessage, PLAIN_MESSAGES, SGLANG_MESSAGES, type MessageMatcher } from "./messages.js";
import { ASCEND_DIALECT, readAscendHead } from "./dialects/ascend.js";
import { readLauncherPrefix } from "./dialects/launcherPrefix.js";
import { SOURCE_RANK } from "../../sources/sourceIdentity.js";
import { readLevelField } from "./dialects/levelField.js";
import { cufile, mayOpenWithLoggerWord, readLoggerWordHead, readSelfNamedHead, settleHead, type DialectHead } from "./dialects/dialectHead.js";
import { readSpdlogFields } from "./dialects/isoHead.js";
import { readGlooHead, readKernelHead, readProcessTags, type KernelHead, type ProcessTag } from "./dialects/otherDialects.js";
import { readStructuredEntry, type StructuredEntry } from "./dialects/structured.js";
import { ExceptionGroupMargin } from "./exceptionGroup.js";
import { HardWrappedPaste } from "./hardWrap.js";
import { cleanIfPasted, fromTableRow, stripCr, withoutGrepHead, withoutQuoteMarks } from "./pasted.js";
import { PrefixZone } from "./prefixZone.js";
import { RecordAssembler, RecordTime } from "./records.js";
import { deathAttrsOf, TRACEBACK } from "./traceback.js";
import { levelOfWord, type LineLevel, type RecordHead } from "./unread.js";
import { WrappedLines, type WrappedLine } from "./wrappedLines.js";

/** A line as the dialect readers see it: the program's line (./wrappedLines.ts) and what its head said before the dialect. */
interface Line extends WrappedLine {
  /** The multi-process server's tag before the text (`(VllmWorker rank=0 pid=4893) `), stripped from `inner`. */
  process?: ProcessTag;
  /** torch's global rank, from its `[rank3]: ` prefix or c10's `[rank3]:[E…]`: the line's rank where nothing else names one. */
  globalRank?: number;
  /** The level and logger of the structured record (./dialects/structured.ts) whose message `inner` is. */
  structured?: { level: LineLevel; source?: string };
  /** A later line of a structured record's message: the file's line is already the text of the record it continues. */
  rawInRecord?: boolean;
}

/** The line's text as a record it continues takes it: none for a later line of a structured record's message, already the record's. */
function recordRaw(l: Line): string | null {
  return l.rawInRecord === true ? null : l.raw;
}

/** A line with no other prefix that opens with a level word: `ERROR: …`, `[WARNING] …`, `FATAL …`. */
const BARE_LEVEL = /^\[?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?[:\s]/;
/**
 * A tqdm progress line (`Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:02,  1.27it/s]`,
 * `Capturing batches (avail_mem=29.01 GB):  87%|████████▋ | 20/23 [00:07<00:00,  3.19it/s]`): read as progress.
 */
const PROGRESS = /^(?:[^|]*?: +)?\d{1,3}%(?: Completed \||\|[^|]*\|) *\d+(?:\.\d+)?[kMG]?\/\d+(?:\.\d+)?[kMG]? \[[\d:]+</;
/** Characters of an unparsed message kept for its shape. */
const MAX_MESSAGE_CHARS = 400;

export class LogParser implements LineParser {
  private readonly prefix: PrefixReader;
  private readonly dater: RecordDater;
  private readonly kernelClock: KernelClock;
  private readonly records: RecordAssembler;
  /** The wrapper's lines as the program wrote them, where the file has a wrapper. */
  private readonly wrapped: WrappedLines | null;
  private readonly dedenter = new BlockDedenter((text, original, no) => this.lineOfBlock(text, original, no));
  /** A paste's lines without the line-number column an editor drew before them (./editorGutter.ts). */
  private readonly gutter = new EditorGutter((text, original, no) => this.dedenter.push(fromTableRow(text), original, no));
  /** A file without a wrapper, which may be a paste hard-wrapped at a width (./hardWrap.ts); null in a wrapper's file. */
  private readonly paste: HardWrappedPaste<Line> | null;
  private readonly groupMargin = new ExceptionGroupMargin();
  private out: ParsedEvent[] = [];
  private issues: ParseIssue[] = [];
  /** Minutes added to the file's own prefix times when its wrapper's UTC stamps show another zone. */
  private readonly zone: PrefixZone;

  constructor(private readonly ctx: ParseContext) {
    this.prefix = new PrefixReader(ctx.tzOffsetMinutes);
    this.dater = new RecordDater(ctx.dating, ctx.tzOffsetMinutes, (ev) => this.out.push(ev));
    this.kernelClock = new KernelClock(ctx.dating?.kernelRuns);
    this.records = new RecordAssembler(this.dater);
    this.wrapped =
      ctx.wrapper === undefined
        ? null
        : new WrappedLines(wrapperByName(ctx.wrapper).create(), {
            read: (l) => this.read(l),
            issue: (issue) => this.issues.push(issue),
            wrapperUs: (u) => this.wrapperUs(u),
          });
    this.zone = new PrefixZone(ctx.tzOffsetMinutes, ctx.tzGiven === true, ctx.zoneFixMinutes);
    this.paste =
      ctx.wrapper === undefined
        ? new HardWrappedPaste<Line>(this.records, (l) => this.readLine(l), (text) => PROGRESS.test(text), (text, no) => this.physicalLine(text, no))
        : null;
  }

  /** The minutes added to prefix times once the file's first wrapped prefix line decided them, else null. */
  get settledZoneFixMinutes(): number | null {
    return this.zone.settledMinutes;
  }

  line(raw: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    this.issues = issues;
    const text = stripCr(raw);
    if (this.paste !== null) this.paste.push(text, lineNo);
    else this.physicalLine(text, lineNo);
  }

  private physicalLine(text: string, lineNo: number): void {
    // A Markdown quote's `> ` stands before everything else a paste of a wrapped log carries (./head.ts).
    const line = withoutGrepHead(this.wrapped === null ? text : withoutQuoteMarks(text));
    // An editor's screen and a web console's table are pastes: inside a container's wrapper, a number or a row of
    // pipes is the program's own output.
    if (this.wrapped === null) this.gutter.push(line, text, lineNo);
    else this.dedenter.push(line, text, lineNo);
  }

  /** A line as read, `text` without the indentation its whole block carries (./dedent.ts). */
  private lineOfBlock(text: string, original: string, lineNo: number): void {
    this.paste?.physical(original);
    if (this.wrapped === null) return this.read({ inner: cleanIfPasted(text), raw: original, no: lineNo, wrapperUs: -1, wrapperHost: undefined });
    this.wrapped.push(text, original, lineNo);
  }

  end(out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    this.issues = issues;
    this.paste?.end();
    this.gutter.end();
    this.dedenter.end();
    this.wrapped?.end();
    this.records.finish();
    this.dater.finish();
  }

  /** The wrapper's time of a line: stated, or a time of day whose year the dater gives (syslog's stamp); -1 when none. */
  private wrapperUs(u: Extract<Unwrapped, { kind: "line" }>): number {
    return u.tsUs >= 0 || u.stamp === undefined ? u.tsUs : this.dater.wrapperInstant(u.stamp, this.records.openTimeUs());
  }

  timeOrigin(): string | null {
    return timeOriginOf([this.timeTally()], this.ctx.dating);
  }

  timeTally(): TimeTally {
    return { ...this.dater.tally(), kernelAnchored: this.kernelClock.anchored, zoneNote: this.zone.note };
  }

  private read(l: Line): void {
    if (this.paste === null) this.readLine(l);
    else this.paste.read(l, this.issues);
  }

  private readLine(l: Line): void {
    const launcher = readLauncherPrefix(l.inner);
    if (launcher !== null) {
      l.inner = l.inner.substring(launcher.end);
      if (launcher.rank !== undefined) l.process = { name: "", tp: launcher.rank, end: 0 };
      if (launcher.globalRank !== undefined) l.globalRank = launcher.globalRank;
      if (launcher.host !== undefined) l.wrapperHost ??= launcher.host;
    }
    if (l.inner.charCodeAt(0) === 40 /* ( */) {
      const tag = readProcessTags(l.inner);
      if (tag !== null) {
        l.process = tag;
        l.inner = l.inner.substring(tag.end);
      }
    }
    // A line whose tag names its rank goes on with that rank's record, whatever other ranks wrote between.
    const rank = l.process?.tp ?? l.globalRank;
    if (rank !== undefined) this.records.resumeRank(rank);
    // Behind a launcher's or a process's tag, an exception group's margin (./exceptionGroup.ts).
    l.inner = this.groupMargin.unmargined(l.inner);
    if (l.fromKernel === true) return this.kernelLine(l, readKernelHead(l.inner, this.ctx.tzOffsetMinutes));
    const s = l.inner;
    const c0 = s.charCodeAt(0);
    if (c0 === 123 /* { */ && l.structured === undefined) {
      const entry = readStructuredEntry(s, this.ctx.tzOffsetMinutes);
      if (entry !== null) return this.structuredLine(l, entry);
    }
    if (c0 === 91 /* [ */ || c0 === 40 /* ( */) {
      const found = this.prefix.read(s);
      if (found === PrefixResult.ok || found === PrefixResult.tagsOnly) return this.sglangLine(l, found === PrefixResult.ok);
      if (found === PrefixResult.badTime) {
        this.issues.push({ line: l.no, message: "impossible date or time in the log prefix; the line is kept as text" });
      }
    }
    if (c0 === 32 && s.charCodeAt(3) === 45 /* - */) {
      const head = cufile(s, this.ctx.tzOffsetMinutes);
      if (head !== null) return void this.openHead(l, head);
    }
    if (c0 !== 32 && c0 !== 9 && s.length > 0) {
      if (looksLikeTorchLine(s) && this.torchLine(l)) return;
      if (this.otherDialect(l)) return;
      if (this.opener(l)) return;
    }
    // A terminal cut a line just before a space: the rest starts with it (./hardWrap.ts).
    if (c0 === 32 && this.paste?.joinedAfterSpace(l, this.issues) === true) return;
    // A structured record is one log call: its message never continues the record before it.
    if (l.structured === undefined && this.records.append(s, recordRaw(l))) return;
    this.plain(l);
  }

  /**
   * A structured record (./dialects/structured.ts): its message read as the line its logger would have printed as text, in
   * its own dialect if it has one, else at the record's level; its time and host stand where a wrapper's would. Lines
   * after the message's first (a traceback logged with it) are read as the lines that follow it: one that continues the
   * record adds nothing to its text (the file's line is already there), one that opens a record of its own is its text.
   */
  private structuredLine(l: Line, entry: StructuredEntry): void {
    const [first, ...more] = entry.message.split("\n");
    const wrapperUs = entry.tsUs >= 0 ? entry.tsUs : l.wrapperUs;
    const wrapperHost = l.wrapperHost ?? entry.host;
    this.read({ ...l, inner: cleanIfPasted(first!), wrapperUs, wrapperHost, structured: { level: entry.level, source: entry.source } });
    for (const text of more) this.read({ ...l, inner: cleanIfPasted(text), raw: text, wrapperUs, wrapperHost, structured: undefined, rawInRecord: true });
  }

  /** A line with SGLang's prefix: its rank tags, and a time unless it carries only tags. */
  private sglangLine(l: Line, timed: boolean): void {
    const p = this.prefix;
    const ev = this.newEvent(l);
    if (p.dp >= 0 || p.pp >= 0 || p.tp >= 0) {
      ev.dp = p.dp >= 0 ? p.dp : undefined;
      ev.pp = p.pp >= 0 ? p.pp : undefined;
      ev.tp = p.tp >= 0 ? p.tp : undefined;
    }
    const spdlog = readSpdlogFields(l.inner, p.msgStart);
    const how: RecordHead = spdlog === null ? { dialect: "sglang", msgStart: p.msgStart } : { dialect: "spdlog", level: levelOfWord(spdlog.level), msgStart: spdlog.msgStart };
    this.messages(spdlog === null ? SGLANG_MESSAGES : ANY_MESSAGES, l, how.msgStart, ev);
    if (p.tagAttrs !== null) ev.attrs = ev.attrs === undefined ? p.tagAttrs : Object.assign(ev.attrs, p.tagAttrs);
    if (!timed) return this.openTimed(ev, l, -1, how);
    ev.tsUs = this.zone.timeOf(p.tsUs, p.wholeSecond, l.wrapperUs);
    this.records.open(ev, RecordTime.own, null, l.inner, how);
  }

  /**
   * torch c10 / glog / absl: `[rank3]:[E820 10:30:02.408 …] …`, `E0611 14:03:07.554102 88213 file.cc:305] …`;
   * `from` where its header starts when another writer's unfinished text comes before it on the line.
   */
  private torchLine(l: Line, from = 0): boolean {
    const torch = readTorchLine(from === 0 ? l.inner : l.inner.substring(from));
    if (torch === null) return false;
    const msgStart = from + torch.msgStart;
    const how: RecordHead = { dialect: "glog", level: levelOfWord(torch.level), msgStart, source: torch.source };
    if (this.relogged(l, how)) return true;
    const ev = this.newEvent(l);
    this.messages(ENGINE_MESSAGES, l, msgStart, ev);
    if (torch.globalRank !== undefined) {
      (ev.attrs ??= {}).globalRank = torch.globalRank;
      if (ev.tp === undefined || ev.tp === SOURCE_RANK) ev.tp = torch.globalRank;
    }
    if (torch.unixUs !== undefined) return this.openTimed(ev, l, torch.unixUs, how), true;
    const stamp = torch.stamp;
    if (stamp === undefined) return this.openTimed(ev, l, -1, how), true;
    const civil = torch.year !== undefined ? { year: torch.year, ...stamp } : null;
    // glog prints local time; a line that states its year is dated like an ISO line.
    if (civil !== null && isValidCivil(civil)) return this.openTimed(ev, l, civilToUs(civil, stamp.fractionUs, this.ctx.tzOffsetMinutes), how), true;
    this.openStamped(ev, l, stamp, how);
    return true;
  }

  /** Opens a record whose line states a time without a year: the wrapper's time gives the year, else the dater does. */
  private openStamped(ev: ParsedEvent, l: Line, stamp: TorchStamp, how: RecordHead): void {
    const fromWrapper = l.wrapperUs >= 0 ? nearestYear(stamp, l.wrapperUs, this.ctx.tzOffsetMinutes) : null;
    if (fromWrapper !== null) {
      ev.tsUs = fromWrapper;
      this.records.open(ev, RecordTime.own, null, l.inner, how);
    } else {
      this.records.open(ev, RecordTime.stamp, stamp, l.inner, how);
    }
  }

  /** A line that re-logs the next line of the open record's traceback under the same prefix: folded into it. */
  private relogged(l: Line, how: RecordHead): boolean {
    return this.records.appendRelogged(how.dialect!, l.inner, how.msgStart, recordRaw(l));
  }

  /** Lines of other loggers that say so at their start (./dialects/dialectHead.ts), Ascend's error reports, an HTTP access line. */
  private otherDialect(l: Line): boolean {
    const s = l.inner;
    if (this.ascendLine(l)) return true;
    const head = readSelfNamedHead(s, this.ctx.tzOffsetMinutes);
    if (head !== null) return this.openHead(l, head);
    if (!mayOpenWithLoggerWord(s)) return false;
    if (s.indexOf(' - "') > 0) {
      const ev = this.newEvent(l);
      if (parseHttpAccess(s, 0, ev)) return this.openTimed(ev, l, -1), true;
    }
    const word = readLoggerWordHead(s);
    return word !== null && this.openHead(l, word);
  }

  /** Opens the record a dialect's head describes (or folds a re-logged traceback line into the open one). */
  private openHead(l: Line, head: DialectHead): true {
    if (head.kernel !== undefined) return this.kernelLine(l, head.kernel), true;
    if (head.relogs === true && this.relogged(l, head.how)) return true;
    const ev = this.newEvent(l);
    this.messages(head.matchers, l, head.how.msgStart, ev);
    settleHead(ev, head);
    if (head.stamp !== undefined) this.openStamped(ev, l, head.stamp, head.how);
    else this.openTimed(ev, l, head.ownUs, head.how);
    return true;
  }

  /** A line of an Ascend error report (./dialects/ascend.ts): the next line of the report the open record holds, else a record of its own. */
  private ascendLine(l: Line): boolean {
    const head = readAscendHead(l.inner);
    if (head === null) return false;
    if (this.records.appendToReport(ASCEND_DIALECT, l.inner, recordRaw(l))) return true;
    const ev = this.newEvent(l);
    this.messages(ANY_MESSAGES, l, head.msgStart, ev);
    this.openTimed(ev, l, -1, { dialect: ASCEND_DIALECT, level: head.level, msgStart: head.msgStart, code: head.code });
    return true;
  }

  /** A line of the kernel's log: after `dmesg`'s stamp (`head`), or whole where a syslog wrapper named the kernel its writer. */
  private kernelLine(l: Line, head: KernelHead | null): void {
    const msgStart = head?.msgStart ?? 0;
    const ev = this.newEvent(l);
    this.messages(KERNEL_MESSAGES, l, msgStart, ev);
    const us = this.kernelClock.wallUs(ev, l.inner.substring(msgStart), head?.tsUs ?? -1, head?.sinceBootUs ?? l.kernelSinceBootUs, l.wrapperUs);
    this.openTimed(ev, l, us, { dialect: "kernel", msgStart });
  }

  /** Lines that open a record without a prefix: a thread or child-process death, a crash, a traceback after a finished one. */
  private opener(l: Line): boolean {
    const s = l.inner;
    const death = deathAttrsOf(s);
    // Compose's line for a stopped container stands alone; a logger's message in those words is the logger's.
    const crash = death === null ? (crashHeadOf(s) ?? (l.structured === undefined ? containerDeathOf(s) : null)) : null;
    if (death !== null || crash !== null) {
      const ev = this.newEvent(l);
      ev.kind = death !== null ? LogKind.exception : LogKind.crash;
      ev.attrs = death ?? crashAttrs(crash!);
      if (crash?.role !== undefined) ev.role = crash.role;
      this.openTimed(ev, l, crash?.tsUs ?? -1);
      return true;
    }
    if (!s.startsWith(TRACEBACK)) return false;
    // After a log line, a traceback is that line's (logger.exception); after a finished traceback, a new record.
    if (this.records.append(s, recordRaw(l))) return true;
    const ev = this.newEvent(l);
    ev.kind = LogKind.exception;
    this.openTimed(ev, l, -1);
    return true;
  }

  /** A line in no dialect that continues nothing: a record of its own (a `print`, a warning, a progress bar). */
  private plain(l: Line): void {
    const glogAt = glogStartInside(l.inner);
    if (glogAt > 0 && this.torchLine(l, glogAt)) return;
    if (l.structured !== undefined) {
      const ev = this.newEvent(l);
      this.messages(ANY_MESSAGES, l, 0, ev);
      return this.openTimed(ev, l, -1, { dialect: "structured", level: l.structured.level, msgStart: 0, source: l.structured.source });
    }
    const place = readGlogPlace(l.inner);
    if (place !== null) {
      const ev = this.newEvent(l);
      this.messages(ENGINE_MESSAGES, l, place.msgStart, ev);
      return this.openTimed(ev, l, -1, { dialect: "glog", msgStart: place.msgStart, source: place.source });
    }
    const level = BARE_LEVEL.exec(l.inner);
    const field = level === null ? readLevelField(l.inner) : null;
    const gloo = level === null && field === null ? readGlooHead(l.inner) : null;
    // In a hard-wrapped paste, the rest of a line the wrap broke (./hardWrap.ts).
    if (level === null && field === null && gloo === null && this.paste?.joined(l, this.issues) === true) return;
    const ev = this.newEvent(l);
    // In a wrapper that names each line's writer, only the kernel's own lines are its (./messages.ts PLAIN_MESSAGES).
    this.messages(this.wrapped === null ? PLAIN_MESSAGES : ANY_MESSAGES, l, field?.msgStart ?? 0, ev);
    if (level !== null) return this.openTimed(ev, l, -1, { dialect: "level", level: levelOfWord(level[1]), msgStart: 0 });
    if (field !== null) return this.openTimed(ev, l, -1, { dialect: "level-field", level: field.level, msgStart: field.msgStart });
    if (gloo !== null) return this.openTimed(ev, l, -1, { dialect: "gloo", level: gloo.level, msgStart: gloo.msgStart });
    this.openTimed(ev, l, -1, PROGRESS.test(l.inner) ? { dialect: "progress", level: "info", msgStart: 0 } : undefined);
  }

  /** Opens a record timed by `ownUs` (a time the line itself states), else the wrapper's time, else none. */
  private openTimed(ev: ParsedEvent, l: Line, ownUs: number, how?: RecordHead): void {
    const us = ownUs >= 0 ? ownUs : l.wrapperUs;
    if (us >= 0) ev.tsUs = us;
    this.records.open(ev, us >= 0 ? RecordTime.own : RecordTime.none, null, l.inner, how);
  }

  private messages(matchers: readonly MessageMatcher[], l: Line, at: number, ev: ParsedEvent): void {
    let matched: MatchResult = matchMessage(matchers, l.inner, at, ev);
    if (typeof matched === "string" && isBlankCode(l.inner.charCodeAt(l.inner.length - 1))) {
      // Trailing spaces of a pasted line: the template may match without them.
      matched = matchMessage(matchers, l.inner.trimEnd(), at, ev);
    }
    if (typeof matched === "string") {
      this.issues.push({ line: l.no, message: `looks like a ${matched} but does not match its template; its message is kept uninterpreted` });
    }
    if (ev.kind === LogKind.unparsed) ev.unparsedMessage = l.inner.substring(at, at + MAX_MESSAGE_CHARS);
  }

  private newEvent(l: Line): ParsedEvent {
    const rank = this.ctx.rank;
    const ev: ParsedEvent = {
      tsUs: 0,
      line: l.no,
      kind: LogKind.unparsed,
      host: this.ctx.host ?? l.wrapperHost,
      role: this.ctx.role,
      dp: rank?.dp,
      pp: rank?.pp,
      tp: rank?.tp,
      room: undefined,
      rid: undefined,
      chunk: undefined,
      state: undefined,
      attrs: undefined,
      text: l.raw,
    };
    const tag = l.process;
    if (tag !== undefined) {
      if (tag.tp !== undefined) ev.tp = tag.tp;
      if (tag.dp !== undefined) ev.dp = tag.dp;
    }
    // A global rank is the tensor-parallel rank where the job has no pipeline stages (SGLang's model_runner.py
    // init_torch_distributed: `rank=self.tp_size * self.pp_rank + self.tp_rank`). A rank the line's own tag names
    // stands; the source's (SOURCE_RANK, given after the parse) gives way, as it does to MPI's rank.
    if (l.globalRank !== undefined && (ev.tp === undefined || ev.tp === SOURCE_RANK)) ev.tp = l.globalRank;
    return ev;
  }
}

function isBlankCode(c: number): boolean {
  return c === 32 || c === 9;
}

