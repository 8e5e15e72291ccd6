import { runRule } from "../../analyzer/rules/index.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { evidenceGap } from "../../analyzer/rules/evidenceGap.js";
import type { CoverageGap } from "../../analyzer/rules/finding.js";
import type { IncidentDb } from "../../store/db.js";
import { buildIncident } from "./incidentBuilder.js";
import { decodeBatch, decodeTimeout, lines, prefillBatch, prefix } from "./logLines.js";
import { probe } from "./probeLines.js";

function gapsOf(db: IncidentDb): CoverageGap[] {
  return runRule(evidenceGap, new Evidence(db)).findings.flatMap((f) => (f.facts?.gaps as CoverageGap[] | undefined) ?? []);
}

test("a TP rank absent from the logs and an unreadable prefix line are gaps", async () => {
  const decode = lines(
    decodeTimeout(300, 0, "a0", "5830149913321"),
    decodeTimeout(300, 1, "a0", "5830149913321"),
    decodeTimeout(300, 3, "a0", "5830149913321"),
    "[2026-08-20 25:61:00 DP0 TP0] Decode batch, #running-req: 1, #transfer-req: 0",
  );
  const gaps = gapsOf(await buildIncident([{ path: "d0/decode.log", text: decode }]));
  const missing = gaps.find((g) => g.kind === "missing-ranks")!;
  assert.deepEqual(missing.ranks, ["decode/tp2"]);
  assert.match(missing.detail, /decode shows 3 of 4 TP ranks/);
  const parse = gaps.find((g) => g.kind === "parse-errors")!;
  assert.equal(parse.source, "d0/decode.log");
  assert.match(parse.detail, /first: line 4: impossible date/);
});

test("a stats rank whose batch lines stop while its DP sibling's go on, and a probe file cut mid-record, are gaps", async () => {
  const steady = (tp: number, from: number, to: number) => [...Array(Math.floor((to - from) / 5)).keys()].map((i) => decodeBatch(from + i * 5, i % 7, 64, tp));
  const dp1 = (l: string) => l.replace("DP0 TP4", "DP1 TP4");
  const cut = `${probe(2, { host: "d0", role: "decode", tp: 4 }, "sched.iter", { iter: 2, branch: "run_batch" })}\n{"ts": 1787220003.5, "host": "d0", "ro`;
  const db = await buildIncident([
    { path: "d0/decode-dp0.log", text: lines(steady(0, 0, 900)) },
    { path: "d0/decode-dp1.log", text: lines(steady(4, 0, 300).map(dp1), steady(4, 600, 900).map(dp1)) },
    { path: "d0/probe-tp4.jsonl", text: cut },
  ]);
  const gaps = gapsOf(db);
  const silent = gaps.filter((g) => g.kind === "time-gap");
  // The probe's one iteration at 10:00:02 and then nothing, while the logs go on to 10:14:55, is a silence too.
  assert.deepEqual(silent.map((g) => g.source), ["d0/probe-tp4.jsonl", "d0/decode-dp1.log"]);
  assert.match(silent[0]!.detail, /for the last 893\.0 s of the incident|for the last 893 s of the incident/);
  assert.equal(silent[1]!.from, "2026-08-20T10:04:55.000Z");
  assert.equal(silent[1]!.to, "2026-08-20T10:10:00.000Z");
  // A silence leaves the records incomplete, not absent: the decode rules keep their verdicts on what was logged.
  assert.ok(silent.every((g) => g.explainedBy === undefined && g.blinds === undefined && (g.weakens ?? []).includes("transfer-stall")), "nothing explains them; they weaken the decode rules");
  const cutSource = gaps.filter((g) => g.kind === "truncated-source");
  assert.deepEqual(cutSource.map((g) => g.source), ["d0/probe-tp4.jsonl"]);
  assert.match(cutSource[0]!.detail, /ends mid-record: its last line \(2\) could not be read/);
});

