// Records whose first lines a paste or a search window cut, or whose
// indentation a paste stripped (ingest/formats/log/records.ts, traceback.ts,
// unread.ts). The lines are from pastes in public issue threads (the working
// half of test/corpus; the held-back half is never used to write tests); an
// exception line the paste cut is written by hand in the same shape.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { wrapperOfHead } from "../../ingest/formats/log/head.js";
import { parseLines } from "./sglangHarness.js";

const CUT_BACKTRACE = [
  "frame #3: <unknown function> + 0xdc253 (0x7f882f410253 in /usr/lib/x86_64-linux-gnu/libstdc++.so.6)",
  "frame #4: <unknown function> + 0x94ac3 (0x7f8831f90ac3 in /usr/lib/x86_64-linux-gnu/libc.so.6)",
  "frame #5: <unknown function> + 0x126850 (0x7f8832022850 in /usr/lib/x86_64-linux-gnu/libc.so.6)",
  "",
  "Fatal Python error: Aborted",
];

test("C++ backtrace frames whose error line was cut are one exception record, before the crash below them", () => {
  const { events } = parseLines(CUT_BACKTRACE);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [5, LogKind.crash]]);
  assert.equal(events[0]!.attrs?.what, "a C++ backtrace whose error line is not in the log");
  assert.equal(events[0]!.text.split("\n").length, 4, "the frames and the blank line after them");
});

test("the lines PyTorch appends to a CUDA error, pasted without the error line above them, are one CUDA-error exception record", () => {
  // deepseek-ai/DeepEP#128: a paste that starts at the tail of the error's message.
  const { events } = parseLines([
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception]]);
  assert.equal(events[0]!.attrs?.what, "the lines PyTorch appends to a CUDA error, whose error line is not in the log");
  assert.equal(events[0]!.attrs?.failureClass, "cuda-error");
});

test("a line that only mentions CUDA_LAUNCH_BLOCKING in a sentence of its own is not a CUDA error's tail", () => {
  const { events } = parseLines(["Tip: set CUDA_LAUNCH_BLOCKING=1 when debugging kernels"]);
  assert.notEqual(events[0]?.kind, LogKind.exception);
});

test("under kubectl --timestamps, `<time> frame #15: …` lines are that wrapper's, not journald's `<time> <host> <unit>: …`", () => {
  const lines = [
    "2025-11-10T09:50:25.136395428Z frame #15: sglang::scheduler_TP0() [0x59e4a6]",
    "2025-11-10T09:50:25.136398071Z frame #16: _PyEval_EvalFrameDefault + 0x5102 (0x54ece2 in sglang::scheduler_TP0)",
    "2025-11-10T09:50:25.136400622Z frame #17: PyEval_EvalCode + 0x99 (0x620799 in sglang::scheduler_TP0)",
    "2025-11-10T09:50:25.136402743Z frame #18: sglang::scheduler_TP0() [0x65c44b]",
    "2025-11-10T09:50:25.136422568Z Fatal Python error: Aborted",
  ];
  assert.equal(wrapperOfHead(lines.join("\n"))?.name, "kubectl");
  const { events } = parseLines(lines, { wrapper: "kubectl" });
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [5, LogKind.crash]]);
});

const STRIPPED = [
  "[2025-02-09 21:23:00 TP2] Scheduler hit an exception: Traceback (most recent call last):",
  'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1787, in run_scheduler_process',
  "scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)",
  'File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 240, in init',
  "self.tp_worker = TpWorkerClass(",
  'File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 253, in init_torch_distributed',
  "initialize_model_parallel(tensor_model_parallel_size=self.tp_size)",
];

test("a traceback whose indentation the paste stripped: every frame and source line is the scheduler's one record", () => {
  const { events } = parseLines(STRIPPED);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception]]);
  assert.equal(events[0]!.text.split("\n").length, STRIPPED.length);
  assert.equal(events[0]!.attrs?.excType, undefined, "the exception line is not in the paste");
});

test("a stripped traceback still ends at its exception line; the next line opens a record of its own", () => {
  const { events } = parseLines([...STRIPPED, "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)", "Killed"]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [9, LogKind.crash]]);
  assert.equal(events[0]!.attrs?.excType, "RuntimeError");
  assert.equal(events[0]!.attrs?.failureClass, "nccl");
});

