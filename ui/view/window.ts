// Windows of time the timeline can show.

/**
 * The window to show for a wish: at least `minUs` wide, inside [startUs,
 * endUs] (the zoom cannot show outside it), moved rather than cut when it
 * sticks out, and the whole extent when it is wider than that.
 */
export function fitWindow(fromUs: number, toUs: number, startUs: number, endUs: number, minUs: number): [number, number] {
  const span = Math.max(minUs, toUs - fromUs);
  if (span >= endUs - startUs) return [startUs, endUs];
  if (fromUs < startUs) return [startUs, startUs + span];
  if (fromUs + span > endUs) return [endUs - span, endUs];
  return [fromUs, fromUs + span];
}

/** A window around some instants with a margin on both sides (at least `minPadUs`). */
export function windowAround(times: readonly number[], share: number, minPadUs: number): [number, number] {
  const lo = Math.min(...times);
  const hi = Math.max(...times);
  const pad = Math.max(minPadUs, (hi - lo) * share);
  return [lo - pad, hi + pad];
}
