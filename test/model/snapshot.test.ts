// Snapshots: a model restored from any point (through the byte form the store
// keeps) continues exactly as the original; modelled timeouts; retirement.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, restoreModel, type Profile, type ReplayModel, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";
import { decodeSnapshot, encodeSnapshot } from "../../analyzer/replay/snapshotCodec.js";

const D = { role: "decode" as const, host: "d0" };
const P = { role: "prefill" as const, host: "p0" };

/** A mixed incident: rooms that complete, one that stalls past its timeout, a stale reuse, a HiCache race, collectives. */
function incident(): Stream {
  const s = new Stream();
  let at = 1;
  for (let i = 0; i < 6; i++) {
    const room = String(8972542885242963000n + BigInt(i));
    const tp = i % 2;
    s.add("kv.alloc", { ...D, tp, room, pages: [[i * 4, i * 4 + 4]], at: (at += 0.01) });
    s.add("kv.meta", { ...D, tp, room, pages: [[i * 4, i * 4 + 4]], attrs: { aux_index: i }, at: (at += 0.01) });
    s.add("boot.got_info", { ...P, tp, room, attrs: { required_dst_info_num: 1 }, at: (at += 0.01) });
    s.add("kv.post", { ...P, tp, room, chunk: 0, pages: [[100 + i * 4, 102 + i * 4]], attrs: { last: false, queue: i % 4 }, at: (at += 0.01) });
    if (i === 5) continue; // never finishes: the modelled waiting timeout fires later
    s.add("kv.post", { ...P, tp, room, chunk: 1, pages: [[102 + i * 4, 104 + i * 4]], attrs: { last: true, queue: i % 4 }, at: (at += 0.01) });
    s.add("kv.done", { ...P, tp, room, chunk: 0, at: (at += 0.01) });
    s.add("kv.notify", { ...D, tp, room, attrs: { tag: `${room}_kv_0_0_${tp}` }, at: (at += 0.01) });
    if (i === 2) {
      s.add("pd.transfer_failed", { ...D, tp, room, attrs: { reasonKind: "abort", reason: "Aborted by AbortReq." }, at: (at += 0.01) });
      s.add("kv.free", { ...D, tp, room, pages: [[8, 12]], at: (at += 0.01) });
      s.add("kv.alloc", { ...D, tp, room: "77", pages: [[8, 12]], at: (at += 0.01) });
      s.add("kernel.read", { ...D, tp, room: "77", layer: 1, pages: [[8, 12]], attrs: { buffer: "index_k" }, at: (at += 0.01) });
      continue;
    }
    s.add("kv.done", { ...P, tp, room, chunk: 1, at: (at += 0.01) });
    s.add("kv.notify", { ...D, tp, room, attrs: { tag: `${room}_kv_1_1_${tp}` }, at: (at += 0.01) });
    s.add("kv.notify", { ...D, tp, room, attrs: { tag: `${room}_aux` }, at: (at += 0.01) });
    s.add("kv.poll", { ...D, tp, room, attrs: { local: 4, reduced: 4 }, at: (at += 0.01) });
    s.add("kv.free", { ...D, tp, room, pages: [[i * 4, i * 4 + 4]], at: (at += 0.01) });
  }
  s.add("hicache.load", { ...P, tp: 0, pages: [[300, 302]], attrs: { slot: 1, layers: 4 }, at: (at += 0.01) });
  s.add("hicache.layer", { ...P, tp: 0, layer: 0, attrs: { slot: 1 }, at: (at += 0.01) });
  s.add("kernel.read", { ...P, tp: 0, room: "88", layer: 2, pages: [[300, 301]], attrs: { buffer: "index_k", consumer: 1, accessor: "get_index_k_continuous" }, at: (at += 0.01) });
  for (let seq = 0; seq < 3; seq++) {
    for (let tp = 0; tp < 2; tp++) {
      s.add("coll.enter", { ...D, tp, attrs: { group: "tp", op: "broadcast", seq }, at: (at += 0.01) });
      if (seq < 2 || tp === 0) s.add("coll.exit", { ...D, tp, attrs: { group: "tp", op: "broadcast", seq }, at: (at += 0.01) });
    }
  }
  s.add("coll.enter", { ...D, tp: 0, attrs: { group: "tp", op: "all_reduce", seq: 3 }, at: (at += 0.01) });
  s.add("batch.decode", { ...D, tp: 0, text: "Decode batch, #running-req: 1, #transfer-req: 1", at: 400 });
  return s;
}

