// A multi-node server's job output under Slurm, in the shapes an operator
// finds it: `slurm-{job}.out` of an sbatch job (the server's lines, then
// slurmstepd's and srun's own), and `srun --label`'s stream, where srun's own
// lines come unlabelled. Lines written by hand from Slurm's format strings
// (docs/log-templates.md "The job: Slurm's srun and slurmstepd").

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { detectWrapper } from "../../ingest/formats/wrappers/index.js";
import { parseLines, us } from "./sglangHarness.js";

const BATCH = "[2026-06-11 14:07:10 TP0] Prefill batch. #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.12, #running-req: 0, #queue-req: 0";

test("slurm-1234.out: a task's death names its node and Slurm task, no TP rank; srun's teardown lines are messages", () => {
  const lines = [
    BATCH,
    "srun: error: node-3: task 1: Killed",
    "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    "srun: forcing job termination",
    "srun: error: node-[1-2]: tasks 0,2: Exited with exit code 1",
  ];
  const { events, issues } = parseLines(lines);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.scope, e.attrs?.node, e.attrs?.task, e.attrs?.tasks, e.attrs?.failureClass, e.attrs?.level, e.tp]),
    [
      ["batch.prefill", undefined, undefined, undefined, undefined, undefined, undefined, 0],
      [LogKind.crash, "machine", "node-3", 1, undefined, "crash", undefined, undefined],
      [LogKind.message, undefined, undefined, undefined, undefined, undefined, "info", undefined],
      [LogKind.message, undefined, undefined, undefined, undefined, undefined, "warning", undefined],
      [LogKind.crash, "machine", "node-[1-2]", undefined, "0,2", "crash", undefined, undefined],
    ],
  );
  // The line names a node, not the file's machine: the event keeps the file's host, the node is an attribute.
  assert.equal(events[1]!.host, undefined);
  assert.equal(events[1]!.attrs?.signal, "SIGKILL");
});

test("a cancellation is dated by the time it states, read in the node's zone; a step's OOM kills are the job's", () => {
  const lines = [
    "slurmstepd: error: *** JOB 1234 ON node-3 CANCELLED AT 2026-06-11T16:07:12 DUE TO TIME LIMIT ***",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=1234.0. Some of the step tasks have been OOM Killed.",
  ];
  const { events, issues } = parseLines(lines, { tzOffsetMinutes: 120 });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.scope, e.attrs?.job, e.attrs?.failureClass, e.attrs?.fatal]), [
    [LogKind.crash, "job", "1234", "time-limit", true],
    [LogKind.crash, "job", "1234.0", "host-oom", true],
  ]);
  assert.equal(events[0]!.tsUs, us("2026-06-11T14:07:12Z"));
  assert.equal(events[0]!.tsInferred, undefined);
  assert.equal(events[1]!.tsInferred, true, "the OOM line states no time");
});

test("a Slurm line no row reads keeps its level: an error is a failure, an info line a message", () => {
  const { events, issues } = parseLines([BATCH, "srun: error: Timed out waiting for job step to complete", "srun: Requested partition configuration not available now"]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.slice(1).map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.error, "error"],
    [LogKind.message, "info"],
  ]);
  assert.equal(events[1]!.attrs?.error, "Timed out waiting for job step to complete");
});

test("srun --label: srun's own unlabelled lines are the stream's, no line of a task and no error of the wrapper", () => {
  const lines = [
    `0: ${BATCH}`,
    `1: ${BATCH}`,
    `0: ${BATCH}`,
    `1: ${BATCH}`,
    "srun: error: gpu-node-1: task 1: Segmentation fault (core dumped)",
    `0: ${BATCH}`,
  ];
  assert.equal(detectWrapper(lines)?.name, "srun-label");
  const { events, issues } = parseLines(lines, { wrapper: "srun-label" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.host, e.attrs?.node, e.attrs?.failureClass]), [
    ["batch.prefill", "task-0", undefined, undefined],
    ["batch.prefill", "task-1", undefined, undefined],
    ["batch.prefill", "task-0", undefined, undefined],
    ["batch.prefill", "task-1", undefined, undefined],
    [LogKind.crash, undefined, "gpu-node-1", "segfault"],
    ["batch.prefill", "task-0", undefined, undefined],
  ]);
});

test("an SGLang line that quotes srun's words is SGLang's, and a word that only starts like srun's is no Slurm line", () => {
  const { events } = parseLines([
    "[2026-06-11 14:07:10 TP0] srun: error: node-3: task 1: Killed",
    "sruns: error: node-3: task 1: Killed",
    "slurmstepdx error: *** JOB 1234 ON node-3 CANCELLED AT 2026-06-11T16:07:12 DUE TO TIME LIMIT ***",
  ]);
  assert.deepEqual(events.map((e) => e.attrs?.scope), [undefined, undefined, undefined]);
});
