// A window of the counter tracks (analyzer/timeline/counterTracks.ts): each
// track reduced to the least and greatest point per pixel column, so a day of
// 15 s samples answers in a size bounded by the window's width in pixels.

import type { CounterColumns } from "../../analyzer/timeline/counterTracks.js";
import type { CounterPoints, CountersAnswer } from "../wire.js";
import { lowerBound } from "./sorted.js";

export interface CounterWish {
  fromUs: number;
  toUs: number;
  /** Pixel columns across [fromUs, toUs). */
  px: number;
  /** Only the tracks of these lanes; all when absent. */
  lanes?: readonly number[];
}

/**
 * Each track's points in [fromUs, toUs), at most the least and the greatest
 * per pixel column (in time order), with the nearest point either side of
 * the window so that the line runs to its edges: at most 2·px + 2 a track.
 */
export function queryCounters(c: CounterColumns, w: CounterWish): CountersAnswer {
  const lanes = w.lanes && new Set(w.lanes);
  const usPerPx = (w.toUs - w.fromUs) / w.px;
  const tracks: CounterPoints[] = [];
  c.tracks.forEach((t, track) => {
    if (lanes && !lanes.has(t.lane)) return;
    const end = t.first + t.count;
    const i0 = lowerBound(c.ts, w.fromUs, t.first, end);
    const i1 = lowerBound(c.ts, w.toUs, i0, end);
    const out: CounterPoints = { track, ts: [], value: [], seq: [] };
    const push = (i: number) => {
      out.ts.push(c.ts[i]!);
      out.value.push(c.value[i]!);
      out.seq.push(c.seq[i]!);
    };
    if (i0 > t.first) push(i0 - 1);
    let i = i0;
    while (i < i1) {
      const column = Math.floor((c.ts[i]! - w.fromUs) / usPerPx);
      const columnEnd = Math.min(i1, lowerBound(c.ts, w.fromUs + (column + 1) * usPerPx, i + 1, i1));
      let lo = i;
      let hi = i;
      for (let j = i + 1; j < columnEnd; j++) {
        if (c.value[j]! < c.value[lo]!) lo = j;
        if (c.value[j]! > c.value[hi]!) hi = j;
      }
      push(Math.min(lo, hi));
      if (lo !== hi) push(Math.max(lo, hi));
      i = columnEnd;
    }
    if (i1 < end) push(i1);
    if (out.ts.length) tracks.push(out);
  });
  return { fromUs: w.fromUs, toUs: w.toUs, px: w.px, tracks };
}
