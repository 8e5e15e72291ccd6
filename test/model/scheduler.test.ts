// Collective divergence FR-style (docs/hicache-indexk.md §3.5–§3.6, §5.2;
// DESIGN.md seed case 1) and the configuration checks (seed cases 5 and 7).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, type ReplayModel, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";

function run(model: ReplayModel, s: Stream): Violation[] {
  return s.events.flatMap((e) => model.apply(e));
}

const GROUP = "tp_cpu_group";

function collective(s: Stream, tp: number, seq: number, op: string, at: number, exit: boolean): void {
  s.add("coll.enter", { role: "decode", tp, at, attrs: { group: GROUP, op, seq, site: "recv_requests" } });
  if (exit) s.add("coll.exit", { role: "decode", tp, at: at + 0.001, attrs: { group: GROUP, op, seq } });
}

test("overlap desync: three ranks wait in collective #1 that the fourth, branching to on_idle, never enters", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  for (let tp = 0; tp < 4; tp++) collective(s, tp, 0, "broadcast", 1, true);
  const entries = [0, 1, 2].map((tp) => {
    s.add("sched.iter", { role: "decode", tp, at: 2, attrs: { iter: 7, branch: "run_batch" } });
    collective(s, tp, 1, "all_reduce", 2.01, false);
    return s.events.at(-1)!;
  });
  const idle = s.add("sched.iter", { role: "decode", tp: 3, at: 2, attrs: { iter: 7, branch: "on_idle" } });
  s.add("batch.decode", { role: "decode", tp: 0, at: 60, text: "Decode batch, #running-req: 0, #transfer-req: 58" });
  assert.deepEqual(run(model, s), [], "nothing is divergent until the hang has lasted");
  const found = model.finish(60_000_000 + s.events[0]!.tsUs);
  assert.equal(found.length, 1);
  const v = found[0]!;
  assert.equal(v.check, "collective-divergence");
  assert.equal(v.rank, "decode/tp3");
  assert.equal(v.detail.collectiveSeq, 1);
  assert.deepEqual(v.detail.culprits, ["decode/tp3"]);
  assert.deepEqual(v.detail.culpritBranches, ["on_idle"]);
  const tp3LastExit = s.events[7]!;
  assert.deepEqual(v.witness, [...entries.map((e) => e.seq), tp3LastExit.seq, idle.seq]);
  const view = model.view();
  assert.deepEqual(
    view.collectives.map((c) => [c.rank, c.seq, c.inside]),
    [
      ["decode/tp0", 1, true],
      ["decode/tp1", 1, true],
      ["decode/tp2", 1, true],
      ["decode/tp3", 0, false],
    ],
  );
});

test("ranks that agree and exit make no finding; an op mismatch at the same seq is decided once every rank has entered it or the records end", () => {
  const healthy = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const h = new Stream();
  for (let seq = 0; seq < 3; seq++) for (let tp = 0; tp < 4; tp++) collective(h, tp, seq, "all_reduce", 1 + seq, true);
  assert.deepEqual(run(healthy, h), []);
  assert.deepEqual(healthy.finish(h.events.at(-1)!.tsUs + 600e6), []);

  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  for (let tp = 0; tp < 4; tp++) collective(s, tp, 0, "broadcast", 1, true);
  // tp1 enters the broadcast first; the three others enter the all_reduce: the minority, not the first, is the culprit.
  collective(s, 1, 1, "broadcast", 2, false);
  const odd = s.events.at(-1)!;
  const entries = [0, 2, 3].map((tp) => {
    collective(s, tp, 1, "all_reduce", 2, false);
    return s.events.at(-1)!;
  });
  assert.deepEqual(run(model, s), [], "the minority is known only once all have entered");
  assert.deepEqual(model.view().collectiveDivergences.map((d) => [d.group, d.seq, d.op, d.ranks, d.culprits]), [[`decode:${GROUP}`, 1, "all_reduce", ["decode/tp0", "decode/tp2", "decode/tp3"], ["decode/tp1"]]]);
  // The records end as the ranks enter: a split, but no time in which to call it a deadlock.
  const found = model.finish(s.events.at(-1)!.tsUs);
  assert.deepEqual(found.map((v) => [v.check, v.detail.kind, v.witness, v.rank, v.detail.hang]), [["collective-divergence", "op-mismatch", [entries[0]!.seq, odd.seq], "decode/tp1", false]]);
});
test("pool sizing and the logits address from config records, raised once however many ranks state them", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.14" }));
  const s = new Stream();
  const cfg = { backend: "nixl", version: "0.5.14", index_k_dtype: "bf16", page_size: 64, index_k_bytes_per_token: 132, host_index_k_page_stride: 8448, max_context: 1_100_000 };
  const first = s.add("config", { role: "decode", tp: 0, attrs: cfg });
  s.add("config", { role: "decode", tp: 1, attrs: cfg });
  const found = run(model, s);
  assert.deepEqual(
    found.map((v) => [v.check, v.detail.kind ?? null, v.witness]),
    [
      ["pool-sizing-mismatch", "bytes-per-token", [first.seq]],
      ["pool-sizing-mismatch", "host-page-stride", [first.seq]],
      ["address-overflow", null, [first.seq]],
    ],
  );
  assert.equal(found[2]!.detail.rowsAssumed, true);
});

test("prefill fp8 and decode bf16 index-K: one item_len for rows of different size", () => {
  const model = createModel(defaultProfile({ backend: "mooncake", version: "0.5.14" }));
  const s = new Stream();
  s.add("config", { role: "prefill", attrs: { index_k_dtype: "fp8" } });
  const dec = s.add("config", { role: "decode", attrs: { index_k_dtype: "bf16" } });
  const found = run(model, s);
  assert.deepEqual(found.map((v) => [v.check, v.detail.kind, v.detail.srcItemLen, v.detail.dstItemLen, v.seq]), [["pool-sizing-mismatch", "item-len", 8448, 16384, dec.seq]]);
});

test("a healthy fp8 configuration raises nothing", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  s.add("config", { role: "prefill", attrs: { index_k_dtype: "fp8", index_k_bytes_per_token: 132, host_index_k_page_stride: 8448, max_context: 163_840 } });
  s.add("config", { role: "decode", attrs: { index_k_dtype: "fp8", index_k_bytes_per_token: 132 } });
  assert.deepEqual(run(model, s), []);
  assert.deepEqual(model.finish(s.events.at(-1)!.tsUs), []);
  const cov = Object.fromEntries(model.coverage().map((c) => [c.check, c]));
  assert.equal(cov["pool-sizing-mismatch"]!.undetermined, undefined);
  assert.ok(cov["pool-sizing-mismatch"]!.checked > 0);
  assert.equal(cov["read-before-landed-write"]!.undetermined, "no kernel.read probe records");
  assert.equal(cov["collective-divergence"]!.undetermined, "no coll.enter/coll.exit probe records");
});
