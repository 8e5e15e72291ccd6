// LMCache's own lines (ingest/formats/templates/engines/lmcache.ts): an L2 adapter's failed
// store task is LMCache's transport error, read from the line pasted into
// LMCache/LMCache#5123 (the working half of test/corpus, its keys elided by the
// reporter) and from lines in the shape store_controller.py prints (the logger's
// `(file.py:line:module)` suffix, a vLLM process tag, the `Store request` form).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne } from "./sglangHarness.js";

const SUFFIX = "(store_controller.py:388:lmcache.v1.distributed.storage_controllers.store_controller)";

test("LMCache: an L2 adapter's failed store task is LMCache's transport error, with the task and the adapter", () => {
  const ev = parseOne("[2026-09-15 06:24:51,595] LMCache WARNING: Store task 1 to adapter 0 failed for keys: ....");
  assert.equal(ev.kind, LogKind.transportError);
  assert.deepEqual(ev.attrs, {
    engine: "lmcache",
    errorKind: "l2_store_failed",
    error: "an L2 adapter did not store a task's keys",
    task: 1,
    adapter: 0,
    failureClass: "transport",
  });
});

test("LMCache: the store failure behind a process tag, with the logger's suffix, and the request form", () => {
  const { events } = parseLines([
    `(EngineCore_DP0 pid=4711) [2026-09-15 06:24:51,595] LMCache WARNING: Store task 17 to adapter 1 failed for keys: [] ${SUFFIX}`,
    `[2026-09-15 06:24:52,001] LMCache WARNING: Store request 9 to adapter 2 failed for keys: [] ${SUFFIX}`,
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.errorKind, e.attrs?.task, e.attrs?.adapter]), [
    [LogKind.transportError, "l2_store_failed", 17, 1],
    [LogKind.transportError, "l2_store_failed", 9, 2],
  ]);
});

test("LMCache: the stop's cleanup of in-flight store tasks is no store failure", () => {
  const ev = parseOne(`[2026-09-15 06:30:00,000] LMCache WARNING: Cleaning up in-flight store task 3 (adapter 0, 16 keys). ${SUFFIX}`);
  assert.notEqual(ev.kind, LogKind.transportError);
});
