// A finding quotes the line its program wrote, not the envelope a runtime or a collector put around it: a record
// keeps its raw text as evidence, and the program's first line beside it (ingest/formats/log/records.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeLines as report, violated } from "./handBundles.js";

// A decode pod's faulthandler dump and a Mooncake prefill's session failure as `kubectl logs` shows CRI's file
// (`/var/log/pods/…/0.log`: the runtime's time, the stream, `F`), then as Fluent Bit ships that file's lines.
const DUMP = [
  "[2026-06-11 14:07:10 DP0 TP0] Decode batch, #running-req: 48, #token: 331200, token usage: 0.69, pre-allocated usage: 0.01, #prealloc-req: 0, #transfer-req: 3, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2318.40, #queue-req: 0",
  "Fatal Python error: Segmentation fault",
  "",
  "Current thread 0x00007f2d6a9ff740 (most recent call first):",
  '  File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/nsa_backend.py", line 1204 in forward_decode',
  '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3126 in run_scheduler_process',
];

const cri = (lines: readonly string[]) => lines.map((l, i) => `2026-06-11T14:07:1${i === 0 ? 0 : 1}.${String(100000000 + i).slice(1)}Z stderr F ${l}`);

test("a CRI-wrapped faulthandler dump: the finding quotes `Fatal Python error`, not the runtime's envelope", () => {
  const [death] = violated(report("sglang-decode-0_llm_sglang-1.log", cri(DUMP)), "process-failure");
  assert.match(death!.title, /died: Fatal Python error: Segmentation fault in forward_decode/);
  assert.doesNotMatch(death!.title, /stderr F/);
  // The evidence stays the file's own line.
  assert.match(death!.witness[0]!.text ?? "", /^2026-06-11T14:07:11\.\d+Z stderr F Fatal Python error/);
});

test("Fluent Bit's records of the same lines: the finding quotes the program's line, not the JSON record", () => {
  const lines = cri(DUMP).map((log) => JSON.stringify({ log, stream: "stderr", kubernetes: { pod_name: "sglang-decode-0", host: "gpu-node-2" } }));
  const [death] = violated(report("fluent-bit.jsonl", lines), "process-failure");
  assert.match(death!.title, /died: Fatal Python error: Segmentation fault in forward_decode/);
  assert.doesNotMatch(death!.title, /[{}]|kubernetes/);
});
