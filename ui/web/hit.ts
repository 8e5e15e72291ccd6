// What is under the pointer on the timeline: the nearest event of the row
// (when single events are drawn), or the bucket and its count (when the
// window is aggregated).

import type { Row } from "./rows.js";
import type { WindowColumns } from "./types.js";

export type Hit = { seq: number; tsUs: number; kind: number } | { bucketTs: number; count: number };

const REACH_PX = 5;

/**
 * `px` is the pointer's x on the canvas, `xOf`/`tsOf` convert between time and
 * x. Events of one instant overlap: a highlighted witness wins over its neighbours.
 */
export function hitTest(
  data: WindowColumns,
  row: Row,
  px: number,
  xOf: (tsUs: number) => number,
  tsOf: (px: number) => number,
  witness: ReadonlySet<number>,
): Hit | null {
  const inRow = new Set(row.lanes);
  if (data.mode === "events") {
    let best = -1;
    let bestScore = Infinity;
    for (let i = 0; i < data.seq.length; i++) {
      if (!inRow.has(data.lane[i]!)) continue;
      const dx = Math.abs(xOf(data.ts[i]!) - px);
      const score = dx - (witness.has(data.seq[i]!) ? 3 : 0);
      if (dx <= REACH_PX && score < bestScore) {
        best = i;
        bestScore = score;
      }
    }
    return best < 0 ? null : { seq: data.seq[best]!, tsUs: data.ts[best]!, kind: data.kind[best]! };
  }
  const ts = tsOf(px);
  const b = Math.floor((ts - data.fromUs) / data.bucketUs);
  let count = 0;
  for (let i = 0; i < data.lane.length; i++) if (data.bucket[i] === b && inRow.has(data.lane[i]!)) count += data.count[i]!;
  return count ? { bucketTs: ts, count } : null;
}