const PROFILE: Profile = defaultProfile({ backend: "nixl", version: "0.5.10", hicache: true });

function runFrom(model: ReplayModel, s: Stream, from: number): Violation[] {
  return s.events.slice(from).flatMap((e) => model.apply(e));
}

test("the incident yields each expected finding once", () => {
  const s = incident();
  const model = createModel(PROFILE);
  const found = runFrom(model, s, 0);
  const end = model.finish(s.events.at(-1)!.tsUs);
  assert.deepEqual(
    [...found, ...end].map((v) => [v.check, v.room ?? null, v.detail.basis ?? null]),
    [
      ["stale-slot-reuse", "77", null],
      ["hicache-ungated-read", "88", null],
      ["transfer-stall", "8972542885242963005", "model"],
      ["collective-divergence", null, null],
    ],
  );
  const cov = Object.fromEntries(model.coverage().map((c) => [c.check, c]));
  for (const check of ["read-before-landed-write", "stale-slot-reuse", "hicache-ungated-read", "unhandled-abort", "incomplete-completion", "transfer-stall", "collective-divergence", "metadata-collision"]) {
    assert.ok(cov[check]!.checked > 0 && cov[check]!.undetermined === undefined, check);
  }
  assert.equal(cov["pool-sizing-mismatch"]!.undetermined, "no config record or profile setting with index_k_bytes_per_token or host_index_k_page_stride");
  assert.equal(cov["address-overflow"]!.undetermined, "no max_context in a config record or the profile");
  const stall = found.find((v) => v.check === "transfer-stall")!;
  assert.equal(stall.seq, s.events.at(-1)!.seq, "the first event past the 300 s deadline reveals it");
  assert.equal(stall.detail.cause, "transfer-in-flight");
});

test("restoring from a stored snapshot at any point continues exactly as the original", () => {
  const s = incident();
  const whole = createModel(PROFILE);
  const all = runFrom(whole, s, 0);
  const end = whole.finish(s.events.at(-1)!.tsUs);
  for (const k of [1, 7, 23, 40, s.events.length - 3, s.events.length]) {
    const head = createModel(PROFILE);
    const before = s.events.slice(0, k).flatMap((e) => head.apply(e));
    const restored = restoreModel(PROFILE, decodeSnapshot(encodeSnapshot(head.snapshot())));
    assert.deepEqual(restored.view(), head.view(), `view at ${k}`);
    const after = runFrom(restored, s, k);
    assert.deepEqual([...before, ...after], all, `violations split at ${k}`);
    assert.deepEqual(restored.finish(s.events.at(-1)!.tsUs), end, `finish split at ${k}`);
    assert.deepEqual(restored.coverage(), whole.coverage(), `coverage split at ${k}`);
    assert.deepEqual(restored.view(), whole.view(), `final view split at ${k}`);
    assert.equal(JSON.stringify(restored.snapshot()), JSON.stringify(whole.snapshot()), `snapshot split at ${k}`);
  }
});

test("a snapshot taken earlier is not changed by the model going on", () => {
  const s = incident();
  const model = createModel(PROFILE);
  for (const e of s.events.slice(0, 30)) model.apply(e);
  const snap = model.snapshot();
  const frozen = JSON.stringify(snap);
  for (const e of s.events.slice(30)) model.apply(e);
  assert.equal(JSON.stringify(snap), frozen);
  assert.throws(() => restoreModel(PROFILE, { rooms: [] }), /not a kvrewind model snapshot/);
});
