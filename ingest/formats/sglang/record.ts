// Multi-line records. A record is a line that opens one (a prefixed log line,
// `Exception in thread …`, a torch C++ line, …) plus the unprefixed lines that
// follow it: Python writes a `logger.exception` traceback right after its
// message, so a continuation belongs to the record above. A record is emitted
// when the next one opens, with all its lines in `text`.
//
// Records that open before any timestamp has been read (stderr output at the
// top of a file) are held and dated by the first prefixed line that follows:
// the nearest bound the file gives. A torch line's own month/day/time gets its
// year from that line too.

import type { ParsedEvent, ParseIssue } from "../../event.js";
import { LogKind } from "../../event.js";
import { classifyFailure } from "../messages/failureClass.js";
import { glooTimeout, type TorchStamp } from "./torchLines.js";
import { exceptionOf, nextTracebackState, TRACEBACK, TracebackState } from "./traceback.js";

/** A record longer than this is cut: its next line opens an unparsed record (bounded memory). */
const MAX_RECORD_LINES = 2000;
/** Undated records held at the top of a file, at most; more are reported as issues. */
const MAX_HELD = 10_000;

interface HeldRecord {
  ev: ParsedEvent;
  stamp: TorchStamp | null;
}

export class RecordAssembler {
  private current: ParsedEvent | null = null;
  private currentDated = false;
  private currentStamp: TorchStamp | null = null;
  private more: string[] = [];
  private tb: TracebackState = TracebackState.none;
  private held: HeldRecord[] = [];

  /** `dateStamp` turns a torch stamp into tsUs once a year is known (null before). */
  constructor(private readonly dateStamp: (s: TorchStamp) => number | null) {}

  /** Closes the open record and opens `ev`. An undated `ev` waits for the next dated one. */
  open(ev: ParsedEvent, dated: boolean, stamp: TorchStamp | null, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.close(out, issues);
    if (dated && this.held.length > 0) this.releaseHeld(ev.tsUs, out);
    this.current = ev;
    this.currentDated = dated;
    this.currentStamp = stamp;
    this.tb = ev.text.endsWith(TRACEBACK) ? TracebackState.frames : TracebackState.none;
  }

  /** Adds an unprefixed line to the open record; false when the line must open its own. */
  append(line: string): boolean {
    if (this.current === null || this.more.length >= MAX_RECORD_LINES) return false;
    if (this.tb === TracebackState.done && line.startsWith(TRACEBACK)) return false;
    this.tb = nextTracebackState(this.tb, line);
    this.more.push(line);
    return true;
  }

  /** End of input: the open record, and any still undated as issues. */
  finish(out: ParsedEvent[], issues: ParseIssue[]): void {
    this.close(out, issues);
    for (const { ev } of this.held) issues.push(undatedIssue(ev));
    this.held = [];
  }

  private close(out: ParsedEvent[], issues: ParseIssue[]): void {
    const ev = this.current;
    if (ev === null) return;
    if (this.more.length > 0) {
      attachContinuation(ev, this.more);
      this.more = [];
    }
    this.current = null;
    if (this.currentDated) {
      out.push(ev);
    } else if (this.held.length < MAX_HELD) {
      this.held.push({ ev, stamp: this.currentStamp });
    } else {
      issues.push(undatedIssue(ev));
    }
  }

  private releaseHeld(tsUs: number, out: ParsedEvent[]): void {
    for (const { ev, stamp } of this.held) {
      ev.tsUs = (stamp !== null ? this.dateStamp(stamp) : null) ?? tsUs;
      out.push(ev);
    }
    this.held = [];
  }
}

/** Folds continuation lines into the record: its text, and the exception a traceback ends with. */
function attachContinuation(ev: ParsedEvent, more: string[]): void {
  const head = ev.text;
  ev.text = head + "\n" + more.join("\n");
  const exc = exceptionOf(head, more);
  if (exc === null) return;
  const attrs = (ev.attrs ??= {});
  attrs.excType = exc.excType;
  if (exc.excMessage !== undefined) attrs.excMessage = exc.excMessage;
  attrs.failureClass = classifyFailure(exc.excType, exc.excMessage ?? "");
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

function undatedIssue(ev: ParsedEvent): ParseIssue {
  const newline = ev.text.indexOf("\n");
  const head = newline < 0 ? ev.text : ev.text.substring(0, newline);
  const lines = newline < 0 ? 1 : ev.text.split("\n").length;
  const span = lines === 1 ? `line ${ev.line}` : `lines ${ev.line}-${ev.line + lines - 1}`;
  const shown = head.length > 120 ? head.substring(0, 120) + "…" : head;
  return { line: ev.line, message: `no timestamped line in the file dates this record (${span}): ${shown}` };
}
