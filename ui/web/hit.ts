// What is under the pointer on the timeline: a span bar (along the bottom
// of a row), the nearest event of the row (when single events are drawn), or
// the bucket and its count (when the window is aggregated).

import type { Marks } from "./marks.js";
import type { Row } from "./rows.js";

export type Hit =
  | { seq: number; tsUs: number; kind: number; time: number }
  | { bucketTs: number; count: number }
  | { span: number; seq: number; text: string };

const REACH_PX = 5;
/** The span bar's band, from the row's bottom edge. */
const SPAN_BAND_PX = 6;

export interface HitView {
  /** Screen x = (displayTime - d0) * scale. */
  d0: number;
  scale: number;
  /** Real time of a display time. */
  toT(d: number): number;
}

/**
 * `px` is the pointer's x on the canvas, `fromBottom` its height above the
 * row's bottom edge. Events of one instant overlap: a highlighted witness
 * wins over its neighbours.
 */
export function hitTest(marks: Marks, row: Row, rowIndex: number, px: number, fromBottom: number, v: HitView, witness: ReadonlySet<number>): Hit | null {
  const d = px / v.scale + v.d0;
  if (fromBottom <= SPAN_BAND_PX) {
    const s = marks.spans;
    for (let i = s.n - 1; i >= 0; i--) {
      if (s.row[i] === rowIndex && s.d0[i]! - 2 / v.scale <= d && d <= s.d1[i]! + 2 / v.scale) return { span: i, seq: s.seq[i]!, text: s.text[i]! };
    }
  }
  const data = marks.data;
  const inRow = new Set(row.lanes);
  if (data.mode === "events") {
    let best = -1;
    let bestScore = Infinity;
    for (let i = 0; i < data.seq.length; i++) {
      if (!inRow.has(data.lane[i]!)) continue;
      const dx = Math.abs((marks.dts[i]! - v.d0) * v.scale - px);
      const score = dx - (witness.has(data.seq[i]!) ? 3 : 0);
      if (dx <= REACH_PX && score < bestScore) {
        best = i;
        bestScore = score;
      }
    }
    return best < 0 ? null : { seq: data.seq[best]!, tsUs: data.ts[best]!, kind: data.kind[best]!, time: data.time[best]! };
  }
  const ts = v.toT(d);
  const b = Math.floor((ts - data.fromUs) / data.bucketUs);
  let count = 0;
  for (let i = 0; i < data.lane.length; i++) if (data.bucket[i] === b && inRow.has(data.lane[i]!)) count += data.count[i]!;
  return count ? { bucketTs: ts, count } : null;
}