test("every rank of both sides present, clean parse and continuous sources are consistent", async () => {
  const decode = lines([0, 1, 2, 3].map((tp) => decodeTimeout(300, tp, "a0", "5830149913321")));
  const prefill = lines(prefillBatch(290, 3));
  // One host: two would need a causal pair to link their clocks.
  const r = runRule(evidenceGap, new Evidence(await buildIncident([{ path: "n0/decode.log", text: decode }, { path: "n0/prefill.log", text: prefill }])));
  assert.deepEqual(r.findings.map((f) => f.verdict), ["consistent"]);
});

test("one PD side alone is a missing role that blinds the rules needing the other side", async () => {
  const decode = lines([0, 1].map((tp) => decodeTimeout(300, tp, "a0", "5830149913321")));
  const gaps = gapsOf(await buildIncident([{ path: "d0/decode.log", text: decode }]));
  const role = gaps.find((g) => g.kind === "missing-role")!;
  assert.deepEqual(role.ranks, ["prefill"]);
  assert.match(role.detail, /^no prefill source: the incident holds 1 decode source\(s\)/);
  for (const rule of ["unhandled-abort", "transfer-stall", "process-failure", "stale-slot-reuse"]) assert.ok(role.blinds!.includes(rule as never), rule);
  assert.ok(!role.blinds!.includes("metadata-collision"), "a decode-side check");
});

test("an input refused at ingest is a gap naming it and the reason, and blinds the rules its side feeds", async () => {
  const decode = lines(decodeTimeout(300, 0, "a0", "5830149913321"));
  const prefill = lines(prefillBatch(290, 3));
  const blob = "\u0000\u0001\u0002PK\u0003\u0004".repeat(64);
  const gaps = gapsOf(await buildIncident([
    { path: "n0/decode-tp0.log", text: decode },
    { path: "n0/prefill-tp0.log", text: prefill },
    { path: "n0/core.bin", text: blob },
  ]));
  const skipped = gaps.find((g) => g.kind === "skipped-source")!;
  assert.equal(skipped.source, "n0/core.bin");
  assert.match(skipped.detail, /^n0\/core\.bin was refused at ingest \(.+\): none of its content is in the evidence$/);
  assert.ok(skipped.blinds!.includes("process-failure"), "of no known side, it may hold any side's records");
});

test("a PD side alone, and ranks missing only against the highest rank seen, are low findings; ranks missing against a stated tp_size are medium", async () => {
  // sgl-project/sglang#11648: a healthy prefill excerpt, DP-attention ranks logging only when they have a batch.
  const prefill = [
    "[2025-10-15 14:44:32 DP14 TP14 EP14] Prefill batch. #new-seq: 2, #new-token: 68, #cached-token: 0, token usage: 0.01, #unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 1, input throughput (token/s): 1326.00, ",
    "[2025-10-15 14:44:33 DP8 TP8 EP8] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, #unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 0, input throughput (token/s): 1258.57, ",
    "[2025-10-15 14:44:33 DP15 TP15 EP15] Prefill batch. #new-seq: 3, #new-token: 512, #cached-token: 0, token usage: 0.02, #unbootstrapped-req: 0, #queue-req: 3, #transferring-req: 0, input throughput (token/s): 1252.73, ",
  ];
  const r = runRule(evidenceGap, new Evidence(await buildIncident([{ path: "p0/prefill.log", text: lines(prefill) }])));
  const bySeverity = r.findings.map((f) => [(f.facts?.gaps as CoverageGap[])[0]!.kind, f.verdict, f.severity]);
  assert.deepEqual(bySeverity, [["missing-role", "violated", "low"], ["missing-ranks", "violated", "low"]]);
  const gaps = gapsOf(await buildIncident([{ path: "p0/prefill.log", text: lines(prefill) }]));
  assert.ok(gaps.find((g) => g.kind === "missing-role")!.blinds!.includes("transfer-stall"), "still blinds the rules that need decode");
  // The run states tp_size=4 and rank 3 is absent: the run contradicts the evidence.
  const stated = "[2026-08-20 10:00:00] server_args=ServerArgs(model_path='m', tp_size=4, dp_size=1, disaggregation_mode='decode')";
  const decode = lines(stated, [0, 1, 2].map((tp) => decodeTimeout(300, tp, "a0", "5830149913321")));
  const ranks = runRule(evidenceGap, new Evidence(await buildIncident([{ path: "d0/decode.log", text: decode }]))).findings
    .find((f) => (f.facts?.gaps as CoverageGap[])[0]!.kind === "missing-ranks")!;
  assert.equal(ranks.severity, "medium");
  assert.match((ranks.facts?.gaps as CoverageGap[])[0]!.detail, /tp_size=4 stated/);
});

