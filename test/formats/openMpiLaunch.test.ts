// Open MPI's launcher reporting a process of the job that died of a signal
// (ingest/formats/templates/platform/openMpi.ts: orterun's [orterun:proc-aborted-strsignal]
// and [orterun:proc-aborted], PRRTE's [prun:…] of the same words). The first
// test's lines are the working half's tensorrt-llm-1700-a, as pasted; the
// second's are written by hand from the two help texts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("mpirun's report of a rank killed by SIGKILL, between its lines of dashes, is that rank's crash on its node", () => {
  const { events, issues } = parseLines([
    "--------------------------------------------------------------------------",
    "Primary job  terminated normally, but 1 process returned",
    "a non-zero exit code. Per user-direction, the job has been aborted.",
    "--------------------------------------------------------------------------",
    "--------------------------------------------------------------------------",
    "mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on signal 9 (Killed).",
  ]);
  assert.deepEqual(issues, []);
  const crash = events.find((e) => e.kind === LogKind.crash);
  assert.ok(crash !== undefined);
  assert.equal(crash.line, 6);
  assert.deepEqual(
    [crash.attrs?.scope, crash.attrs?.node, crash.attrs?.mpiRank, crash.attrs?.pid, crash.attrs?.signal, crash.attrs?.failureClass, crash.attrs?.fatal],
    ["machine", "xxxxxxxx", 6, 0, "SIGKILL", "crash", true],
  );
  assert.equal(crash.attrs?.error, "MPI rank 6 (PID 0) on xxxxxxxx: killed by SIGKILL (Killed), as mpirun noticed");
  assert.equal(crash.tp, undefined, "an MPI rank is not the line's TP rank");
});

test("a segfault is classed so; a signal the launcher names by number alone is still a crash; other mpirun words are not this report", () => {
  const { events, issues } = parseLines([
    "mpiexec noticed that process rank 1 with PID 31842 on node gpu-node-2 exited on signal 11 (Segmentation fault).",
    "prterun noticed that process rank 3 with PID 7755 on node dgx-04 exited on signal 6.",
    "prterun noticed that process rank 0 with PID 12 on node dgx-05 exited on signal 64.",
    "mpirun noticed that the job aborted, but has no info as to the process",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.node, e.attrs?.signal, e.attrs?.failureClass]),
    [
      [LogKind.crash, "gpu-node-2", "SIGSEGV", "segfault"],
      [LogKind.crash, "dgx-04", "SIGABRT", "crash"],
      [LogKind.crash, "dgx-05", undefined, "crash"],
      [LogKind.unparsed, undefined, undefined, undefined],
    ],
  );
  assert.equal(events[2]!.attrs?.error, "MPI rank 0 (PID 12) on dgx-05: killed by signal 64, as prterun noticed");
});
