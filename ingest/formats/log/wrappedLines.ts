// A wrapped file's lines (CRI, docker json-file, kubectl, journald, compose, …) as the lines the program wrote
// (DESIGN.md "Inputs"): the wrapper's stamp and host kept; partial lines joined, numbered by their first part; a
// line not in the wrapper's shape kept as it stands, with an issue naming it; a partial line that another cut off
// (a json-pretty entry's `{` inside another) read as it stood, before the line that cut it.

import type { ParseIssue } from "../../../domain/event.js";
import type { LineUnwrapper, Unwrapped } from "../wrappers/index.js";
import { cleanIfPasted, cleanPasted, mayBePasted } from "./pasted.js";

/** A line as the program wrote it: its text, the file's raw lines it came from, and the wrapper's time (-1: none). */
export interface WrappedLine {
  inner: string;
  raw: string;
  no: number;
  wrapperUs: number;
  wrapperHost: string | undefined;
  /** The wrapper says the kernel wrote the line (journald's `kernel` identifier), with the kernel's stamp where journald's JSON gives it. */
  fromKernel?: boolean;
  kernelSinceBootUs?: number;
}

/** Where the lines go. */
export interface WrappedLineSink {
  read(line: WrappedLine): void;
  issue(issue: ParseIssue): void;
  /** The instant of the wrapper's stamp (µs; -1 when none): a syslog stamp takes its year from what the reader has dated. */
  wrapperUs(u: Extract<Unwrapped, { kind: "line" }>): number;
}

export class WrappedLines {
  /** Raw lines of a partial wrapped line, and where it started. */
  private partialRaw: string[] = [];
  private partialLine = 0;

  constructor(
    private readonly unwrapper: LineUnwrapper,
    private readonly sink: WrappedLineSink,
  ) {}

  push(text: string, original: string, lineNo: number): void {
    let u = this.unwrapper.unwrap(text);
    // A pasted first line may carry a backtick or quote mark before the wrapper's stamp.
    if (u.kind === "foreign" && mayBePasted(text)) {
      const cleaned = this.unwrapper.unwrap(cleanPasted(text).trimStart());
      if (cleaned.kind === "line") u = cleaned;
    }
    if (u.kind === "partial") {
      if (u.cuts !== undefined) this.cutPartial(u.cuts);
      if (this.partialRaw.length === 0) this.partialLine = lineNo;
      this.partialRaw.push(original);
      return;
    }
    if (u.kind === "own") {
      this.end();
      return this.sink.read({ inner: cleanIfPasted(text), raw: original, no: lineNo, wrapperUs: -1, wrapperHost: undefined });
    }
    if (u.kind === "foreign") {
      // A partial line the runtime never finished is a line of its own, before this one.
      this.end();
      this.sink.issue({ line: lineNo, message: `${u.why}; the line is kept as it stands` });
      return this.sink.read({ inner: cleanIfPasted(text), raw: original, no: lineNo, wrapperUs: -1, wrapperHost: undefined });
    }
    const joined = this.partialRaw.length > 0;
    const raw = joined ? [...this.partialRaw, original].join("\n") : original;
    const no = joined ? this.partialLine : lineNo;
    this.partialRaw = [];
    this.sink.read({ inner: cleanIfPasted(u.inner), raw, no, wrapperUs: this.sink.wrapperUs(u), wrapperHost: u.host, fromKernel: u.kernel, kernelSinceBootUs: u.kernelSinceBootUs });
  }

  /** A partial wrapped line still waiting for its end (the file ended, or a line cut it off), read as the line it makes so far. */
  end(): void {
    const rest = this.unwrapper.end();
    if (!rest || rest.kind !== "line") return;
    const raw = this.partialRaw.join("\n");
    this.partialRaw = [];
    this.sink.read({ inner: cleanIfPasted(rest.inner), raw, no: this.partialLine, wrapperUs: this.sink.wrapperUs(rest), wrapperHost: rest.host });
  }

  /** The open partial line, which the line after it cut off: read as it stands, the issue named at its first line. */
  private cutPartial(why: string): void {
    if (this.partialRaw.length > 0) this.sink.issue({ line: this.partialLine, message: `${why}; its lines are kept as they stand` });
    this.end();
  }
}
