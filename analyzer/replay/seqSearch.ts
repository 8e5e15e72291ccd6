// Binary search over things in seq order: how many are at or before a seq.
// Snapshots (snapshots.ts) and the queue gauges' checkpoints and readings
// (queueGauges.ts) each find the last one at or before a point.

/** How many of the `length` items, whose seqs `seqAt(i)` rise with i, have a seq at or before `seq`. */
export function countAtOrBefore(length: number, seqAt: (i: number) => number, seq: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqAt(mid) <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
