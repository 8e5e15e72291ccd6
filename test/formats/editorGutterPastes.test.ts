// A log copied from vim's screen with 'number' set: each line after its number,
// right-aligned in the number column, and a space (ingest/formats/log/editorGutter.ts).
// The lines are sgl-project/sglang#32182's (the working half of test/corpus): a
// PD decode's scheduler traceback at warmup, copied with vim's status line above
// it and two of its lines left out by the copy; the others are written by hand in
// the shapes the reader must leave alone.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, us } from "./sglangHarness.js";

const VIM_COPY = [
  `"2.log" 16498L, 2947832B`,
  `16433 [2026-07-23 15:23:26 DP2 TP2 EP2] Scheduler hit an exception: Traceback (most recent call last):`,
  `16434   File "/usr/local/src/sglang/python/sglang/srt/managers/scheduler.py", line 4656, in run_scheduler_process`,
  `16435     scheduler.run_event_loop()`,
  `16436   File "/usr/local/src/sglang/python/sglang/srt/managers/scheduler.py", line 1500, in run_event_loop`,
  `16437     dispatch_event_loop(self)`,
  `16438   File "/usr/local/src/sglang/python/sglang/srt/managers/scheduler.py", line 4521, in dispatch_event_loop`,
  `16439     scheduler.event_loop_overlap_disagg_decode()`,
  `16442            ^^^^^^^^^^^^^^^^^^^^^`,
  `16443   File "/usr/local/src/sglang/python/sglang/srt/disaggregation/decode.py", line 2057, in event_loop_overlap_disagg_decode`,
];

/** Each event's line, kind, time and ranks. */
function readingOf(lines: readonly string[]): unknown[] {
  return parseLines(lines).events.map((e) => [e.line, e.kind, e.tsUs, e.dp, e.tp]);
}

test("vim's number column goes: the scheduler's exception keeps its prefix's time and ranks, and every frame line continues it", () => {
  const { events, issues } = parseLines(VIM_COPY);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind]),
    [
      [1, LogKind.unparsed],
      [2, LogKind.exception],
    ],
    "vim's status line stays a line of its own, unread; the traceback is one record",
  );
  const exception = events[1]!;
  assert.equal(exception.tsUs, us("2026-07-23T15:23:26Z"));
  assert.deepEqual([exception.dp, exception.tp, exception.attrs?.ep], [2, 2, 2]);
  assert.equal(exception.text.split("\n").length, 9, "the record keeps its lines, marker line included");
  assert.equal(exception.text.split("\n")[0], VIM_COPY[1], "the event keeps the raw line, column and all");
});

test("the column is read the same at any width vim gives it, with and without a numbered blank line", () => {
  const plain = VIM_COPY.slice(1).map((l) => l.substring(6));
  const narrow = plain.map((l, i) => `${String(7 + i).padStart(3)} ${l}`);
  assert.deepEqual(readingOf(narrow), readingOf(plain));
  const withBlank = [`   9 ${plain[0]}`, `  10`, `  11 ${plain[1]}`];
  assert.deepEqual(readingOf(withBlank).map((r) => (r as unknown[])[1]), readingOf([plain[0]!, "", plain[1]!]).map((r) => (r as unknown[])[1]));
});

test("a lone numbered line, numbers that do not grow and numbers of other widths stay as they are", () => {
  const batch = (n: string, second: number): string => `${n} [2026-07-23 15:23:${second} TP0] Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0`;
  const kinds = (lines: string[]): string[] => parseLines(lines).events.map((e) => e.kind);
  // Without its number the line is SGLang's prefill batch line; with it, no dialect reads it.
  assert.deepEqual(kinds([batch("100", 26), batch("101", 27)]), [LogKind.prefillBatch, LogKind.prefillBatch]);
  assert.deepEqual(kinds([batch("100", 26)]), [LogKind.unparsed], "one numbered line may be any program's text");
  assert.deepEqual(kinds([batch("512", 26), batch("512", 27)]), [LogKind.unparsed, LogKind.unparsed], "the numbers do not grow");
  assert.deepEqual(kinds([batch("513", 26), batch("512", 27)]), [LogKind.unparsed, LogKind.unparsed], "the numbers fall");
  assert.deepEqual(kinds([batch("12", 26), batch("13", 27)]), [LogKind.unparsed, LogKind.unparsed], "narrower than vim's smallest column");
  assert.deepEqual(kinds([batch("999", 26), batch("1000", 27)]), [LogKind.unparsed, LogKind.unparsed], "vim pads a column to one width");
});

test("a run ends at a line without the column: a numbered line after it starts over, and alone keeps its number", () => {
  const batch = (second: number): string => `[2026-07-23 15:23:${second} TP0] Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0`;
  const lines = [`410 ${batch(26)}`, `411 ${batch(27)}`, batch(28), `413 ${batch(29)}`];
  assert.deepEqual(
    parseLines(lines).events.map((e) => [e.line, e.kind]),
    [
      [1, LogKind.prefillBatch],
      [2, LogKind.prefillBatch],
      [3, LogKind.prefillBatch],
      [4, LogKind.unparsed],
    ],
  );
});
