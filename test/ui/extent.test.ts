// The timeline's span (ui/view/extent.ts): its margin is 1 % of the time
// that holds events, so that folding the empty stretches leaves a sliver of
// margin, not a third of the width.

import { test } from "node:test";
import assert from "node:assert/strict";
import { timelineExtent } from "../../ui/view/extent.js";

const S = 1e6;

test("a minute of events, then 31 minutes without one before a late timeout: a 0.6 s margin, not 19 s", () => {
  const first = 1_000 * S;
  const last = first + 32 * 60 * S;
  const gap: [number, number] = [first + 60 * S, last - 0.5 * S];
  const [start, end] = timelineExtent(first, last, [gap]);
  // 60.5 s hold events: 1 % of that each side.
  assert.equal(first - start, 0.605 * S);
  assert.equal(end - last, 0.605 * S);
});

test("without empty stretches the margin is 1 % of the span; a single instant gets 1 ms", () => {
  assert.deepEqual(timelineExtent(0, 100 * S, []), [-1 * S, 101 * S]);
  assert.deepEqual(timelineExtent(5 * S, 5 * S, []), [5 * S - 1000, 5 * S + 1000]);
});

test("a stretch reaching past the events counts only inside them", () => {
  assert.deepEqual(timelineExtent(10 * S, 110 * S, [[0, 60 * S]]), [10 * S - 0.5 * S, 110 * S + 0.5 * S]);
});
