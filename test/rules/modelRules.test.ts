// The rules decided by the reference model, on small probe bundles replayed
// for real: the findings, their witnesses and explanations, and the suspect
// they put first.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Finding } from "../../analyzer/rules/finding.js";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { buildIncident } from "./incidentBuilder.js";
import { lines } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";

const P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const D4: Rank = { host: "d0", role: "decode", tp: 4 };
const OLD = "8972542885242963296";
const NEW = "5830149913321000001";

function violated(findings: Finding[], rule: Finding["rule"]): Finding[] {
  return findings.filter((f) => f.rule === rule && f.verdict === "violated");
}

function config(rank: Rank, fields: Record<string, unknown>): string {
  return probe(0, rank, "config", { backend: "mooncake", version: "0.5.15", index_k_dtype: "bf16", page_size: 64, hicache: false, overlap: true, ...fields });
}

test("pages freed at a timeout while the old room's write is in flight, then read by the next room: stale reuse and a read before the write landed", async () => {
  const decode = lines(
    config(D0, { waiting_timeout_s: 60 }),
    probe(1, D0, "req.arrive", { rid: "r-old" }, OLD),
    probe(1.1, D0, "kv.alloc", { buffer: "kv", pages: [[8, 12]] }, OLD),
    probe(1.2, D0, "kv.meta", { pages: [[8, 12]], dst: "p0/tp0" }, OLD),
    probe(62, D0, "kv.timeout", { state: "WaitingForInput", after_s: 60 }, OLD),
    probe(62.1, D0, "kv.free", { buffer: "kv", pages: [[8, 12]] }, OLD),
    probe(62.2, D0, "req.arrive", { rid: "r-new" }, NEW),
    probe(62.3, D0, "kv.alloc", { buffer: "kv", pages: [[8, 12]] }, NEW),
    probe(62.4, D0, "kv.meta", { pages: [[8, 12]], dst: "p0/tp0" }, NEW),
    probe(62.7, D0, "kv.notify", { status: 4 }, NEW),
    probe(62.8, D0, "kernel.read", { buffer: "index_k", layer: 0, pages: [[8, 12]], consumer: -1, path: "paged" }, NEW),
  );
  const prefill = lines(
    config(P0, {}),
    probe(2, P0, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[40, 44]], dst_pages: [[8, 12]] }, OLD),
    probe(62.5, P0, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[50, 54]], dst_pages: [[8, 12]] }, NEW),
    probe(62.6, P0, "kv.done", { chunk: 0 }, NEW),
    probe(63, P0, "kv.done", { chunk: 0 }, OLD),
  );
  const report = analyzeIncident(await buildIncident([
    { path: "d0/probe-tp0.jsonl", text: decode },
    { path: "p0/probe-tp0.jsonl", text: prefill },
  ]));
  const [reuse] = violated(report.findings, "stale-slot-reuse");
  assert.equal(reuse?.room, NEW);
  assert.deepEqual(reuse!.ranks, ["decode/tp0"]);
  assert.ok(reuse!.witness.some((w) => w.text.includes('"ev":"kv.free"')), "the free is part of the proof");
  const [early] = violated(report.findings, "read-before-landed-write");
  assert.equal(early?.room, NEW);
  assert.deepEqual(early!.witness.map((w) => JSON.parse(w.text).ev), ["kernel.read", "kv.post"], "two-access shape: the read, then the write that had not landed");
  assert.match(early!.explanation, /^Let decode\/tp0 read index_k layer 0 page 8 for room 5830149913321000001 \(d0\/probe-tp0.jsonl:11\)\. Then the last write to that page — chunk 0 of room 8972542885242963296/);
  assert.equal(report.suspects[0]!.cause, "stale-slot-reuse");
});

test("an index-K read of a layer HiCache has not loaded, without a wait, on two ranks of one room", async () => {
  const onRank = (r: Rank, t: number): string[] => [
    probe(t, r, "kv.alloc", { buffer: "kv", pages: [[0, 4]] }, NEW),
    probe(t + 0.1, r, "hicache.load", { slot: 1, layers: 3, pages: [[0, 4]] }, NEW),
    probe(t + 0.2, r, "hicache.layer", { slot: 1, layer: 0 }),
    probe(t + 0.25, r, "hicache.wait", { slot: 1, layer: 0, accessor: "get_kv_buffer" }),
    probe(t + 0.3, r, "kernel.read", { buffer: "index_k", layer: 2, pages: [[0, 4]], consumer: 1, path: "ragged" }, NEW),
    probe(t + 0.4, r, "hicache.layer", { slot: 1, layer: 1 }),
    probe(t + 0.5, r, "hicache.layer", { slot: 1, layer: 2 }),
  ];
  const report = analyzeIncident(await buildIncident([
    { path: "d0/probe-tp0.jsonl", text: lines(config(D0, { version: "0.5.10", hicache: true }), onRank(D0, 1)) },
    { path: "d0/probe-tp4.jsonl", text: lines(config(D4, { version: "0.5.10", hicache: true }), onRank(D4, 1.05)) },
  ]));
  const [f] = violated(report.findings, "hicache-ungated-read");
  assert.equal(f?.room, NEW);
  assert.deepEqual(f!.ranks, ["decode/tp0", "decode/tp4"]);
  assert.equal(f!.witness.filter((w) => w.text.includes('"path":"ragged"')).length, 2, "the read on each rank");
  assert.match(f!.explanation, /with 1\/3 layers loaded/);
  assert.equal(report.suspects[0]!.cause, "hicache-indexk-race");
});

