// A paste hard-wrapped at a fixed width. Two programs wrap this way:
//   - a commit message, an e-mail or an editor fills a long log line at 72–100
//     columns, breaking it between words (the greedy fill of GNU fmt and of
//     git's commit-message editors: a line is broken only before a word that
//     would not fit);
//   - a terminal's copy breaks a line at its last column, mid-word, and some
//     pad every line with spaces to that column.
// The parts after the first carry no prefix of their own, so each would read
// as a line of its own and the record's template would see only its first part:
//
//   [E329 19:15:11.775879730 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog
//   caught collective operation timeout: WorkNCCL(SeqNum=2,
//
// A file is taken for a filled paste when no line of its first lines is longer
// than a fill's width and at least two of its line breaks fall where a greedy
// fill breaks; for a terminal's, when distinct lines of exactly its widest
// length (the terminal's width) are at least twice those a little shorter: a
// terminal's wrapped lines are all full, a fill's fall short of the width by
// the word it moved. ./logParser.ts then joins a part to the record it breaks
// off, when that record's line was left unread.

import type { ParseIssue } from "../../../domain/event.js";

/** The widest fill a paste is taken to have (a terminal's 100 columns). */
const MAX_FILL_WIDTH = 100;
/** The widest terminal: a longer line means the file is not wrapped. */
const MAX_TERMINAL_WIDTH = 512;
/** The narrowest terminal (VT100's 80 columns). */
const MIN_TERMINAL_WIDTH = 80;
/** Numbers a full line's words are compared without (one message at two times is one line's words). */
const DIGITS = /\d+/g;
/** The narrowest wrap: below it, lines are short by nature, not by a wrap. */
const MIN_WRAP_WIDTH = 48;
/** Lines held back to decide the width: a paste is short, a log whose lines are all this short is not held longer. */
const WINDOW_LINES = 400;
/** Breaks of the greedy fill, or full lines of a terminal's, a file must show before it is taken for wrapped. */
const MIN_BREAKS = 2;
/** How much shorter than the width a line is "a little shorter" (a fill's wrapped lines are, by the word it moved). */
const NEAR_FULL = 12;

/** How a paste was wrapped: at what width, and whether at the column (a terminal's) or between words (a fill's). */
export interface PasteWrap {
  width: number;
  atColumn: boolean;
}

const NOT_WRAPPED: PasteWrap = { width: 0, atColumn: false };

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

/**
 * True when the wrap broke the line `prevLength` long (without its padding) before `next`; a terminal's line
 * one short of its width had a space in its last column.
 */
function wrappedBefore(prevLength: number, next: string, wrap: PasteWrap): boolean {
  return wrap.atColumn ? prevLength >= wrap.width - 1 : brokeBefore(prevLength, next, wrap.width);
}

/** What stands between a line and the part a wrap broke off it: the space a fill dropped, or a terminal's last column. */
function joint(prevLength: number, wrap: PasteWrap): string {
  return wrap.atColumn && prevLength === wrap.width ? "" : " ";
}

/** A line's length without the spaces a paste left at its end. */
function endTrimmedLength(line: string): number {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  return end;
}

/** How the lines were wrapped, NOT_WRAPPED when they do not look wrapped (see the file's head). */
export function wrapOf(lines: readonly string[]): PasteWrap {
  const lengths = lines.map(endTrimmedLength);
  const width = Math.max(0, ...lengths);
  if (width < MIN_WRAP_WIDTH) return NOT_WRAPPED;
  // Full lines are told apart by their words: a log's longest lines are often one message at two times. A
  // terminal's line whose last column held a space is one short: counted neither way.
  const full = new Set(lines.filter((_, i) => lengths[i] === width).map((l) => l.substring(0, width).replace(DIGITS, "")));
  const nearFull = lengths.filter((n) => n < width - 1 && n >= width - NEAR_FULL).length;
  if (width >= MIN_TERMINAL_WIDTH && full.size >= MIN_BREAKS && full.size >= 2 * nearFull) return { width, atColumn: true };
  if (width > MAX_FILL_WIDTH) return NOT_WRAPPED;
  let breaks = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    const next = lines[i + 1]!;
    const c = next.charCodeAt(0);
    if (next.length === 0 || c === 32 || c === 9) continue;
    if (brokeBefore(lengths[i]!, next, width)) breaks++;
  }
  return breaks >= MIN_BREAKS ? { width, atColumn: false } : NOT_WRAPPED;
}

