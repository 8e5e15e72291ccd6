// Log lines copied from a web log console's table and pasted into a GitHub
// comment: GitHub turns the pasted HTML table into a Markdown pipe table
// (ingest/formats/log/pasted.ts, fromTableRow). The rows are in the shape of
// sgl-project/sglang#22607 (the working half of test/corpus): a header row
// with the time and the first text, the delimiter row, then rows with the
// console's two empty icon columns, the time, the text stripped of its
// indentation and an empty last cell.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { fromTableRow } from "../../ingest/formats/log/pasted.js";
import { parseLines, us } from "./sglangHarness.js";

const ROWS = [
  "2026-06-04 03:58:55.423 | File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 3616, in run_scheduler_process |  ",
  "-- | -- | --",
  "  |   | 2026-06-04 03:58:55.423 | scheduler.run_event_loop() |  ",
  "  |   | 2026-06-04 03:58:55.423 | File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 1300, in run_event_loop |  ",
  "  |   | 2026-06-04 03:58:55.423 | dispatch_event_loop(self) |  ",
  "  |   | 2026-06-04 03:58:55.424 | File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 3495, in dispatch_event_loop |  ",
  "  |   | 2026-06-04 03:58:55.424 | scheduler.event_loop_pp() |  ",
  "  |   | 2026-06-04 03:58:55.424 | RuntimeError: CUDA error: an illegal memory access was encountered |  ",
];

test("a console table's rows read as the time and the text; the delimiter row as a blank line", () => {
  assert.equal(fromTableRow(ROWS[2]!), "2026-06-04 03:58:55.423 scheduler.run_event_loop()");
  assert.equal(fromTableRow(ROWS[1]!), "");
  assert.equal(fromTableRow("| 2026-06-04T03:58:55Z | ERROR | a \\| b |"), "2026-06-04T03:58:55Z ERROR a | b");
});

test("lines that are not a console's rows stay as they are", () => {
  // loguru's default format separates its fields with pipes but never ends a line with one.
  const loguru = "2026-06-04 03:58:55.423 | ERROR    | lmcache.v1.storage:put:212 - put failed |";
  for (const line of [
    "2026-06-04 03:58:55.423 | ERROR    | lmcache.v1.storage:put:212 - put failed",
    "| Metric | Value |",
    "| ---- | ---- |".replace(/-/g, "x"),
    "Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:00<00:02,  1.27it/s]",
    "echo a |",
  ]) assert.equal(fromTableRow(line), line, line);
  assert.equal(fromTableRow(loguru), "2026-06-04 03:58:55.423 ERROR lmcache.v1.storage:put:212 - put failed", "a row that ends with a pipe and holds a time cell is a row");
});

test("a traceback pasted from a console table is one failure record at its time, its frames and its exception line read", () => {
  const { events, issues } = parseLines(ROWS);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 1, "the rows re-log one traceback line by line");
  const [tb] = events;
  assert.equal(tb!.kind, LogKind.exception);
  assert.equal(tb!.tsUs, us("2026-06-04T03:58:55.423Z"));
  assert.equal(tb!.attrs?.excType, "RuntimeError");
  assert.match(String(tb!.attrs?.excMessage), /illegal memory access/);
  assert.equal(tb!.text.split("\n").length, ROWS.length, "the record keeps every row as pasted");
});

test("inside a container's wrapper a row of pipes is the program's own output, not a console's table", () => {
  const line = "2026-06-11T14:03:07.554102345Z stdout F | 2026-06-11 14:00:00 | 12 requests | ok |";
  const { events, issues } = parseLines([line], { wrapper: "cri" });
  assert.deepEqual(issues, []);
  assert.equal(events[0]!.tsUs, us("2026-06-11T14:03:07.554102Z"), "the wrapper's time, the row untouched");
});
