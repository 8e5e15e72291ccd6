// A paste indented as a whole — a log pasted as a code block nested under a
// Markdown list item, a quoted e-mail — reads as its unindented self
// (ingest/formats/log/dedent.ts): the whitespace every line of a block
// carries is removed; a block with one line at the first column is left as it
// is. The tracebacks are written by hand in the shape SGLang's scheduler and
// CPython's traceback module print.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

const SCHEDULER_TRACEBACK = [
  "[2026-03-02 10:15:07 TP0] Prefill batch, #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0",
  "[2026-03-02 10:15:08 TP0] Scheduler hit an exception: Traceback (most recent call last):",
  '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2883, in run_scheduler_process',
  "    scheduler.event_loop_overlap_disagg_prefill()",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/prefill.py", line 317, in event_loop_overlap_disagg_prefill',
  "    self.process_disagg_prefill_inflight_queue()",
  "ValueError: kv indices out of range: 70112 >= 70000",
  "",
  "[2026-03-02 10:15:08] Received sigquit from a child process. It usually means the child failed.",
];

const BARE_TRACEBACK = [
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3.12/runpy.py", line 198, in _run_module_as_main',
  '    return _run_code(code, main_globals, None,',
  '  File "/usr/local/lib/python3.12/dist-packages/sglang/launch_server.py", line 14, in <module>',
  "    launch_server(server_args)",
  "RuntimeError: Failed to initialize the NIXL agent: NIXL_ERR_BACKEND",
];

const indent = (lines: readonly string[], by: string): string[] => lines.map((l) => (l === "" ? l : by + l));

/** What the reader made of a paste: each event's line, kind, exception type and message. */
function readingOf(lines: readonly string[]): unknown[] {
  return parseLines(lines).events.map((e) => [e.line, e.kind, e.attrs?.excType, e.attrs?.excMessage]);
}

test("a scheduler traceback indented by four spaces reads as its unindented self, exception line included", () => {
  const flat = readingOf(SCHEDULER_TRACEBACK);
  assert.deepEqual(flat[1], [2, LogKind.exception, "ValueError", "kv indices out of range: 70112 >= 70000"]);
  assert.deepEqual(readingOf(indent(SCHEDULER_TRACEBACK, "    ")), flat);
});

test("a bare Python traceback indented by a tab or by spaces keeps its exception line; the raw lines keep their indentation", () => {
  const flat = readingOf(BARE_TRACEBACK);
  assert.deepEqual(flat, [[1, LogKind.exception, "RuntimeError", "Failed to initialize the NIXL agent: NIXL_ERR_BACKEND"]]);
  assert.deepEqual(readingOf(indent(BARE_TRACEBACK, "\t")), flat);
  const { events } = parseLines(indent(BARE_TRACEBACK, "    "));
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.attrs?.excType]), [[1, LogKind.exception, "RuntimeError"]]);
  assert.equal(events[0]!.text.split("\n")[5], "    RuntimeError: Failed to initialize the NIXL agent: NIXL_ERR_BACKEND");
});

test("blank lines inside an indented paste, empty or not, do not cut its deeper lines loose", () => {
  const chained = [
    ...BARE_TRACEBACK.slice(0, 3),
    "",
    ...BARE_TRACEBACK.slice(3),
    "",
    "During handling of the above exception, another exception occurred:",
    "",
    ...BARE_TRACEBACK,
  ];
  const flat = readingOf(chained);
  assert.deepEqual(readingOf(chained.map((l) => (l === "" ? "    " : "    " + l))), flat);
  assert.deepEqual(readingOf(indent(chained, "    ")), flat);
});

test("a block with one line at the first column keeps its indentation: continuation lines stay their head's", () => {
  const lines = [
    "[2026-03-02 10:15:07 TP0] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16",
    "",
    "    avail mem=36.61 GB, mem usage=7.56 GB.",
    "[2026-03-02 10:15:09 TP0] Memory pool end. avail mem=21.66 GB",
  ];
  const { events } = parseLines(lines);
  assert.deepEqual(events.map((e) => [e.line, e.text.split("\n").length]), [[1, 3], [4, 1]]);
});

test("an indented paste after an unindented block of the same file loses its own indentation", () => {
  const flat = readingOf([SCHEDULER_TRACEBACK[0]!, "", ...BARE_TRACEBACK]);
  assert.deepEqual(flat[1], [3, LogKind.exception, "RuntimeError", "Failed to initialize the NIXL agent: NIXL_ERR_BACKEND"]);
  assert.deepEqual(readingOf([SCHEDULER_TRACEBACK[0]!, "", ...indent(BARE_TRACEBACK, "  ")]), flat);
});
