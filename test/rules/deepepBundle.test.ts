// A hand-written bundle of a two-node expert-parallel decode (test/bundles/README.md, deepep-straggler): DeepSeek-V3
// with DP attention over 16 ranks and DeepEP's low-latency kernels, one stdout file per machine holding its eight
// ranks' lines. Every rank's batches stop at 14:06:40; DeepEP's kernels print, without a prefix, that each rank's
// dispatch receive timed out waiting on src_rank 3; three schedulers then fail on the kernels' trap (`CUDA error:
// unspecified launch failure`) and each machine's server exits. Rank 3 itself prints nothing.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { iterateEvents } from "../../store/read/events.js";
import { bundle, cleanUp, violated } from "./handBundles.js";

after(cleanUp);

test("DeepEP's timeouts all wait on one rank that reports none: that rank is named as where the stall starts, before the CUDA errors it ends in", async () => {
  const { report } = await bundle("deepep-straggler");
  const failures = violated(report, "process-failure");
  const stall = failures.find((f) => /DeepEP dispatch receive timeout/.test(f.title));
  assert.ok(stall, failures.map((f) => f.title).join(" | "));
  assert.match(stall.explanation, /Each of its 15 DeepEP timeouts waited on rank 3, which reports no timeout of its own: rank 3 did not send its part/);
  const trap = failures.find((f) => /CUDA error: unspecified launch failure/.test(f.title));
  assert.ok(trap, "the schedulers' CUDA errors are a finding of their own");
  assert.deepEqual([...trap.ranks].sort(), ["gpu-node-0/decode/tp0", "gpu-node-1/decode/tp11", "gpu-node-1/decode/tp8"]);
  assert.ok(Date.parse(stall.ts!) < Date.parse(trap.ts!), "the timeouts come before the errors they end in");
  // DeepEP's device prints state no time: the report gives the bounds the lines around them state, not an instant.
  assert.match(stall.explanation, /at a time its line does not state, between 2026-06-11T14:06:40\.000Z and 2026-06-11T14:08:21\.000Z \(gpu-node-1\/decode\.log:154\)/);
  // The server runs on both machines (nnodes=2): each shows its own eight ranks, and none is missing.
  assert.deepEqual(violated(report, "evidence-gap").filter((f) => /Ranks missing/.test(f.title)).map((f) => f.explanation), []);
  const first = report.suspects[0]!;
  assert.equal(first.cause, "process-crash");
  assert.match(first.summary, /the DeepEP timeouts waited on rank 3, which reported none itself/);
});

test("one stdout per machine of eight DP-attention ranks, DeepEP's unprefixed prints among them: every line is read, each folder its own host", async () => {
  const { db } = await bundle("deepep-straggler");
  const events = [...iterateEvents(db)];
  assert.deepEqual(events.filter((e) => e.kind === LogKind.unparsed).map((e) => e.text), []);
  assert.deepEqual([...new Set(events.map((e) => e.host))].sort(), ["gpu-node-0", "gpu-node-1"]);
  const batchRanks = (host: string): number[] => [...new Set(events.filter((e) => e.host === host && e.kind === LogKind.decodeBatch).map((e) => e.tp!))].sort((a, b) => a - b);
  assert.deepEqual(batchRanks("gpu-node-0"), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(batchRanks("gpu-node-1"), [8, 9, 10, 11, 12, 13, 14, 15]);
  const timeouts = events.filter((e) => e.kind === LogKind.watchdog && e.attrs?.backend === "deepep");
  assert.equal(timeouts.length, 15);
  assert.ok(timeouts.every((e) => e.attrs?.srcRank === 3 && e.attrs?.rank !== 3));
});
