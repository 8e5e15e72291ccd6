// The real time the timeline spans: the events', with a margin each side.
// The margin is 1 % of the time that holds events — the empty stretches the
// timeline can fold are left out — so that, folded, the margin stays a
// sliver instead of a third of the width (a 32-minute incident with one
// minute of events gave 19 s of margin around 60 s of display time).

/** Least margin each side, in microseconds. */
const MIN_MARGIN_US = 1000;
const MARGIN_SHARE = 0.01;

export function timelineExtent(firstUs: number, lastUs: number, foldable: readonly (readonly [number, number])[]): [number, number] {
  const empty = foldable.reduce((n, [from, to]) => n + Math.max(0, Math.min(to, lastUs) - Math.max(from, firstUs)), 0);
  const margin = Math.max(MIN_MARGIN_US, (lastUs - firstUs - empty) * MARGIN_SHARE);
  return [firstUs - margin, lastUs + margin];
}
