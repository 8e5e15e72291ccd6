// Times for records that carry none (DESIGN.md "Inputs": undated lines keep
// their place). A record with its own time is emitted at once. One without
// (a traceback with no prefixed line above it, an NCCL or `print` line, a
// faulthandler dump) waits for the next dated record and takes a time
// interpolated between its dated neighbours in the file; before the first
// dated record it takes the first one's time, after the last the last one's.
// It is marked `tsInferred` either way: never an error, never dropped. In a
// file with no dated line at all a record has no neighbour to take a time
// from: it is timeless (DESIGN.md "Who and when"), placed in the order at the
// file's anchor (before its host's dated records) and never shown as timed.
// A glog/c10 stamp has a time of day but no year: it takes the year that puts
// it nearest the record dated before it (the file's own), else the year hint
// the ingest gives (the same host's other files, the file's mtime).

import type { ParsedEvent } from "../../../domain/event.js";
import { civilToUs, isValidCivil } from "../sglang/prefix.js";
import type { TorchStamp } from "../sglang/torchLines.js";
import type { KernelRunAnchor } from "./kernelClock.js";
import type { TimeTally } from "../format.js";

/** What the ingest knows about a file's times before its lines are read (ingest/sources/candidates.ts). */
export interface DatingHints {
  /** False when no line of the file carries a date: every undated record takes the anchor at once. */
  hasDatedLines: boolean;
  /** Where the timeless records of a file with no dated line stand in the order, and what that place is. */
  anchorUs: number;
  anchorOrigin: string;
  /** A year for stamps that carry none, near this instant, and where it came from. */
  yearNearUs: number;
  yearOrigin: string;
  /**
   * Where the year comes from the file's modification time: the file was written no later than it, so a stamp
   * takes the latest year that does not put it after that time, not the nearest.
   */
  yearAtMostUs?: number;
  /**
   * A plain dmesg file's runs of one clock (./kernelClock.ts), each with the
   * wall time of its second 0 where the same host's dated kernel logs give
   * it (ingest/sources/kernelBoot.ts). Absent when the host has no dated kernel log.
   */
  kernelRuns?: readonly KernelRunAnchor[];
}

/** Undated records held at most while waiting for a dated one; beyond that they take the last time known. */
const MAX_HELD = 20_000;
const US_PER_DAY = 86_400_000_000;

/** A record waiting for a time: undated, or stamped with no year known yet. */
interface Held {
  ev: ParsedEvent;
  stamp: TorchStamp | null;
}

export class RecordDater {
  private held: Held[] = [];
  private lastDatedUs = -1;
  private undatedCount = 0;
  private yearFromHint = 0;
  private syslogYearFromHint = 0;

  constructor(
    private readonly hints: DatingHints | undefined,
    private readonly tzOffsetMinutes: number,
    private readonly out: (ev: ParsedEvent) => void,
  ) {}

  /** A record with its own time in `ev.tsUs`. */
  dated(ev: ParsedEvent): void {
    if (this.held.length > 0) this.release(ev.tsUs);
    this.lastDatedUs = ev.tsUs;
    this.out(ev);
  }

  /** A record with a time of day and no year: it waits for a dated record when neither the file nor the hints give one. */
  stamped(ev: ParsedEvent, stamp: TorchStamp): void {
    const us = this.lastDatedUs >= 0 ? firstYearFrom(stamp, this.lastDatedUs, this.tzOffsetMinutes) : this.yearFromHints(stamp);
    if (us === null) return this.hold({ ev, stamp });
    if (this.lastDatedUs < 0) this.yearFromHint++;
    ev.tsUs = us;
    this.dated(ev);
  }

  /**
   * A wrapper's time of day without a year (syslog's `Jun 11 14:03:07`, as
   * rsyslog's traditional format and journalctl's `short` print it): its
   * instant, the year that of the record still open (`openUs`, -1: none
   * timed) or the file's last dated one, else the hints'; -1 when none is
   * known (the line is then undated).
   */
  wrapperInstant(stamp: TorchStamp, openUs: number): number {
    const known = openUs >= 0 ? openUs : this.lastDatedUs;
    const us = known >= 0 ? firstYearFrom(stamp, known, this.tzOffsetMinutes) : this.yearFromHints(stamp);
    if (us === null) return -1;
    if (known < 0) this.syslogYearFromHint++;
    return us;
  }

  undated(ev: ParsedEvent): void {
    ev.tsInferred = true;
    this.undatedCount++;
    if (this.hints !== undefined && !this.hints.hasDatedLines) {
      ev.timeless = true;
      ev.tsUs = this.hints.anchorUs;
      return this.out(ev);
    }
    this.hold({ ev, stamp: null });
  }

