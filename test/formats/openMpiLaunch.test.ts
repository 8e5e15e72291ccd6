// Open MPI's launcher reporting a process of the job that died of a signal
// (ingest/formats/templates/platform/openMpi.ts: orterun's [orterun:proc-aborted-strsignal]
// and [orterun:proc-aborted], PRRTE's [prun:…] of the same words), or that exited non-zero
// ([orterun:non-zero-exit], help-state-base.txt's [normal-termination-but]). The first
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
  // The state machine's show-help before it is the job's non-zero exit; the launcher's report names the rank.
  assert.deepEqual(
    events.filter((e) => e.kind === LogKind.crash).map((e) => [e.line, e.attrs?.failureClass]),
    [
      [2, "crash"],
      [6, "crash"],
    ],
  );
  const crash = events.find((e) => e.kind === LogKind.crash && e.line === 6);
  assert.ok(crash !== undefined);
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

test("a process that exited non-zero, as the launcher and the state machine report it, is the job's crash", () => {
  // The help texts' words as Open MPI 4 prints them, written by hand; the exit code two lines below continues the record.
  const { events, issues } = parseLines([
    "--------------------------------------------------------------------------",
    "mpirun detected that one or more processes exited with non-zero status, thus causing",
    "the job to be terminated. The first process to do so was:",
    "",
    "  Process name: [[12345,1],0]",
    "  Exit code:    1",
    "--------------------------------------------------------------------------",
  ]);
  assert.deepEqual(issues, []);
  const crashes = events.filter((e) => e.kind === LogKind.crash);
  assert.deepEqual(crashes.map((e) => [e.line, e.attrs?.scope, e.attrs?.failureClass, e.attrs?.fatal]), [[2, "machine", "crash", true]]);
  assert.match(String(crashes[0]!.attrs?.error), /exited with a non-zero status, and mpirun ended the job/);
});
