// Binary search over the index's sorted time columns.

/** First position in [lo, hi) whose value is >= v (hi when none is). */
export function lowerBound(sorted: Float64Array, v: number, lo = 0, hi = sorted.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