  /**
   * A held stamp's instant: a log is written in order, so a stamp after a dated record is not before it, and one
   * before a dated record not after it; at the end of a file with no dated line, the year nearest the anchor.
   */
  private yearBetween(stamp: TorchStamp, lastUs: number, nextUs: number, atEnd: boolean): number | null {
    if (lastUs >= 0) return firstYearFrom(stamp, lastUs, this.tzOffsetMinutes);
    return atEnd ? nearestYear(stamp, nextUs, this.tzOffsetMinutes) : latestYearAtMost(stamp, nextUs, this.tzOffsetMinutes);
  }

  /** The stamp's instant in the year the hints give, null without hints. */
  private yearFromHints(stamp: TorchStamp): number | null {
    const hints = this.hints;
    if (hints === undefined) return null;
    return hints.yearAtMostUs !== undefined ? latestYearAtMost(stamp, hints.yearAtMostUs, this.tzOffsetMinutes) : nearestYear(stamp, hints.yearNearUs, this.tzOffsetMinutes);
  }

  private hold(h: Held): void {
    this.held.push(h);
    if (this.held.length >= MAX_HELD) this.release(this.lastDatedUs >= 0 ? this.lastDatedUs : this.anchor());
  }

  /** End of the file: held records take the last dated time (or the anchor). */
  finish(): void {
    if (this.held.length > 0) this.release(this.lastDatedUs >= 0 ? this.lastDatedUs : this.anchor(), true);
  }

  /** Where the inferred times of this file came from, for the source's record; null when nothing was inferred. */
  origin(): string | null {
    return datingOrigin(this.tally(), this.hints);
  }

  /** What this dater inferred, to be added up with the other parts of a file read in parts (ingest/load/sourceParts.ts). */
  tally(): DatingTally {
    return { undated: this.undatedCount, yearFromHint: this.yearFromHint, syslogYearFromHint: this.syslogYearFromHint, anyDated: this.lastDatedUs >= 0, kernelAnchored: 0 };
  }

  private anchor(): number {
    return this.hints?.anchorUs ?? 0;
  }

  /**
   * Times the held records between the last dated time and `nextUs`: evenly
   * spaced when the clock moved forward, all at the last time when it did not
   * (or at the end of the file, `atEnd`); before the first dated record, at `nextUs`.
   */
  private release(nextUs: number, atEnd = false): void {
    const held = this.held;
    this.held = [];
    const last = this.lastDatedUs;
    const n = held.length;
    for (let i = 0; i < n; i++) {
      const { ev, stamp } = held[i]!;
      const stamped = stamp === null ? null : this.yearBetween(stamp, last, nextUs, atEnd);
      if (stamped !== null) ev.tsUs = stamped;
      else {
        if (stamp !== null) {
          ev.tsInferred = true;
          this.undatedCount++;
        }
        if (last < 0 || atEnd) ev.tsUs = last < 0 ? nextUs : last;
        else ev.tsUs = nextUs > last ? last + Math.floor(((nextUs - last) * (i + 1)) / (n + 1)) : last;
        // A log is written in order: the record was written between its dated neighbours, which is all its file says
        // of its time (the instant above only places it); a report states these bounds, not that instant.
        const after = last < 0 ? null : last;
        const before = atEnd ? null : nextUs;
        if (after !== null || before !== null) (ev.attrs ??= {}).writtenBetweenUs = [after, before];
      }
      this.out(ev);
    }
  }
}

/** Counts of the records a dater timed without a time of their own. */
export interface DatingTally {
  undated: number;
  /** glog/c10 stamps before any dated line that took the year of the hints. */
  yearFromHint: number;
  /** Syslog stamps (a wrapper's, without a year) before any dated line that took the year of the hints. */
  syslogYearFromHint: number;
  /** Some record of the file had a time of its own. */
  anyDated: boolean;
  /** Plain dmesg records dated by their run's anchor (./kernelClock.ts). */
  kernelAnchored: number;
}

