// HiCache layer-wise loads and which index-K reads wait for them
// (docs/hicache-indexk.md §1.2–§1.4; DESIGN.md seed case 3).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LayerDoneCounter, accessorWaits, createModel, defaultProfile, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";

const ROOM = "8972542885242963296";

test("wait_until is a no-op while the consumer index is -1, and a GPU wait on the slot's layer otherwise", () => {
  const c = new LayerDoneCounter();
  const { load } = c.startLoad(1, 61, 10);
  assert.equal(load.slot, 0);
  assert.equal(c.consumerIndex, -1);
  assert.deepEqual(c.waitUntil(5, 11), { ordered: false, load: null });
  assert.equal(load.waitedMax, -1);
  c.setConsumer(0, 12);
  assert.equal(c.waitUntil(5, 13).ordered, true);
  assert.equal(load.waitedMax, 5);
  // Three producer slots in a ring; the fourth load reuses slot 0.
  assert.equal(c.startLoad(2, 61, 14).load.slot, 1);
  assert.equal(c.startLoad(3, 61, 15).load.slot, 2);
  const fourth = c.startLoad(4, 61, 16);
  assert.equal(fourth.load.slot, 0);
  assert.equal(fourth.reusedUnfinished?.id, 1, "slot 0's load had not finished: the producer assertion's case");
  assert.equal(c.loadById(1), null);
});

test("accessor table: main KV and the paged index-K getter always wait; the ragged getters only after #22811", () => {
  const pre = defaultProfile({ backend: "nixl", version: "0.5.10" });
  const post = defaultProfile({ backend: "nixl", version: "0.5.14" });
  assert.equal(accessorWaits("get_kv_buffer", pre), true);
  assert.equal(accessorWaits("get_index_k_with_scale_buffer", pre), true);
  for (const a of ["get_index_k_scale_buffer", "get_index_k_continuous", "get_index_k_scale_continuous"]) {
    assert.equal(accessorWaits(a, pre), false, a);
    assert.equal(accessorWaits(a, post), true, a);
  }
  assert.equal(accessorWaits("something_else", post), null);
});

interface ReadCase {
  version: string;
  waitLayer?: number;
  readLayer: number;
  consumer: number;
  accessor?: string;
}

/** A load-back of pages [100, 104) on prefill with layers 0..9 done, then one ragged index-K read. */
function loadThenRead(c: ReadCase): { found: Violation[]; s: Stream } {
  const model = createModel(defaultProfile({ backend: "nixl", version: c.version, hicache: true }));
  const s = new Stream();
  const where = { role: "prefill" as const, host: "p0", tp: 2 };
  s.add("hicache.load", { ...where, pages: [[100, 104]], attrs: { slot: 0, layers: 61 } });
  for (let l = 0; l < 10; l++) s.add("hicache.layer", { ...where, layer: l, attrs: { slot: 0 } });
  if (c.waitLayer !== undefined) s.add("hicache.wait", { ...where, layer: c.waitLayer, attrs: { slot: 0 } });
  s.add("kernel.read", {
    ...where,
    room: ROOM,
    layer: c.readLayer,
    pages: [[100, 102]],
    attrs: { buffer: "index_k", consumer: c.consumer, accessor: c.accessor ?? "get_index_k_scale_buffer" },
  });
  return { found: s.events.flatMap((e) => model.apply(e)), s };
}

test("pre-#22811: a ragged index-K read of a layer still loading is flagged", () => {
  const { found, s } = loadThenRead({ version: "0.5.10", readLayer: 10, consumer: 0 });
  assert.equal(found.length, 1);
  const v = found[0]!;
  assert.equal(v.check, "hicache-ungated-read");
  assert.equal(v.rank, "prefill/tp2");
  assert.equal(v.room, ROOM);
  assert.equal(v.seq, s.events.at(-1)!.seq);
  assert.deepEqual(v.witness, [s.events[0]!.seq, s.events[10]!.seq, s.events.at(-1)!.seq]);
  assert.equal(v.detail.layersDone, 10);
  assert.equal(v.detail.page, 100);
});

test("the same read is not flagged when it waited, when its layer had landed, or after #22811", () => {
  assert.deepEqual(loadThenRead({ version: "0.5.10", readLayer: 10, consumer: 0, waitLayer: 10 }).found, []);
  assert.deepEqual(loadThenRead({ version: "0.5.10", readLayer: 9, consumer: 0 }).found, []);
  assert.deepEqual(loadThenRead({ version: "0.5.14", readLayer: 10, consumer: 0 }).found, []);
  assert.deepEqual(loadThenRead({ version: "0.5.10", readLayer: 10, consumer: 0, accessor: "get_index_k_with_scale_buffer" }).found, []);
});

test("with wait probes recorded, a wait for an earlier layer does not gate a later one; consumer -1 never gates", () => {
  const early = loadThenRead({ version: "0.5.14", readLayer: 12, consumer: 0, waitLayer: 10 }).found;
  assert.deepEqual(early.map((v) => v.check), ["hicache-ungated-read"]);
  const idle = loadThenRead({ version: "0.5.14", readLayer: 12, consumer: -1 }).found;
  assert.deepEqual(idle.map((v) => v.detail.why), ["consumer index -1: wait_until is a no-op"]);
});