test("a state notification after the Success poll is an incomplete completion", async () => {
  const decode = lines(
    config(D0, { backend: "nixl", version: "0.5.18" }),
    probe(1, D0, "kv.alloc", { buffer: "kv", pages: [[0, 4]] }, NEW),
    probe(1.1, D0, "kv.meta", { pages: [[0, 4]], dst: "p0/tp0", state_pages: [] }, NEW),
    probe(1.3, D0, "kv.notify", { tag: `${NEW}_kv_0_1_0` }, NEW),
    probe(1.31, D0, "kv.notify", { tag: `${NEW}_aux` }, NEW),
    probe(1.32, D0, "kv.poll", { local: 4, reduced: 4 }, NEW),
    probe(1.33, D0, "kernel.read", { buffer: "index_k", layer: 0, pages: [[0, 4]], consumer: -1, path: "paged" }, NEW),
    probe(1.45, D0, "kv.notify", { tag: `${NEW}_state_0_0` }, NEW),
  );
  const prefill = lines(config(P0, { backend: "nixl", version: "0.5.18" }), probe(1.2, P0, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[0, 4]] }, NEW));
  const report = analyzeIncident(await buildIncident([
    { path: "d0/probe-tp0.jsonl", text: decode },
    { path: "p0/probe-tp0.jsonl", text: prefill },
  ]));
  const [f] = violated(report.findings, "incomplete-completion");
  assert.equal(f?.room, NEW);
  assert.deepEqual(f!.witness.map((w) => w.line), [3, 6, 8]);
  assert.match(f!.explanation, /notification 5830149913321000001_state_0_0 reached decode\/tp0 130\.0 ms after its Success poll .*carried no state indices/);
  assert.equal(report.suspects[0]!.cause, "uncounted-state-transfer");
});

test("configuration alone: fp8-sized pool and host stride for a bf16 buffer, int32 logits overflow, and one item_len across two row sizes", async () => {
  const sized = { index_k_bytes_per_token: 132, host_index_k_page_stride: 8448, hicache: true, max_context: 1179648, max_running_requests: 2048 };
  const report = analyzeIncident(await buildIncident([
    {
      path: "p0/probe-tp0.jsonl",
      text: lines(config(P0, { ...sized, index_k_dtype: "fp8", index_k_bytes_per_token: 132 }), probe(2, P0, "kv.post", { chunk: 0, last: true, buffer: "index_k", pages: [[0, 2]], item_len: 8448 }, NEW)),
    },
    { path: "d0/probe-tp0.jsonl", text: lines(config(D0, sized), probe(1, D0, "kv.meta", { pages: [[0, 2]], dst: "p0/tp0", item_len: 16384 }, NEW)) },
  ]));
  const sizing = violated(report.findings, "pool-sizing-mismatch");
  const byKind = (s: string) => sizing.find((f) => f.title.includes(s))!;
  assert.match(byKind("B/token").title, /^Index-K pool sized at 132 B\/token for a bf16 buffer of 256 B\/token/);
  assert.deepEqual(byKind("B/token").ranks, ["decode/tp0"]);
  assert.match(byKind("page stride").explanation, /the fp8 value 132 × 64 hardcoded in NSATokenToKVPoolHost/);
  const itemLen = byKind("addressed with");
  assert.deepEqual(itemLen.ranks, ["decode/tp0", "prefill/tp0"]);
  assert.ok(itemLen.witness.some((w) => w.text.includes('"item_len":8448')) && itemLen.witness.some((w) => w.text.includes('"item_len":16384')));
  const [overflow] = violated(report.findings, "address-overflow");
  assert.match(overflow!.explanation, /reaches 2415919103, but int32 holds at most 2147483647/);
  assert.ok(overflow!.witness.some((w) => w.text.includes('"max_context":1179648')));
  assert.deepEqual(report.suspects.map((s) => s.cause).slice(0, 1), ["pool-sizing-fp8-hardcoded"]);
});

test("an index-K read HiCache has not loaded on a prefill rank: the rule and its hypothesis agree (the hypothesis is no narrower than the rule)", async () => {
  const P1: Rank = { host: "p0", role: "prefill", tp: 1 };
  const report = analyzeIncident(await buildIncident([
    {
      path: "p0/probe-tp1.jsonl",
      text: lines(
        config(P1, { version: "0.5.10", hicache: true }),
        probe(1, P1, "hicache.load", { slot: 0, layers: 3, pages: [[0, 4]] }, NEW),
        probe(1.1, P1, "hicache.layer", { slot: 0, layer: 0 }),
        probe(1.15, P1, "hicache.wait", { slot: 0, layer: 0, accessor: "get_kv_buffer" }),
        probe(1.2, P1, "kernel.read", { buffer: "index_k", layer: 2, pages: [[0, 4]], consumer: 0, path: "ragged" }, NEW),
        probe(1.3, P1, "hicache.layer", { slot: 0, layer: 1 }),
        probe(1.4, P1, "hicache.layer", { slot: 0, layer: 2 }),
      ),
    },
  ]));
  const [f] = violated(report.findings, "hicache-ungated-read");
  assert.deepEqual(f?.ranks, ["prefill/tp1"]);
  const hypothesis = report.hypotheses.find((h) => h.name === "hicache-gated-index-k-read");
  assert.equal(hypothesis?.verdict, "violated");
});
