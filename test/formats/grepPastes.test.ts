// Lines pasted as `grep -n` printed them over several files: each after its
// file's name and line number (ingest/formats/log/pasted.ts, withoutGrepHead).
// The lines are from LMCache/LMCache#1467 (the working half of test/corpus),
// docker json-file records of a vLLM engine, shortened to two; the context
// line is written by hand in the same shape.

import { test } from "node:test";
import assert from "node:assert/strict";
import { wrapperOfHead } from "../../ingest/formats/log/head.js";
import { withoutGrepHead } from "../../ingest/formats/log/pasted.js";
import { parseLines } from "./sglangHarness.js";

const FILE = "f847ae6028a2e57a897cb6363183cb8ba0501b046578d920111140fd4d154231-json.log";
const GREPPED = [
  `${FILE}:190174:{"log":"\\u001b[1;36m(EngineCore_0 pid=312)\\u001b[0;0m ERROR 08-29 05:22:59 [core.py:702] EngineCore encountered a fatal error.\\r\\n","stream":"stdout","time":"2025-08-29T05:22:59.908224046Z"}`,
  `${FILE}-190175-{"log":"\\u001b[1;36m(EngineCore_0 pid=312)\\u001b[0;0m ERROR 08-29 05:22:59 [core.py:702] Traceback (most recent call last):\\r\\n","stream":"stdout","time":"2025-08-29T05:22:59.908240123Z"}`,
];

test("grep -n's file name and line number before docker json-file records: the wrapper is found and its lines read", () => {
  assert.equal(wrapperOfHead(GREPPED.join("\n"))?.name, "docker-json");
  const { events, issues } = parseLines(GREPPED, { wrapper: "docker-json" });
  assert.deepEqual(issues, []);
  assert.equal(events.length, 1, "the traceback's header line continues the fatal error's record");
  assert.equal(events[0]!.attrs?.level, "error");
  assert.equal(events[0]!.text.split("\n")[0], GREPPED[0], "the event keeps the raw line");
});

test("only a log file's name and number go: a source file's place stays", () => {
  assert.equal(withoutGrepHead("server.log.1:12:[2026-03-02 10:15:07 TP0] Prefill batch"), "[2026-03-02 10:15:07 TP0] Prefill batch");
  assert.equal(withoutGrepHead("logs/decode-0.txt-7-  File \"x.py\", line 3, in f"), "  File \"x.py\", line 3, in f");
  const warning = "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.";
  assert.equal(withoutGrepHead(warning), warning);
  assert.equal(withoutGrepHead("csrc/allreduce.cu:120:5: error: no member named 'x'"), "csrc/allreduce.cu:120:5: error: no member named 'x'");
  assert.equal(parseLines(["app.log:3:ERROR: bootstrap failed"]).events[0]!.attrs?.level, "error");
});
