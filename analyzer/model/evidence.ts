// Page arithmetic over the ranges decoded events carry (DESIGN.md "Probe
// JSONL record": `pages` are half-open ranges; a store may give token `locs`
// instead). Handlers walk ranges with index loops: `for (const [lo, hi] of
// ranges)` allocated iterator results on every event.

import type { PageRanges } from "../../domain/fields.js";

export type { PageRanges };

export const NO_RANGES: PageRanges = [];
Object.freeze(NO_RANGES);

export function countPages(ranges: PageRanges): number {
  let n = 0;
  for (let i = 0; i < ranges.length; i++) {
    const lo = ranges[i]![0];
    const hi = ranges[i]![1];
    n += hi > lo ? hi - lo : 0;
  }
  return n;
}

/** Every page of the ranges, in order. */
export function expandPages(ranges: PageRanges): number[] {
  const out: number[] = [];
  for (let i = 0; i < ranges.length; i++) for (let p = ranges[i]![0]; p < ranges[i]![1]; p++) out.push(p);
  return out;
}

/** Pages a store touches: its page ranges, or the pages of its token `locs` (page = loc // page size) in runs. */
export function storeRanges(locs: unknown, pages: PageRanges, pageTokens: number): PageRanges {
  if (!Array.isArray(locs)) return pages;
  const out: number[] = [];
  for (const l of locs) if (typeof l === "number" && Number.isFinite(l)) out.push(Math.floor(l / pageTokens));
  out.sort((a, b) => a - b);
  return toRanges(out.filter((p, i) => i === 0 || p !== out[i - 1]));
}

/** Compresses a page list back into half-open ranges (for views). */
export function toRanges(pages: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of pages) {
    const last = out[out.length - 1];
    if (last !== undefined && last[1] === p) last[1] = p + 1;
    else out.push([p, p + 1]);
  }
  return out;
}