// ascend/sglang#135: the paste starts at the last frame; the marker line under its source lost its indentation.
const FROM_LAST_FRAME = [
  'File "/usr/local/python3.11.14/lib/python3.11/site-packages/sglang/srt/models/deepseek_v2.py", line 1453, in forward_core',
  "    return forward_dsa_core_npu(self, *inner_state)",
  "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
  "TypeError: forward_dsa_core_npu() missing 1 required positional argument: 'v'",
];

test("a paste that starts at a frame line: its source, its unindented marker line and its exception line are one record", () => {
  const { events } = parseLines(FROM_LAST_FRAME);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception]]);
  assert.equal(events[0]!.text.split("\n").length, 4);
  assert.equal(events[0]!.attrs?.excType, "TypeError");
  assert.equal(events[0]!.attrs?.excMessage, "forward_dsa_core_npu() missing 1 required positional argument: 'v'");
});

test("a marker line that lost its indentation is not a stripped traceback's exception line", () => {
  const { events } = parseLines([
    "Traceback (most recent call last):",
    'File "/usr/local/python3.11.14/lib/python3.11/site-packages/sglang/srt/models/deepseek_v2.py", line 1453, in forward_core',
    "return forward_dsa_core_npu(self, *inner_state)",
    "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    "TypeError: forward_dsa_core_npu() missing 1 required positional argument: 'v'",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception]]);
  assert.equal(events[0]!.attrs?.excType, "TypeError");
});

// ai-dynamo/dynamo#2998: the paste starts inside the frames (indented); the exception is a nixl binding's class.
const FROM_INDENTED_FRAMES = [
  '  File "/home/kunxiong/Code/dynamo/dynamo/lib/python3.12/site-packages/nixl/_api.py", line 508, in check_xfer_state',
  "    status = self.agent.getXferStatus(handle)",
  "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
  "nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND",
  "free(): invalid pointer",
];

test("indented frames at the start of a paste end at their exception line, whatever its class's case; the next line is its own", () => {
  const { events } = parseLines(FROM_INDENTED_FRAMES);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [5, LogKind.crash]]);
  assert.equal(events[0]!.attrs?.excType, "nixl._bindings.nixlNotFoundError");
  assert.equal(events[0]!.attrs?.excMessage, "NIXL_ERR_NOT_FOUND");
});

test("a frame line opens a traceback only at the start of its line: a message that quotes one is not a traceback", () => {
  const { events } = parseLines(['Error in File "/x.py", line 3, in f', "next line"]);
  assert.deepEqual(events.map((e) => e.line), [1, 2]);
});

// sgl-project/sglang#22592: frames copied out of a JSON-encoded log record, each quote escaped (RFC 8259 §7), at column 0.
const JSON_ESCAPED_FRAMES = [
  String.raw`File \"/sgl-workspace/sglang/python/sglang/srt/mem_cache/hi_mamba_radix_cache.py\", line 709, in evict_host`,
  "  num_evicted += self._evict_host_leaf(x)",
  "                 ^^^^^^^^^^^^^^^^^^^^^^^^",
  String.raw`File \"/sgl-workspace/sglang/python/sglang/srt/mem_cache/hi_mamba_radix_cache.py\", line 603, in _delete_tombstone_leaf`,
  String.raw`  assert v == node, f\"parent does not have child key, {key}\"`,
  "         ^^^^^^^^^",
];

test("frames copied out of a JSON log keep JSON's escaped quotes: still one traceback record, its header and exception line cut", () => {
  const { events } = parseLines(JSON_ESCAPED_FRAMES);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception]]);
  assert.equal(events[0]!.text.split("\n").length, JSON_ESCAPED_FRAMES.length);
  assert.equal(events[0]!.attrs?.what, "Python traceback frames whose header and exception line are not in the log");
});

test("a JSON-escaped traceback ends at its exception line like any other; the next line opens a record of its own", () => {
  const { events } = parseLines([...JSON_ESCAPED_FRAMES, "AssertionError: parent does not have child key, 42", "Killed"]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [8, LogKind.crash]]);
  assert.equal(events[0]!.attrs?.excType, "AssertionError");
  assert.equal(events[0]!.attrs?.excMessage, "parent does not have child key, 42");
});

test("an escaped quote opens a frame only as a whole frame line: a line that quotes a path with it is not a traceback", () => {
  const { events } = parseLines([String.raw`File \"/x.py\" was not found`, "next line"]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.unparsed], [2, LogKind.unparsed]]);
});
