// The shadow memory keeps runs of pages in the same state together; these
// cases change part of a run (a chunk's write over some of a room's pages, a
// free of some of them, a one-layer store on one page) and check that every
// page still answers as the reference says it must (DESIGN.md seed cases 3
// and 4; docs/hicache-indexk.md §1.4 race #1), also after a restore.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, restoreModel, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";
import { decodeSnapshot, encodeSnapshot } from "../../analyzer/replay/snapshotCodec.js";

const PROFILE = defaultProfile({ backend: "nixl", version: "0.5.16" });
const A = "8972542885242963296";
const B = "8972542885242963297";
const D = { role: "decode" as const, host: "d0", tp: 3 };
const P = { role: "prefill" as const, host: "p0", tp: 3 };

function violations(s: Stream): Violation[] {
  const model = createModel(PROFILE);
  return s.events.flatMap((e) => model.apply(e));
}

test("a chunk in flight over part of a room's pages: the read names the first page it covers", () => {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: A, pages: [[0, 4], [10, 14]] });
  s.add("kv.meta", { ...D, room: A, pages: [[0, 4], [10, 14]] });
  // The room's metadata page list is 0..3, 10..13: chunk 0 takes its first three pages, chunk 1 the next three (3, 10, 11).
  s.add("kv.post", { ...P, room: A, chunk: 0, pages: [[40, 43]], attrs: { queue: 0 } });
  const post1 = s.add("kv.post", { ...P, room: A, chunk: 1, pages: [[43, 46]], attrs: { queue: 0 } });
  s.add("kv.done", { ...P, room: A, chunk: 0 });
  const model = createModel(PROFILE);
  for (const e of s.events) assert.deepEqual(model.apply(e), []);

  const view = model.view();
  const kv = new Map(view.pages.filter((p) => p.buffer === "kv").map((p) => [p.page, p]));
  assert.deepEqual([...kv.keys()], [0, 1, 2, 3, 10, 11, 12, 13]);
  assert.deepEqual([...kv.values()].filter((p) => !p.landed).map((p) => p.page), [3, 10, 11], "chunk 1's pages are still in flight");
  assert.equal(kv.get(1)!.lastWriter?.chunk, 0);
  assert.equal(kv.get(10)!.lastWriter?.chunk, 1);
  assert.equal(kv.get(12)!.lastWriter, null, "no chunk has written page 12 yet");
  assert.ok([...kv.values()].every((p) => p.ownerRoom === A));

  const read = s.add("kernel.read", { ...D, room: A, layer: 0, pages: [[0, 4], [10, 14]], attrs: { buffer: "kv" } });
  const found = model.apply(read);
  assert.equal(found.length, 1);
  assert.equal(found[0]!.check, "read-before-landed-write");
  assert.equal(found[0]!.detail.page, 3, "the first page of chunk 1's write");
  assert.equal(found[0]!.detail.chunk, 1);
  assert.deepEqual(found[0]!.witness, [post1.seq, read.seq]);
});

/** Room A's only chunk is in flight over its pages 0..7 when decode frees pages 3 and 4, which room B then gets. */
function partlyFreed(): { s: Stream; seqs: { post: number; free: number; alloc: number; land: number } } {
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: A, pages: [[0, 8]] });
  s.add("kv.meta", { ...D, room: A, pages: [[0, 8]] });
  const post = s.add("kv.post", { ...P, room: A, chunk: 0, pages: [[40, 48]], attrs: { last: true, queue: 0 } });
  const free = s.add("kv.free", { ...D, room: A, pages: [[3, 5]] });
  const alloc = s.add("kv.alloc", { ...D, room: B, pages: [[3, 5]] });
  const land = s.add("kv.done", { ...P, room: A, chunk: 0 });
  return { s, seqs: { post: post.seq, free: free.seq, alloc: alloc.seq, land: land.seq } };
}

test("freeing part of a room's pages orphans its write there only; the new owner's read finds the late landing", () => {
  const { s, seqs } = partlyFreed();
  const read = s.add("kernel.read", { ...D, room: B, layer: 0, pages: [[0, 8]], attrs: { buffer: "kv" } });
  const found = violations(s);
  assert.equal(found.length, 1);
  const v = found[0]!;
  assert.equal(v.check, "stale-slot-reuse");
  assert.equal(v.room, B);
  assert.equal(v.detail.page, 3, "page 3 is the first of room B's pages; A's pages 0..2 are not B's to judge");
  assert.equal(v.detail.previousRoom, A);
  assert.deepEqual(v.witness, [seqs.free, seqs.post, seqs.alloc, seqs.land, read.seq]);

  const model = createModel(PROFILE);
  for (const e of s.events.slice(0, -1)) model.apply(e);
  const owners = model.view().pages.filter((p) => p.buffer === "index_k").map((p) => `${p.page}:${p.ownerRoom === A ? "A" : p.ownerRoom === B ? "B" : "-"}`);
  assert.deepEqual(owners, ["0:A", "1:A", "2:A", "3:B", "4:B", "5:A", "6:A", "7:A"]);
});

test("room A reading its own pages around the freed ones sees its landed write, nothing stale", () => {
  const { s } = partlyFreed();
  s.add("kernel.read", { ...D, room: A, layer: 0, pages: [[0, 3], [5, 8]], attrs: { buffer: "index_k" } });
  assert.deepEqual(violations(s), []);
});

test("a one-layer store covers its pages' layer only", () => {
  const { s } = partlyFreed();
  s.add("kernel.store", { ...D, room: B, layer: 1, pages: [[3, 5]], attrs: { buffer: "kv" } });
  s.add("kernel.store", { ...D, room: B, layer: 2, pages: [[3, 4]], attrs: { buffer: "kv" } });
  s.add("kernel.read", { ...D, room: B, layer: 1, pages: [[3, 5]], attrs: { buffer: "kv" } });
  const read = s.add("kernel.read", { ...D, room: B, layer: 2, pages: [[3, 5]], attrs: { buffer: "kv" } });
  const found = violations(s);
  assert.equal(found.length, 1, "layer 1 of both pages was rewritten by room B's own store");
  assert.equal(found[0]!.check, "stale-slot-reuse");
  assert.equal(found[0]!.detail.page, 4, "only page 3's layer 2 was rewritten");
  assert.equal(found[0]!.seq, read.seq);
});

test("restored from a snapshot taken while part of a run was freed, the model finds the same", () => {
  const { s } = partlyFreed();
  s.add("kernel.store", { ...D, room: B, layer: 1, pages: [[3, 4]], attrs: { buffer: "kv" } });
  s.add("kernel.read", { ...D, room: B, layer: 1, pages: [[0, 8]], attrs: { buffer: "kv" } });
  const expected = violations(s);
  assert.equal(expected.length, 1);
  for (let k = 1; k < s.events.length; k++) {
    const model = createModel(PROFILE);
    const before = s.events.slice(0, k).flatMap((e) => model.apply(e));
    const restored = restoreModel(PROFILE, decodeSnapshot(encodeSnapshot(model.snapshot())));
    assert.equal(JSON.stringify(restored.view()), JSON.stringify(model.view()), `view restored after event ${k}`);
    const after = s.events.slice(k).flatMap((e) => restored.apply(e));
    assert.deepEqual([...before, ...after], expected, `restored after event ${k}`);
  }
});
