// Time as the timeline lays it out: real microseconds, with chosen empty
// stretches folded to a short width so that the seconds where things happen
// are not squeezed between minutes of nothing. A piecewise-linear, monotone
// map between real time and "display" time; outside the folded gaps display
// time runs at real speed, so widths there still read as durations.

export interface FoldedGap {
  /** Real start and end. */
  from: number;
  to: number;
  /** Display start and end. */
  d0: number;
  d1: number;
}

export class TimeMap {
  readonly folded: FoldedGap[];
  /** Microseconds removed before each gap (and after the last, at the end). */
  private readonly removedBefore: number[];

  /** `gaps` sorted and disjoint; each one folds to `foldUs` (or stays as it is when shorter). */
  constructor(gaps: readonly (readonly [number, number])[], foldUs: number) {
    this.folded = [];
    this.removedBefore = [];
    let removed = 0;
    for (const [from, to] of gaps) {
      const width = Math.min(to - from, foldUs);
      this.removedBefore.push(removed);
      this.folded.push({ from, to, d0: from - removed, d1: from - removed + width });
      removed += to - from - width;
    }
    this.removedBefore.push(removed);
  }

  static readonly identity = new TimeMap([], 0);

  get isIdentity(): boolean {
    return this.folded.length === 0;
  }

  /** The last gap that starts at or before `t` (by real time), or -1. */
  private gapAtOrBefore(t: number, key: "from" | "d0"): number {
    let lo = 0;
    let hi = this.folded.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.folded[mid]![key] <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  toD(t: number): number {
    const i = this.gapAtOrBefore(t, "from");
    if (i < 0) return t;
    const g = this.folded[i]!;
    if (t >= g.to) return t - this.removedBefore[i + 1]!;
    return g.d0 + ((t - g.from) * (g.d1 - g.d0)) / (g.to - g.from);
  }

  toT(d: number): number {
    const i = this.gapAtOrBefore(d, "d0");
    if (i < 0) return d;
    const g = this.folded[i]!;
    if (d >= g.d1) return d + this.removedBefore[i + 1]!;
    return g.from + ((d - g.d0) * (g.to - g.from)) / (g.d1 - g.d0);
  }
}
