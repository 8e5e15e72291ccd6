// A paste hard-wrapped at a fixed width: a commit message, an e-mail or an
// editor wraps a long log line at 72–100 columns, breaking it between words
// (the greedy fill of GNU fmt and of git's commit-message editors: a line is
// broken only before a word that would not fit). The parts after the first
// carry no prefix of their own, so each would read as a line of its own and
// the record's template would see only its first part:
//
//   [E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog
//   caught collective operation timeout: WorkNCCL(SeqNum=2,
//
// A file is taken for such a paste when no line of its first lines is longer
// than a wrap width and at least two of its line breaks fall where a greedy
// fill breaks (./logParser.ts then joins a part to the record it breaks off,
// when that record's line was left unread).

import type { ParseIssue } from "../../../domain/event.js";

/** The widest wrap a paste is taken to have (a terminal's 100 columns); a longer line means the file is not wrapped. */
const MAX_WRAP_WIDTH = 100;
/** The narrowest: below it, lines are short by nature, not by a wrap. */
const MIN_WRAP_WIDTH = 48;
/** Lines held back to decide the width: a paste is short, a log whose lines are all this short is not held longer. */
const WINDOW_LINES = 400;
/** Breaks of the greedy fill a file must show before its short lines are taken for a wrap. */
const MIN_FILL_BREAKS = 2;

/** The length of a line's first word (to its first space), the word a wrap moved to the next line. */
function firstWordLength(line: string): number {
  const space = line.indexOf(" ");
  return space < 0 ? line.length : space;
}

/**
 * True when a greedy fill at `width` columns broke a line `prevLength` long
 * before `next`: `next`'s first word would not have fit after a space. A word
 * of half the width or more (a rule of dashes, a path, a URL) fits nowhere:
 * its line tells nothing of a break.
 */
export function brokeBefore(prevLength: number, next: string, width: number): boolean {
  const word = firstWordLength(next);
  return prevLength > 0 && 2 * word < width && prevLength + 1 + word > width;
}

/** A line's length without the spaces a paste left at its end. */
export function endTrimmedLength(line: string): number {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return end;
}

/** The width the lines were wrapped at, 0 when they do not look wrapped (see the file's head). */
export function wrapWidthOf(lines: readonly string[]): number {
  let width = 0;
  for (const line of lines) width = Math.max(width, endTrimmedLength(line));
  if (width < MIN_WRAP_WIDTH || width > MAX_WRAP_WIDTH) return 0;
  let breaks = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    const next = lines[i + 1]!;
    const c = next.charCodeAt(0);
    if (next.length === 0 || c === 32 || c === 9) continue;
    if (brokeBefore(endTrimmedLength(lines[i]!), next, width)) breaks++;
  }
  return breaks >= MIN_FILL_BREAKS ? width : 0;
}

/**
 * Holds a file's first lines back until it knows whether they were wrapped:
 * at the first line wider than any wrap, at WINDOW_LINES lines, or at the end.
 * Lines then pass in order, unchanged.
 */
export class PasteWidth {
  /** The wrap width once decided (0: not wrapped); -1 while lines are held. */
  width = -1;
  private held: string[] = [];
  private heldNos: number[] = [];

  constructor(private readonly emit: (text: string, lineNo: number) => void) {}

  push(text: string, lineNo: number): void {
    if (this.width >= 0) return this.emit(text, lineNo);
    this.held.push(text);
    this.heldNos.push(lineNo);
    if (text.length > MAX_WRAP_WIDTH && endTrimmedLength(text) > MAX_WRAP_WIDTH) return this.release(0);
    if (this.held.length >= WINDOW_LINES) this.release(wrapWidthOf(this.held));
  }

  end(): void {
    if (this.width < 0) this.release(wrapWidthOf(this.held));
  }

  private release(width: number): void {
    this.width = width;
    const held = this.held;
    const nos = this.heldNos;
    this.held = [];
    this.heldNos = [];
    for (let i = 0; i < held.length; i++) this.emit(held[i]!, nos[i]!);
  }
}

/** What the joiner needs of a line: its text as read, its raw text and its number. */
interface ReadLine {
  inner: string;
  raw: string;
  no: number;
}

/** What the joiner needs of the record assembler (./records.ts). */
interface OpenRecords {
  readonly opened: number;
  openIsUnreadLine(): boolean;
  discardOpen(): void;
}

/**
 * The lines of a hard-wrapped paste joined back to the line a wrap broke
 * them off: a line of no dialect whose first word a greedy fill moved off
 * the line before it joins that line when it opened a record no template
 * read; the two are read again as one line (a watchdog's timeout read whole).
 */
export class BrokenLines<L extends ReadLine> {
  /** The line that opened the open record, as it was given to be read, and where its issues start. */
  private openLine: L | null = null;
  private openIssues: ParseIssue[] = [];
  private openIssueAt = 0;
  private prevLength = 0;
  private lineLength = 0;
  /** Lines joined so far: a read that joined leaves the joined line open. */
  private joins = 0;

  constructor(
    private readonly records: OpenRecords,
    private readonly readLine: (line: L) => void,
    /** A line that is one of its own whatever its length (a progress bar, which redraws its line). */
    private readonly standsAlone: (text: string) => boolean,
  ) {}

  /** A physical line as the file has it (`original`), before it is read. */
  physical(original: string): void {
    this.prevLength = this.lineLength;
    this.lineLength = endTrimmedLength(original);
  }

  /** Reads `line`, noting it when it opens a record (a later line may join it). */
  read(line: L, issues: ParseIssue[]): void {
    const given = { ...line };
    const opened = this.records.opened;
    const joins = this.joins;
    const issueAt = issues.length;
    this.readLine(line);
    if (this.records.opened === opened || this.joins !== joins) return;
    this.openLine = given;
    this.openIssues = issues;
    this.openIssueAt = issueAt;
  }

  /** True when `line`, of no dialect, was joined to the line before it (at `width` columns), and read with it. */
  joined(line: L, width: number, issues: ParseIssue[]): boolean {
    const head = this.openLine;
    if (head === null || !this.records.openIsUnreadLine() || !brokeBefore(this.prevLength, line.inner, width)) return false;
    if (this.standsAlone(head.inner) || this.standsAlone(line.inner)) return false;
    this.records.discardOpen();
    // The issues the broken line raised alone (a template half-matched) are the joined line's to raise again.
    const raised = this.openIssues;
    for (let i = raised.length - 1; i >= this.openIssueAt; i--) if (raised[i]!.line === head.no) raised.splice(i, 1);
    this.read({ ...head, inner: `${head.inner.trimEnd()} ${line.inner}`, raw: `${head.raw}\n${line.raw}` }, issues);
    this.joins++;
    return true;
  }
}