/** Where a file's inferred times came from, said in words; null when nothing was inferred. */
export function datingOrigin(t: DatingTally, hints: DatingHints | undefined): string | null {
  const parts: string[] = [];
  if (t.undated > 0) {
    // A file with no dated line (its dates read before the parse, ingest/sources/dateSpan.ts) makes every undated record timeless (undated()).
    parts.push(
      hints !== undefined && !hints.hasDatedLines
        ? `${t.undated} record(s) in a file with no dated line are timeless (time unknown), placed in the order ${hints.anchorOrigin}`
        : t.anyDated
          ? `${t.undated} record(s) without a time took times between their dated neighbours in the file`
          : `${t.undated} record(s) without a time took ${hints?.anchorOrigin ?? "no anchor (none was given)"}`,
    );
  }
  if (t.yearFromHint > 0) parts.push(`${t.yearFromHint} glog/c10 stamp(s) before any dated line took the year of ${hints?.yearOrigin}`);
  if (t.syslogYearFromHint > 0) parts.push(`${t.syslogYearFromHint} syslog stamp(s) (no year) before any dated line took the year of ${hints?.yearOrigin}`);
  const runs = hints?.kernelRuns;
  if (runs !== undefined && runs.length > 0) {
    const each = runs.map((r, i) => (runs.length > 1 ? `run ${i + 1}: ${r.origin}` : r.origin));
    parts.push(`${t.kernelAnchored} kernel record(s) stamped in seconds since boot took their boot's wall time (${each.join("; ")})`);
  }
  return parts.length > 0 ? parts.join("; ") : null;
}

/** The stamp's time in the year (of three candidates) that puts it nearest `nearUs`, or null when it is no real date. */
export function nearestYear(s: TorchStamp, nearUs: number, tzOffsetMinutes: number): number | null {
  const year = yearOf(nearUs, tzOffsetMinutes);
  let best: number | null = null;
  for (let y = year - 1; y <= year + 1; y++) {
    const us = stampInYear(s, y, tzOffsetMinutes);
    if (us !== null && (best === null || Math.abs(us - nearUs) < Math.abs(best - nearUs))) best = us;
  }
  return best !== null && Math.abs(best - nearUs) < 200 * US_PER_DAY ? best : null;
}

/** The stamp's instant in `year`, null when that is no real date (29 February of another year). */
function stampInYear(s: TorchStamp, year: number, tzOffsetMinutes: number): number | null {
  const civil = { year, month: s.month, day: s.day, hour: s.hour, minute: s.minute, second: s.second };
  return isValidCivil(civil) ? civilToUs(civil, s.fractionUs, tzOffsetMinutes) : null;
}

function yearOf(us: number, tzOffsetMinutes: number): number {
  return new Date(us / 1000 + tzOffsetMinutes * 60_000).getUTCFullYear();
}

/** Years a stamp is looked for in, either side of a bound: a leap day's next one is four years off. */
const YEARS_SEARCHED = 5;

/**
 * The stamp's time in the latest year that does not put it after `atMostUs` (a dated line after it, or a file's
 * modification time: its lines were written before it); a day's grace for threads that print out of order and a
 * zone the stamp was not read in. Null when it is no real date.
 */
export function latestYearAtMost(s: TorchStamp, atMostUs: number, tzOffsetMinutes: number): number | null {
  const from = yearOf(atMostUs, tzOffsetMinutes) + 1;
  for (let y = from; y > from - YEARS_SEARCHED; y--) {
    const us = stampInYear(s, y, tzOffsetMinutes);
    if (us !== null && us <= atMostUs + US_PER_DAY) return us;
  }
  return null;
}

/** The stamp's time in the first year that does not put it before `fromUs` (a dated line before it), with the same grace. */
export function firstYearFrom(s: TorchStamp, fromUs: number, tzOffsetMinutes: number): number | null {
  const from = yearOf(fromUs, tzOffsetMinutes) - 1;
  for (let y = from; y < from + YEARS_SEARCHED; y++) {
    const us = stampInYear(s, y, tzOffsetMinutes);
    if (us !== null && us >= fromUs - US_PER_DAY) return us;
  }
  return null;
}

/** Where the times a file did not state came from, from the tallies of its parts (one for a file read whole). */
export function timeOriginOf(tallies: readonly TimeTally[], hints: DatingHints | undefined): string | null {
  const sum = { undated: 0, yearFromHint: 0, syslogYearFromHint: 0, anyDated: false, kernelAnchored: 0 };
  for (const t of tallies) {
    sum.undated += t.undated;
    sum.yearFromHint += t.yearFromHint;
    sum.syslogYearFromHint += t.syslogYearFromHint;
    sum.kernelAnchored += t.kernelAnchored;
    sum.anyDated ||= t.anyDated;
  }
  const zoneNote = tallies.find((t) => t.zoneNote !== null)?.zoneNote ?? null;
  const parts = [zoneNote, datingOrigin(sum, hints)].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join("; ") : null;
}