/**
 * Holds a file's first lines back until it knows whether they were wrapped:
 * at the first line wider than any terminal, at WINDOW_LINES lines, or at the end.
 * Lines then pass in order, unchanged.
 */
class PasteWidth {
  /** How the paste was wrapped once decided; null while lines are held. */
  wrap: PasteWrap | null = null;
  private held: string[] = [];
  private heldNos: number[] = [];

  constructor(private readonly emit: (text: string, lineNo: number) => void) {}

  push(text: string, lineNo: number): void {
    if (this.wrap !== null) return this.emit(text, lineNo);
    this.held.push(text);
    this.heldNos.push(lineNo);
    if (text.length > MAX_TERMINAL_WIDTH && endTrimmedLength(text) > MAX_TERMINAL_WIDTH) return this.release(NOT_WRAPPED);
    if (this.held.length >= WINDOW_LINES) this.release(wrapOf(this.held));
  }

  end(): void {
    if (this.wrap === null) this.release(wrapOf(this.held));
  }

  private release(wrap: PasteWrap): void {
    this.wrap = wrap;
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
 * A file that may be a hard-wrapped paste, and its lines joined back to the
 * line a wrap broke them off: once the file's first lines say how it was
 * wrapped (PasteWidth), a line of no dialect that the wrap broke off the line
 * before it joins that line when it opened a record no template read; the
 * two are read again as one line (a watchdog's timeout read whole). In a file
 * not wrapped, lines are read as they come.
 */
export class HardWrappedPaste<L extends ReadLine> {
  private readonly width: PasteWidth;
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
    /** Where the file's lines go once the wrap is known, in order and unchanged. */
    physicalLine: (text: string, lineNo: number) => void,
  ) {
    this.width = new PasteWidth(physicalLine);
  }

  /** A line of the file, held until the file's first lines say how it was wrapped. */
  push(text: string, lineNo: number): void {
    this.width.push(text, lineNo);
  }

  /** The end of the file: lines still held go on. */
  end(): void {
    this.width.end();
  }

  private get wrap(): PasteWrap {
    return this.width.wrap ?? NOT_WRAPPED;
  }

  /** A physical line as the file has it (`original`), before it is read. */
  physical(original: string): void {
    if (this.wrap.width === 0) return;
    this.prevLength = this.lineLength;
    this.lineLength = endTrimmedLength(original);
  }

  /** Reads `line`, noting it when it opens a record (a later line may join it). */
  read(line: L, issues: ParseIssue[]): void {
    if (this.wrap.width === 0) return this.readLine(line);
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

  /** True when a terminal cut the line before `line` just before a space, which `line` starts with, and they were read as one. */
  joinedAfterSpace(line: L, issues: ParseIssue[]): boolean {
    return this.wrap.atColumn && line.inner.charCodeAt(1) !== 32 && this.joined(line, issues);
  }

  /** True when `line`, of no dialect, was joined to the line before it (as the wrap broke them), and read with it. */
  joined(line: L, issues: ParseIssue[]): boolean {
    const wrap = this.wrap;
    const head = this.openLine;
    if (wrap.width === 0 || head === null || !this.records.openIsUnreadLine() || !wrappedBefore(this.prevLength, line.inner, wrap)) return false;
    if (this.standsAlone(head.inner) || this.standsAlone(line.inner)) return false;
    this.records.discardOpen();
    // The issues the broken line raised alone (a template half-matched) are the joined line's to raise again.
    const raised = this.openIssues;
    for (let i = raised.length - 1; i >= this.openIssueAt; i--) if (raised[i]!.line === head.no) raised.splice(i, 1);
    // A fill broke the line at a space it dropped; a terminal broke it at its column, mid-word, and padded it after.
    const inner = `${head.inner.trimEnd()}${joint(this.prevLength, wrap)}${line.inner}`;
    this.read({ ...head, inner, raw: `${head.raw}\n${line.raw}` }, issues);
    this.joins++;
    return true;
  }
}
