import { runRule } from "../../analyzer/rules/index.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { collectiveDivergence } from "../../analyzer/rules/collectiveDivergence.js";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { replayEvidenceOf } from "../../analyzer/rules/replayEvidence.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import type { IncidentDb } from "../../store/db.js";
import { buildIncident, type SourceFile } from "./incidentBuilder.js";
import { decodeBatch, lines, prefillBatch } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";

const GROUP = "tp_cpu";
const rank = (tp: number): Rank => ({ host: "p0", role: "prefill", tp });

/** One scheduler iteration every rank goes through alike (docs/hicache-indexk.md §3.2–§3.3). */
function matchedIteration(tp: number, sec: number, seq: number, iter: number): string[] {
  const r = rank(tp);
  const t = sec + tp * 0.0001;
  return [
    probe(t, r, "coll.enter", { group: GROUP, op: "broadcast", seq, site: "recv_requests" }),
    probe(t + 0.001, r, "coll.exit", { group: GROUP, op: "broadcast", seq, site: "recv_requests" }),
    probe(t + 0.002, r, "sched.iter", { iter, branch: "run_batch" }),
    probe(t + 0.003, r, "coll.enter", { group: GROUP, op: "all_reduce", seq: seq + 1, site: "process_disagg_prefill_inflight_queue" }),
    probe(t + 0.004, r, "coll.exit", { group: GROUP, op: "all_reduce", seq: seq + 1, site: "process_disagg_prefill_inflight_queue" }),
  ];
}

/**
 * Four prefill ranks run three iterations in step; then tp2 branches to
 * on_idle and enters the next recv_requests broadcast while its peers enter
 * the inflight poll all_reduce with the same seq (§3.5, §3.6).
 */
function desync(tps = [0, 1, 2, 3]): SourceFile[] {
  return tps.map((tp) => {
    const history = [0, 1, 2].flatMap((i) => matchedIteration(tp, 10 + i, 100 + i * 2, 500 + i));
    const r = rank(tp);
    const wedge =
      tp === 2
        ? [probe(14.002, r, "sched.iter", { iter: 503, branch: "on_idle" }), probe(14.02, r, "coll.enter", { group: GROUP, op: "broadcast", seq: 106, site: "recv_requests" })]
        : [
            probe(14.002, r, "sched.iter", { iter: 503, branch: "process_batch_result" }),
            probe(14.003 + tp * 0.0001, r, "coll.enter", { group: GROUP, op: "all_reduce", seq: 106, site: "process_disagg_prefill_inflight_queue" }),
          ];
    return { path: `p0/probe-tp${tp}.jsonl`, text: lines(history, wedge) };
  });
}

/** The rule on the incident and the model's replay of it, as analyze runs it. */
const judged = (db: IncidentDb) => runRule(collectiveDivergence, new Evidence(db), replayEvidenceOf(replayIncident(db)));

const decodeLog: SourceFile = { path: "d0/decode-tp0.log", text: lines(decodeBatch(60, 58), decodeBatch(120, 58), decodeBatch(180, 58)) };

test("a rank that took on_idle and entered another op at the same seq is the culprit of a deadlock", async () => {
  const db = await buildIncident([...desync(), decodeLog]);
  const { findings, checked } = judged(db);
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.severity, "critical");
  assert.equal(checked, 6, "three iterations of two collectives matched before the divergence");
  assert.deepEqual(f!.facts?.culprits, ["prefill/tp2"]);
  assert.deepEqual(f!.facts?.onIdle, ["prefill/tp2"]);
  assert.equal(f!.facts?.seq, 106);
  assert.equal(f!.facts?.hang, true);
  const texts = f!.witness.map((w) => JSON.parse(w.text) as { tp: number; ev: string; op?: string; branch?: string });
  assert.deepEqual(texts.map((t) => [t.tp, t.ev, t.op ?? t.branch]), [
    [0, "coll.enter", "all_reduce"],
    [2, "sched.iter", "on_idle"],
    [2, "coll.enter", "broadcast"],
  ]);
  assert.match(f!.explanation, /prefill\/tp0, prefill\/tp1, prefill\/tp3 entered all_reduce at process_disagg_prefill_inflight_queue/);
  assert.match(f!.explanation, /prefill\/tp2 took on_idle \(p0\/probe-tp2.jsonl:16\) and entered broadcast at recv_requests instead/);
  assert.match(f!.explanation, /No rank left #106/);
});

test("a divergence the records end right after is no deadlock: nothing says whether a rank would have left", async () => {
  // The decode log ends at 14.5 s, half a second after the split at 14 s (COLLECTIVE_HANG_US is 10 s).
  const shortLog: SourceFile = { path: "d0/decode-tp0.log", text: lines(decodeBatch(13, 58), decodeBatch(14.5, 58)) };
  const { findings } = judged(await buildIncident([...desync(), shortLog]));
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.facts?.hang, false);
  assert.equal(f!.severity, "high");
  assert.doesNotMatch(f!.title, /deadlocked/);
  assert.doesNotMatch(f!.explanation, /deadlocked/);
});

test("ranks whose ring holds fewer old entries are aligned from the latest first seq, as Flight Recorder does", async () => {
  const files = [0, 1, 2, 3].map((tp) => {
    const iterations = tp === 3 ? [1, 2] : [0, 1, 2];
    return { path: `p0/probe-tp${tp}.jsonl`, text: lines(iterations.flatMap((i) => matchedIteration(tp, 10 + i, 100 + i * 2, 500 + i))) };
  });
  // Both PD sides present: with decode absent the verdict could not be consistent (a gap blinds it).
  const r = judged(await buildIncident([...files, decodeLog]));
  assert.deepEqual(r.findings.map((f) => f.verdict), ["consistent"]);
  assert.equal(r.checked, 4);
});

test("records that simply end at different points are not a divergence", async () => {
  const files = [0, 1, 2, 3].map((tp) => {
    const iterations = tp === 3 ? [0, 1] : [0, 1, 2];
    return { path: `p0/probe-tp${tp}.jsonl`, text: lines(iterations.flatMap((i) => matchedIteration(tp, 10 + i, 100 + i * 2, 500 + i))) };
  });
  const r = judged(await buildIncident([...files, decodeLog]));
  assert.deepEqual(r.findings.map((f) => f.verdict), ["consistent"]);
});

test("a rank with logs but no collective records is named; without any records the rule is undetermined", async () => {
  const tp3log: SourceFile = { path: "p0/prefill-tp3.log", text: lines(prefillBatch(5, 1, 3)) };
  const partial = judged(await buildIncident([...desync([0, 1, 2]), tp3log]));
  assert.equal(partial.findings[0]!.verdict, "violated");
  assert.match(partial.findings[0]!.explanation, /Records of prefill\/tp3 are missing/);
  const none = judged(await buildIncident([decodeLog]));
  assert.equal(none.findings[0]!.verdict, "undetermined");
  assert.deepEqual(none.findings[0]!.missing, ["probe coll.enter/coll.exit records or a Flight Recorder dump"]);
});
