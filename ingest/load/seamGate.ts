// Which lines of the bytes a part of a file reads are the part's own
// (ingest/load/sourceParts.ts explains the cut): from its seam — the first seam
// after its start, the file's first line for part 0 — to the line before the
// next part's seam.

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { InputFormat, ParseContext, TimeTally } from "../formats/format.js";
import type { LoadedStats, LoadSource } from "./loadStream.js";
import type { UnparsedShape } from "../../store/read/sources.js";
import type { SourceFacts } from "./sourceFacts.js";
import type { FileWideCounts } from "./fileWideIssues.js";

/** One part of a file, as a load worker reads it. */
export interface SourcePart {
  /** The part's place in its file (0 reads from the start). */
  index: number;
  /** The byte the part's reading starts at (a line's start) and that line's number. */
  startByte: number;
  firstLine: number;
  /** Lines from startByte to the next part's startByte. */
  lines: number;
  /** The file's last part: it reads to the end. */
  last: boolean;
  /** Logs in a wrapper: the zone fix decided above the part (ParseContext.zoneFixMinutes). */
  zoneFixMinutes?: number;
}

/** A part a worker is given: its source, its place, and its bytes [startByte, endByte). */
export interface PartJob {
  /** Its source's index among the cut sources (ingest/load/loadPlan.ts). */
  stream: number;
  source: LoadSource;
  index: number;
  startByte: number;
  /** Null for the file's last part. */
  endByte: number | null;
}

/** What a part hands back once read: its statistics and what is needed to add them up with the other parts. */
export interface PartResult {
  index: number;
  stats: LoadedStats;
  shapes: UnparsedShape[];
  tally: TimeTally | null;
  fileWide: FileWideCounts;
  facts: SourceFacts;
}

export const Admit = { skip: 0, parse: 1 } as const;
export type Admit = (typeof Admit)[keyof typeof Admit];

/** Decides, line by line, which lines of the bytes a part reads are its own. */
export class SeamGate {
  /** The part's first line: its seam (the file's first line for part 0). */
  startLine: number;
  /** The next part's seam, once read: the part ends before it. */
  cut: number | undefined;
  private seeking: boolean;
  private previous: string | null = null;
  /** Lines at or past this one lie after the next part's start: a seam there is the next part's. */
  private readonly endFrom: number;

  constructor(
    private readonly format: InputFormat,
    private readonly ctx: ParseContext,
    part: SourcePart,
  ) {
    this.seeking = part.index > 0;
    this.startLine = this.seeking ? Infinity : part.firstLine;
    this.endFrom = part.last ? Infinity : part.firstLine + part.lines + 1;
  }

  admit(line: string, no: number): Admit {
    if (this.cut !== undefined) return Admit.skip;
    const previous = this.previous;
    this.previous = line;
    if (this.seeking) {
      // No seam in the part's own bytes: the part before reads them all, and this one is empty.
      if (no >= this.endFrom) this.cut = no;
      if (no >= this.endFrom || previous === null || !this.isSeam(previous, line)) return Admit.skip;
      this.seeking = false;
      this.startLine = no;
      return Admit.parse;
    }
    if (no >= this.endFrom && previous !== null && this.isSeam(previous, line)) this.cut = no;
    return Admit.parse;
  }

  /** Whether a line is the part's own: from its seam to the next part's (as far as read). */
  owns(line: number): boolean {
    return line >= this.startLine && (this.cut === undefined || line < this.cut);
  }

  /** Keeps the events and issues of the part's own lines (drops those of the next part's seam). */
  keepOwn(events: ParsedEvent[], issues: ParseIssue[]): void {
    filterInPlace(events, (ev) => this.owns(ev.line));
    filterInPlace(issues, (issue) => this.owns(issue.line));
  }

  private isSeam(previous: string, line: string): boolean {
    return this.format.isSeam!(previous, line, this.ctx);
  }
}

function filterInPlace<T>(items: T[], keep: (item: T) => boolean): void {
  let n = 0;
  for (const item of items) if (keep(item)) items[n++] = item;
  items.length = n;
}

