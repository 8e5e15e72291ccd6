// One decision per check (DESIGN.md "A report agrees with itself"), on small
// bundles ingested and replayed for real: a cause is not ranked against its
// own rule's `consistent`; a hypothesis that restates a rule's check reads the
// rule's violated finding; a rule's `consistent` does not stand beside a
// violated hypothesis of its check.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import type { Analysis } from "../../analyzer/rules/analysis.js";
import { BUNDLES } from "../sharedIncident.js";
import { buildIncident, type SourceFile } from "./incidentBuilder.js";
import { abortSent, decodeBatch, decodeTimeout, lines, prefillBatch, prefix, sentMetadata } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";

const P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const P1: Rank = { host: "p0", role: "prefill", tp: 1 };
const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const ROOM = "5830149913321000001";

const verdictOf = (a: Analysis, rule: string) => a.coverage.rules.find((r) => r.rule === rule)!.verdict;
const hypothesis = (a: Analysis, name: string) => a.hypotheses.find((h) => h.name === name)!;

/** The stale-reuse-no-bootstrap bundle's files; `edit` rewrites a file's text by its path. */
function staleReuseBundle(edit: (path: string, text: string) => string = (_, t) => t): SourceFile[] {
  const dir = join(BUNDLES, "stale-reuse-no-bootstrap");
  return ["d0/decode-tp0.log", "d0/probe-tp0.jsonl", "d0/checksums-tp0.jsonl", "p0/probe-tp0.jsonl", "p0/checksums-tp0.jsonl"].map((path) => ({
    path,
    text: edit(path, readFileSync(join(dir, path), "utf8")),
  }));
}

test("stale checksums rank stale-slot-reuse only while its own rule is not consistent", async () => {
  const reused = analyzeIncident(await buildIncident(staleReuseBundle()));
  assert.equal(verdictOf(reused, "stale-slot-reuse"), "violated");
  assert.equal(reused.suspects[0]?.cause, "stale-slot-reuse");
  // The new room on decode pages 50–54 instead of the old room's 40–44: its checksums still read the old room's
  // index-K, but the model sees no page given away while the old write was in flight.
  const NEW = "8903166252872187431";
  const elsewhere = staleReuseBundle((path, text) =>
    path.startsWith("d0/")
      ? text.split("\n").map((l) => (l.includes(NEW) ? l.replace("[[40, 44]]", "[[50, 54]]").replace(/"page": 4(\d)/, '"page": 5$1') : l)).join("\n")
      : text,
  );
  const apart = analyzeIncident(await buildIncident(elsewhere));
  assert.equal(verdictOf(apart, "checksum-mismatch"), "violated");
  assert.equal(verdictOf(apart, "stale-slot-reuse"), "consistent");
  assert.deepEqual(apart.suspects.map((s) => s.cause).filter((c) => c === "stale-slot-reuse"), []);
});

