// A thread dump a user took of a server that stopped answering (py-spy's `dump`, ingest/formats/log/pyspyDump.ts),
// judged by process-failure: a scheduler caught waiting in a collective or a transfer is that rank's failure, at
// medium, with what one dump cannot say; a scheduler caught waiting for requests is none. Written by hand in py-spy's
// format, the frames named after functions of PyTorch's and SGLang's sources.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";
import { scratchDir } from "../scratchDir.js";
import { analyzeCli, violated } from "./handBundles.js";

function report(name: string, lines: string[]): AnalysisReport {
  const file = join(scratchDir("kvrewind-stack-dumps-"), name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return JSON.parse(analyzeCli(file, "--json").stdout) as AnalysisReport;
}

test("a user's py-spy dump of a scheduler caught in a collective is that rank's failure, medium, with what one dump cannot say; a dump of an idle scheduler is none", () => {
  const header = ["Process 48211: sglang::scheduler_TP3", "Python v3.10.12 (/usr/bin/python3.10)", "", 'Thread 48211 (idle): "MainThread"'];
  const r = report("pyspy-tp3.txt", [...header, "    all_reduce (torch/distributed/distributed_c10d.py:2501)", "    poll_and_all_reduce (sglang/srt/disaggregation/utils.py:84)"]);
  const [failure, ...others] = violated(r, "process-failure");
  assert.equal(others.length, 0);
  assert.equal(failure!.severity, "medium");
  assert.equal(failure!.title, "unknown/tp3 was caught waiting: py-spy's dump: MainThread (idle) in all_reduce (torch/distributed/distributed_c10d.py:2501), a collective");
  assert.match(failure!.explanation, /A dump is one instant: whether the rank stayed in that wait/);
  assert.match(failure!.falsify, /twice, a minute apart/);
  const idle = report("pyspy-tp3.txt", [...header, "    recv_pyobj (zmq/sugar/socket.py:1034)", "    recv_requests (sglang/srt/managers/scheduler.py:1021)"]);
  assert.deepEqual(violated(idle, "process-failure"), []);
});