test("a server spread over two machines: each machine owes its own block of ranks, and a block no machine shows is missing", async () => {
  // SGLang's engine runs tp_size / nnodes ranks on each machine, node_rank's block (engine.py _launch_subprocesses).
  const args = (node: number): string =>
    `[2026-08-20 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=8, dp_size=1, pp_size=1, nnodes=2, node_rank=${node}, disaggregation_mode='decode')`;
  const batches = (tps: number[]): string[] => tps.map((tp) => decodeBatch(10, 0, 64, tp));
  const both = gapsOf(await buildIncident([
    { path: "gpu-node-0/decode.log", text: lines(args(0), batches([0, 1, 2, 3])) },
    { path: "gpu-node-1/decode.log", text: lines(args(1), batches([4, 5, 7])) },
  ])).filter((g) => g.kind === "missing-ranks");
  assert.deepEqual(both.map((g) => g.ranks), [["gpu-node-1/decode/tp6"]], "node 0 is complete; node 1 lacks rank 6 of its block");
  assert.match(both[0]!.detail, /gpu-node-1\/decode shows 3 of the 4 TP ranks its machine runs/);
  const oneMachine = runRule(evidenceGap, new Evidence(await buildIncident([{ path: "gpu-node-0/decode.log", text: lines(args(0), batches([0, 1, 2, 3])) }])));
  const one = oneMachine.findings.filter((f) => (f.facts?.gaps as CoverageGap[])[0]!.kind === "missing-ranks");
  const gap = (one[0]!.facts?.gaps as CoverageGap[])[0]!;
  assert.deepEqual(gap.ranks, ["decode/tp4", "decode/tp5", "decode/tp6", "decode/tp7"]);
  assert.match(gap.detail, /decode runs on 2 machines of 4 TP ranks each \(tp_size=8 stated .*\); no machine of it shows decode\/tp4/);
  // The other machine's log was not collected: the input, as a PD side with no source, is low; a rank missing
  // inside a machine's own block (above) is the run contradicting the evidence, medium.
  assert.equal(one[0]!.severity, "low");
});

test("a container's run before its restart, saved with kubectl logs --previous beside the current one, is the same stream: its silence ends where the new run writes", async () => {
  const steady = (tp: number, from: number, to: number) => [...Array(Math.floor((to - from) / 5)).keys()].map((i) => decodeBatch(from + i * 5, 0, 64, tp));
  // The run before the restart writes to 10:05:00 and dies there; the restarted one writes again from 10:08:00.
  const crash = [`${prefix(301, "DP0 TP0")} Scheduler hit an exception: Traceback (most recent call last):`, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB."];
  const db = await buildIncident([
    { path: "sglang-decode-0-previous.log", text: lines(steady(0, 0, 305), crash) },
    { path: "sglang-decode-0.log", text: lines(steady(0, 480, 900)) },
    { path: "sglang-decode-1.log", text: lines(steady(0, 0, 900)) },
  ]);
  const silent = gapsOf(db).filter((g) => g.kind === "time-gap");
  assert.deepEqual(silent.map((g) => [g.source, g.from, g.to]), [["sglang-decode-0.log (rotated, 2 files)", "2026-08-20T10:05:00.000Z", "2026-08-20T10:08:00.000Z"]]);
  assert.ok(silent[0]!.explainedBy !== undefined, "the crash at its start explains it");
});
