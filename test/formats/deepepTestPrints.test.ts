// DeepEP's test programs' prints (ingest/formats/templates/clusterTests/deepepTests.ts): the
// lines are the working half's deepep-261-a, as pasted (a passing
// test_internode.py run whose thread asks why inference is slower); the last
// case is written by hand, a case cut before ` passed` with its assertion after.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("test_internode.py's configuration, layout time and passing cases are the test's information", () => {
  const { events, issues } = parseLines([
    "[config] num_tokens=4096, hidden=7168, num_topk_groups=4, num_topk=8",
    "[layout] Kernel performance: 0.054 ms",
    "",
    "[testing] Running with BF16, without top-k (async=False, previous=False) ... passed",
    "[testing] Running with FP8, with top-k (async=False, previous=False) ... passed",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.test, e.attrs?.passed]),
    [
      [LogKind.message, "info", "deepep", undefined],
      [LogKind.message, "info", "deepep", undefined],
      [LogKind.message, "info", "deepep", true],
      [LogKind.message, "info", "deepep", true],
    ],
  );
});

test("a case cut before ` passed` stays the test's line; the assertion after it is the failure", () => {
  const { events } = parseLines([
    "[testing] Running with BF16, with top-k (async=True, previous=False) ...Traceback (most recent call last):",
    '  File "/root/DeepEP/tests/test_internode.py", line 160, in test_main',
    "    assert calc_diff(check_x, ref_x) < 5e-6",
    "AssertionError",
  ]);
  assert.equal(events[0]!.kind, LogKind.message);
  assert.equal(events[0]!.attrs?.passed, false);
});
