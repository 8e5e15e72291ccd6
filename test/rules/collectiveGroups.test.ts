// One decision on collective divergence: two prefill instances on two hosts
// are two process groups (their collective seqs count independently), and the
// culprits are every rank of the minority. The model decides; the rule and
// the UI's state view show that decision.

import { test } from "node:test";
import assert from "node:assert/strict";
import { runRule } from "../../analyzer/rules/index.js";
import { collectiveDivergence } from "../../analyzer/rules/collectiveDivergence.js";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { replayEvidenceOf } from "../../analyzer/rules/replayEvidence.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { stateAt } from "../../analyzer/replay/timeTravel.js";
import { culpritMark, divergenceNote, sortCollectives } from "../../ui/view/collectives.js";
import { buildIncident, type SourceFile } from "./incidentBuilder.js";
import { decodeBatch, lines } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";

const GROUP = "tp_cpu";

/** One scheduler iteration: the recv_requests broadcast, then the inflight-queue all_reduce (docs/hicache-indexk.md §3.2–§3.3). */
function iteration(r: Rank, sec: number, seq: number, iter: number): string[] {
  const t = sec + r.tp * 0.0001;
  return [
    probe(t, r, "coll.enter", { group: GROUP, op: "broadcast", seq, site: "recv_requests" }),
    probe(t + 0.001, r, "coll.exit", { group: GROUP, op: "broadcast", seq, site: "recv_requests" }),
    probe(t + 0.002, r, "sched.iter", { iter, branch: "run_batch" }),
    probe(t + 0.003, r, "coll.enter", { group: GROUP, op: "all_reduce", seq: seq + 1, site: "process_disagg_prefill_inflight_queue" }),
    probe(t + 0.004, r, "coll.exit", { group: GROUP, op: "all_reduce", seq: seq + 1, site: "process_disagg_prefill_inflight_queue" }),
  ];
}

/**
 * p0: four ranks in step; its seq 101 is an all_reduce. p1: six ranks whose
 * count is one behind (its seq 101 is a broadcast); then tp2 and tp5 branch
 * to on_idle and enter the next recv_requests broadcast while the other four
 * enter the inflight all_reduce with the same seq (§3.5, §3.6) and wait there.
 */
function twoInstances(): SourceFile[] {
  const p0 = [0, 1, 2, 3].map((tp) => {
    const r: Rank = { host: "p0", role: "prefill", tp };
    return { path: `p0/probe-tp${tp}.jsonl`, text: lines([0, 1, 2].flatMap((i) => iteration(r, 10 + i, 100 + i * 2, 500 + i))) };
  });
  const p1 = [0, 1, 2, 3, 4, 5].map((tp) => {
    const r: Rank = { host: "p1", role: "prefill", tp };
    const history = [0, 1].flatMap((i) => iteration(r, 10.5 + i, 101 + i * 2, 700 + i));
    const idle = tp === 2 || tp === 5;
    const wedge = idle
      ? [probe(14.002, r, "sched.iter", { iter: 702, branch: "on_idle" }), probe(14.02 + tp * 0.0001, r, "coll.enter", { group: GROUP, op: "broadcast", seq: 105, site: "recv_requests" })]
      : [probe(14.002, r, "sched.iter", { iter: 702, branch: "process_batch_result" }), probe(14.003 + tp * 0.0001, r, "coll.enter", { group: GROUP, op: "all_reduce", seq: 105, site: "process_disagg_prefill_inflight_queue" })];
    return { path: `p1/probe-tp${tp}.jsonl`, text: lines(history, wedge) };
  });
  const decode: SourceFile = { path: "d0/decode-tp0.log", text: lines(decodeBatch(60, 58), decodeBatch(120, 58), decodeBatch(180, 58)) };
  return [...p0, ...p1, decode];
}

test("two prefill hosts are two groups; the model, the rule and the state view name the same group and every culprit", async () => {
  const db = await buildIncident(twoInstances());
  const replay = replayEvidenceOf(replayIncident(db));
  const decided = replay.violations.filter((v) => v.check === "collective-divergence");
  assert.deepEqual(
    decided.map((v) => [v.detail.group, v.detail.collectiveSeq, v.detail.kind, v.detail.culprits, v.detail.culpritBranches, v.detail.hang]),
    [["p1/prefill:tp_cpu", 105, "op-mismatch", ["p1/prefill/tp2", "p1/prefill/tp5"], ["on_idle", "on_idle"], true]],
    "p0's seqs are its own: p0 #101 all_reduce beside p1 #101 broadcast is no divergence",
  );
  assert.deepEqual(decided[0]!.detail.inside, ["p1/prefill/tp0", "p1/prefill/tp1", "p1/prefill/tp3", "p1/prefill/tp4"]);

  const { findings } = runRule(collectiveDivergence, new Evidence(db), replay);
  const violated = findings.filter((f) => f.verdict === "violated");
  assert.equal(violated.length, 1);
  assert.deepEqual(violated[0]!.facts?.culprits, ["p1/prefill/tp2", "p1/prefill/tp5"]);
  assert.deepEqual(violated[0]!.facts?.onIdle, ["p1/prefill/tp2", "p1/prefill/tp5"]);
  assert.equal(violated[0]!.facts?.seq, 105);
  assert.match(violated[0]!.title, /^Group tp_cpu \(p1\/prefill\) diverges at collective #105: p1\/prefill\/tp2, p1\/prefill\/tp5 went to on_idle instead of all_reduce; deadlocked$/);

  const view = stateAt(db, { tsUs: Number.MAX_SAFE_INTEGER });
  assert.deepEqual(
    view.collectiveDivergences.map((d) => [d.group, d.seq, d.op, d.culprits]),
    [["p1/prefill:tp_cpu", 105, "all_reduce", ["p1/prefill/tp2", "p1/prefill/tp5"]]],
  );
  const marked = sortCollectives(view.collectives).filter((c) => culpritMark(c, view.collectiveDivergences).atSplit).map((c) => c.rank);
  assert.deepEqual(marked, ["p1/prefill/tp2", "p1/prefill/tp5"]);
  assert.equal(divergenceNote(view.collectiveDivergences[0]!), "p1/prefill tp_cpu: 2 ranks part ways at seq 105 (p1/prefill/tp2, p1/prefill/tp5); the others are in all_reduce #105");
});

test("the rank that entered first is a culprit when it is the minority (no 'first rank is right')", async () => {
  const files = [0, 1, 2].map((tp) => {
    const r: Rank = { host: "p0", role: "prefill", tp };
    const history = iteration(r, 10, 100, 500);
    const last = tp === 0
      ? [probe(11, r, "sched.iter", { iter: 501, branch: "on_idle" }), probe(11.001, r, "coll.enter", { group: GROUP, op: "broadcast", seq: 102, site: "recv_requests" })]
      : [probe(11.01, r, "coll.enter", { group: GROUP, op: "all_reduce", seq: 102, site: "process_disagg_prefill_inflight_queue" })];
    return { path: `p0/probe-tp${tp}.jsonl`, text: lines(history, last) };
  });
  const db = await buildIncident(files);
  const replay = replayEvidenceOf(replayIncident(db));
  const decided = replay.violations.filter((v) => v.check === "collective-divergence");
  assert.deepEqual(decided.map((v) => [v.detail.culprits, v.detail.inside, v.rank]), [[["prefill/tp0"], ["prefill/tp1", "prefill/tp2"], "prefill/tp0"]]);
});