test("a suspect whose own rule is undetermined says so", async () => {
  const noAllocs = staleReuseBundle((path, text) => (path === "d0/probe-tp0.jsonl" ? text.split("\n").filter((l) => !/"kv\.(alloc|free)"/.test(l)).join("\n") : text));
  const a = analyzeIncident(await buildIncident(noAllocs));
  assert.equal(verdictOf(a, "stale-slot-reuse"), "undetermined");
  const suspect = a.suspects.find((s) => s.cause === "stale-slot-reuse")!;
  assert.match(suspect.summary, /stale-slot-reuse, the cause's own check, is undetermined \(missing: no kv\.alloc\/kv\.free probe records\): the cause rests on these findings alone$/);
});

test("a room NIXL times out by `waiting_timeout` violates transfers-do-not-time-out, though no failure line says `timed out`", async () => {
  // One failure line that is no timeout (an abort), so the hypothesis has an instance and alone would rule timeouts out.
  const ABORTED = "5830149913321000002";
  const decode = lines(
    sentMetadata(10, 0, ROOM),
    sentMetadata(11, 0, ABORTED),
    abortSent(12, 0, ABORTED),
    `${prefix(12.5, "DP0 TP0")} Decode transfer failed for request rank=0 decode_req.req.rid='r-2' decode_req.req.bootstrap_room=${ABORTED} ` +
      `with exception KVTransferError(bootstrap_room=${ABORTED}): Aborted by AbortReq.`,
    `${prefix(310, "DP0 TP0")} Request ${ROOM} waiting_timeout`,
    decodeBatch(311, 0),
  );
  const a = analyzeIncident(await buildIncident([{ path: "d0/decode-tp0.log", text: decode }, { path: "p0/prefill-tp0.log", text: lines(prefillBatch(5, 0)) }]));
  const stall = a.findings.find((f) => f.rule === "transfer-stall" && f.verdict === "violated" && f.room === ROOM)!;
  assert.match(stall.title, /^Room 5830149913321000001 timed out in KVPoll\.WaitingForInput on 1 rank/);
  const h = hypothesis(a, "transfers-do-not-time-out");
  assert.equal(h.verdict, "violated");
  assert.equal(h.violated, 0, "its own pattern matched none");
  assert.match(h.explanation, new RegExp(`the rule transfer-stall decides this check and finds it violated: ${stall.id} \\(Room 5830149913321000001 timed out`));
  assert.ok(h.witnesses.some((w) => /Request 5830149913321000001 waiting_timeout$/.test(w.subject.text) && w.why.startsWith(`finding ${stall.id} of transfer-stall`)), JSON.stringify(h.witnesses));
});

test("collectives that agree on op but not on payload: collective-divergence cannot stay consistent beside collectives-agree violated", async () => {
  const enter = (sec: number, rank: Rank, seq: number, digest: string) => probe(sec, rank, "coll.enter", { group: "tp", op: "all_reduce", seq, site: "forward", digest });
  const exit = (sec: number, rank: Rank, seq: number) => probe(sec, rank, "coll.exit", { group: "tp", seq });
  const prefill = (rank: Rank, digest: string) =>
    lines(enter(1, rank, 1, "aa11"), exit(1.1, rank, 1), enter(2, rank, 2, digest), exit(2.1, rank, 2));
  const a = analyzeIncident(await buildIncident([
    { path: "p0/probe-tp0.jsonl", text: prefill(P0, "bb22") },
    { path: "p0/probe-tp1.jsonl", text: prefill(P1, "cc33") },
    // Both PD sides present: with one missing, the gap alone would keep the rule from consistent.
    { path: "d0/probe-tp0.jsonl", text: lines(probe(1.5, D0, "req.arrive", { rid: "r-1" }, ROOM)) },
  ]));
  assert.equal(hypothesis(a, "collectives-agree").verdict, "violated");
  // The rule reads the model's decision, which compares digests as the hypothesis does: both say violated.
  const rule = a.findings.find((f) => f.rule === "collective-divergence")!;
  assert.equal(rule.verdict, "violated");
  assert.match(rule.title, /^Group tp \(prefill\) diverges at collective #2: prefill\/tp1 entered it with another payload than all_reduce$/);
  assert.match(rule.explanation, /prefill\/tp1 entered it with payload digest cc33 instead of bb22/);
});

test("a room the model times out with no record saying so is a transfer-stall finding, not a consistent rule", async () => {
  const config = (rank: Rank) => probe(0, rank, "config", { backend: "mooncake", version: "0.5.15", index_k_dtype: "bf16", waiting_timeout_s: 60 });
  const DONE = "5830149913321000003";
  const decode = lines(
    config(D0),
    probe(1, D0, "kv.meta", { pages: [[8, 12]], dst: "p0/tp0" }, ROOM),
    probe(2, D0, "kv.meta", { pages: [[16, 20]], dst: "p0/tp0" }, DONE),
    probe(3, D0, "kv.notify", { status: 4 }, DONE),
    probe(90, D0, "sched.iter", { iter: 9, branch: "run_batch" }),
  );
  const prefill = lines(config(P0), probe(1.5, P0, "kv.post", { chunk: 0, last: true, pages: [[8, 12]], queue: 0 }, ROOM));
  const a = analyzeIncident(await buildIncident([{ path: "d0/probe-tp0.jsonl", text: decode }, { path: "p0/probe-tp0.jsonl", text: prefill }]));
  assert.equal(verdictOf(a, "transfer-stall"), "violated");
  const stall = a.findings.find((f) => f.rule === "transfer-stall" && f.room === ROOM)!;
  assert.equal(stall.title, `Room ${ROOM} timed out in KVPoll.WaitingForInput after 60 s on 1 rank(s)`);
  assert.deepEqual(stall.ranks, ["decode/tp0"]);
  assert.match(stall.explanation, new RegExp(`but replayed, the model finds that room ${ROOM} timed out in WaitingForInput on decode/tp0 \\(prefill-not-bootstrapped\\) \\(decided at d0/probe-tp0\\.jsonl:5; no record states it\\)\\.$`));
  assert.ok(stall.witness.some((w) => w.source === "d0/probe-tp0.jsonl" && w.line === 2), "the room's metadata, sent and never answered");
});

test("a transfer failed by Mooncake's own transport error, its PD failure line a timeout: transfers-not-failed-by-transport reads transport-failure's violated finding", async () => {
  // The engine's error (Mooncake worker_pool.cpp, `Worker: Process failed for slice`) is what transport-failure sees;
  // the PD failure line names only the timeout it caused, so the hypothesis's own pattern matches no instance.
  const engine = lines(
    "I0820 10:00:01.000100   212 transfer_engine.cpp:89] Transfer Engine starting. Server: 10.0.3.17:16001, Metadata: P2PHANDSHAKE, ip_or_host_name: , rpc_port: 16001",
    "E0820 10:00:05.771002  1140 worker_pool.cpp:245] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f3a00000000, length: 65536, dest_addr: 0x7f2000000000, local_nic: mlx5_0, peer_nic: 10.0.3.21:16001@mlx5_0, dest_rkey: 2148, retry_cnt: 0): transport retry counter exceeded",
  );
  const decode = lines(decodeBatch(1, 1), sentMetadata(2, 0, ROOM), decodeTimeout(302, 0, "r-1", ROOM));
  const prefill = lines(prefillBatch(1, 1));
  const a = analyzeIncident(await buildIncident([
    { path: "d0/decode-tp0.log", text: decode },
    { path: "p0/prefill-tp0.log", text: prefill },
    { path: "p0/transfer_engine.INFO", text: engine },
  ]));
  const transport = a.findings.find((f) => f.rule === "transport-failure" && f.verdict === "violated");
  assert.ok(transport, JSON.stringify(a.findings.map((f) => [f.rule, f.verdict, f.title])));
  const h = hypothesis(a, "transfers-not-failed-by-transport");
  assert.equal(h.violated, 0, "its own pattern matched no PD failure line");
  assert.equal(h.verdict, "violated");
  assert.match(h.explanation, new RegExp(`the rule transport-failure decides this check and finds it violated: ${transport.id} `));
});

test("a hypothesis whose rule a gap blinds is not consistent: one prefill rank's scheduler log and no decode side", async () => {
  // tp_size=2 stated, only tp0's log: the missing rank and the missing decode side blind process-failure (gaps/gap.ts),
  // and scheduler-raises-no-exception restates part of its check, so it cannot rule out an exception on tp1.
  const prefill = lines(
    `${prefix(0)} server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3.2', tp_size=2, disaggregation_mode='prefill', disaggregation_transfer_backend='nixl')`,
    prefillBatch(1, 1),
    `${prefix(2, "DP0 TP0")} Exception in thread Thread-3 (bootstrap_thread):`,
    "Traceback (most recent call last):",
    "  File \"/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py\", line 1421, in bootstrap_thread",
    "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
  );
  const a = analyzeIncident(await buildIncident([{ path: "p0/prefill-tp0.log", text: prefill }]));
  assert.notEqual(verdictOf(a, "process-failure"), "consistent");
  const h = hypothesis(a, "scheduler-raises-no-exception");
  assert.equal(h.violated, 0, "the one exception is the bootstrap thread's, not the scheduler's");
  assert.equal(h.verdict, "undetermined");
  assert.ok(h.missing.some((m) => /missing prefill\/tp1/.test(m)), JSON.stringify(h.missing));
});
