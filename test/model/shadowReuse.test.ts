// The shadow memory keeps pages, writes and targets in recycled table rows:
// many rooms cycling through the same pages must give the same findings,
// views and snapshots whether the model ran straight through or was restored
// from a snapshot at any point (rows are then laid out differently).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, restoreModel, type ReplayModel, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";
import { decodeSnapshot, encodeSnapshot } from "../../analyzer/replay/snapshotCodec.js";

const PROFILE = defaultProfile({ backend: "nixl", version: "0.5.16", hicache: true });
const D = { role: "decode" as const, host: "d0" };
const P = { role: "prefill" as const, host: "p0" };

function room(i: number): string {
  return String(8972542885242963000n + BigInt(i));
}

/**
 * Twelve rooms on two decode ranks cycle through three page windows, each
 * chunk landing before its pages are freed. Then room 12 takes a window of
 * tp0 again and decode frees it with the chunk still in flight; room 13 gets
 * the pages next and the late write lands before room 13 reads them
 * (stale-slot-reuse, docs/hicache-indexk.md §1.4 race #1).
 */
function cycling(): { s: Stream; stale: { free: number; post: number; alloc: number; land: number; read: number } } {
  const s = new Stream();
  for (let i = 0; i < 12; i++) {
    const r = room(i);
    const tp = i % 2;
    const lo = (i % 3) * 8;
    const pages: [number, number][] = [[lo, lo + 4]];
    s.add("kv.alloc", { ...D, tp, room: r, pages });
    s.add("kv.meta", { ...D, tp, room: r, pages });
    s.add("kv.post", { ...P, tp, room: r, chunk: 0, pages: [[200 + lo, 204 + lo]], attrs: { last: true, queue: 0 } });
    s.add("kernel.store", { ...D, tp, room: r, layer: 3, pages: [[lo, lo + 1]], attrs: { buffer: "index_k" } });
    s.add("kv.done", { ...P, tp, room: r, chunk: 0 });
    s.add("kernel.read", { ...D, tp, room: r, layer: 1, pages, attrs: { buffer: "kv" } });
    s.add("kv.free", { ...D, tp, room: r, pages });
  }
  const pages: [number, number][] = [[8, 12]];
  s.add("kv.alloc", { ...D, tp: 0, room: room(12), pages });
  s.add("kv.meta", { ...D, tp: 0, room: room(12), pages });
  const post = s.add("kv.post", { ...P, tp: 0, room: room(12), chunk: 0, pages: [[300, 304]], attrs: { last: true, queue: 0 } });
  const free = s.add("kv.free", { ...D, tp: 0, room: room(12), pages });
  const alloc = s.add("kv.alloc", { ...D, tp: 0, room: room(13), pages });
  const land = s.add("kv.done", { ...P, tp: 0, room: room(12), chunk: 0 });
  const read = s.add("kernel.read", { ...D, tp: 0, room: room(13), layer: 1, pages: [[9, 10]], attrs: { buffer: "kv" } });
  s.add("hicache.load", { ...D, tp: 1, pages: [[8, 10]], attrs: { slot: 0, layers: 4 } });
  s.add("hicache.layer", { ...D, tp: 1, layer: 0, attrs: { slot: 0 } });
  return { s, stale: { free: free.seq, post: post.seq, alloc: alloc.seq, land: land.seq, read: read.seq } };
}

function run(model: ReplayModel, s: Stream, from: number, to = s.events.length): Violation[] {
  return s.events.slice(from, to).flatMap((e) => model.apply(e));
}

test("rooms cycling through the same pages: the late write of a freed room is found where it lands", () => {
  const { s, stale } = cycling();
  const model = createModel(PROFILE);
  const found = run(model, s, 0).filter((v) => v.check === "stale-slot-reuse");
  assert.equal(found.length, 1);
  assert.equal(found[0]!.room, room(13));
  assert.equal(found[0]!.detail.previousRoom, room(12));
  assert.equal(found[0]!.detail.page, 9);
  assert.deepEqual(found[0]!.witness, [stale.free, stale.post, stale.alloc, stale.land, stale.read]);
});

test("restored from a snapshot at every point, the model continues exactly as the one that ran through", () => {
  const { s } = cycling();
  const whole = createModel(PROFILE);
  const views = [JSON.stringify(whole.view())];
  const snaps = [JSON.stringify(whole.snapshot())];
  const stored = [encodeSnapshot(whole.snapshot())];
  const found: Violation[][] = [];
  for (const e of s.events) {
    found.push(whole.apply(e));
    views.push(JSON.stringify(whole.view()));
    snaps.push(JSON.stringify(whole.snapshot()));
    stored.push(encodeSnapshot(whole.snapshot()));
  }
  for (let k = 0; k < s.events.length; k += 3) {
    const restored = restoreModel(PROFILE, decodeSnapshot(stored[k]!));
    for (let i = k; i < s.events.length; i++) {
      assert.deepEqual(restored.apply(s.events[i]!), found[i], `violations of event ${i} after a restore at ${k}`);
      if ((i - k) % 5 === 0) assert.equal(JSON.stringify(restored.view()), views[i + 1], `view after event ${i}, restored at ${k}`);
    }
    assert.equal(JSON.stringify(restored.snapshot()), snaps[s.events.length], `final snapshot, restored at ${k}`);
  }
});

test("the view lists pages by rank, then buffer, then page, whatever order they were touched in", () => {
  const model = createModel(PROFILE);
  const s = new Stream();
  s.add("kv.alloc", { ...D, tp: 1, room: room(1), pages: [[40, 42]] });
  s.add("kv.alloc", { ...D, tp: 1, room: room(2), pages: [[2, 4]] });
  s.add("kv.alloc", { ...D, tp: 0, room: room(3), pages: [[10, 11]] });
  run(model, s, 0);
  assert.deepEqual(
    model.view().pages.map((p) => `${p.rank} ${p.buffer} ${p.page}`),
    [
      "decode/tp1 kv 2", "decode/tp1 kv 3", "decode/tp1 kv 40", "decode/tp1 kv 41",
      "decode/tp1 index_k 2", "decode/tp1 index_k 3", "decode/tp1 index_k 40", "decode/tp1 index_k 41",
      "decode/tp0 kv 10", "decode/tp0 index_k 10",
    ],
    "decode/tp1 was seen first, so its pool comes first",
  );
});

test("page numbers may be sparse and large; past 2^26 they are refused", () => {
  const model = createModel(PROFILE);
  const s = new Stream();
  s.add("kv.alloc", { ...D, tp: 0, room: room(1), pages: [[50_000_000, 50_000_002]] });
  s.add("kv.alloc", { ...D, tp: 0, room: room(2), pages: [[3, 4]] });
  run(model, s, 0);
  assert.deepEqual(model.view({ room: room(1) }).pages.map((p) => p.page), [50_000_000, 50_000_001, 50_000_000, 50_000_001]);
  const far = new Stream();
  far.add("kv.alloc", { ...D, tp: 0, room: room(3), pages: [[2 ** 26, 2 ** 26 + 1]] });
  assert.throws(() => model.apply(far.events[0]!), RangeError);
});
