// Shadow memory through the model: a decode page freed while the prefill's
// write for its old room is in flight, then reused (DESIGN.md seed case 4,
// docs/hicache-indexk.md §1.4 race #1); reads before a landed write;
// completion declared without aux (seed case 7).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile, type ReplayModel, type Violation } from "../../analyzer/model/index.js";
import { Stream } from "./stream.js";

const OLD = "8972542885242963296";
const NEW = "8972542885242963297";
const D = { role: "decode" as const, host: "d0", tp: 3 };
const P = { role: "prefill" as const, host: "p0", tp: 3 };

function run(model: ReplayModel, s: Stream): Violation[] {
  return s.events.flatMap((e) => model.apply(e));
}

/** Room OLD gets decode pages [8,10), prefill posts its only chunk, decode times out and frees the pages. */
function oldRoomAbandoned(s: Stream, landBeforeFree: boolean): void {
  s.add("kv.alloc", { ...D, room: OLD, pages: [[8, 10]] });
  s.add("kv.meta", { ...D, room: OLD, pages: [[8, 10]] });
  s.add("kv.post", { ...P, room: OLD, chunk: 0, pages: [[40, 42]], attrs: { last: true, queue: 1, bytes: 2 * 8448 } });
  if (landBeforeFree) s.add("kv.done", { ...P, room: OLD, chunk: 0 });
  s.add("pd.transfer_failed", {
    ...D,
    room: OLD,
    attrs: { reasonKind: "timeout", timeoutState: "WaitingForInput" },
    text: `Decode transfer failed for request rank=3 decode_req.req.rid='old' decode_req.req.bootstrap_room=${OLD} with exception KVTransferError(bootstrap_room=${OLD}): Request ${OLD} timed out after 300.0s in KVPoll.WaitingForInput`,
  });
  s.add("kv.free", { ...D, room: OLD, pages: [[8, 10]] });
}

test("stale slot reuse: freed with the old room's write in flight, reallocated, read by the new room", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16", indexKDtype: "bf16" }));
  const s = new Stream();
  oldRoomAbandoned(s, false);
  const alloc = s.add("kv.alloc", { ...D, room: NEW, pages: [[8, 10]] });
  s.add("kv.meta", { ...D, room: NEW, pages: [[8, 10]] });
  const read = s.add("kernel.read", { ...D, room: NEW, layer: 3, pages: [[8, 10]], attrs: { buffer: "index_k", consumer: -1 } });
  const found = run(model, s);
  const [post, timeout, free] = [s.events[2]!, s.events[3]!, s.events[4]!];

  const stall = found.find((v) => v.check === "transfer-stall")!;
  assert.equal(stall.seq, timeout.seq);
  assert.equal(stall.detail.cause, "transfer-in-flight");
  assert.equal(stall.detail.queueDepth, 1);

  const stale = found.filter((v) => v.check === "stale-slot-reuse");
  assert.equal(stale.length, 1, "one finding per room, however many pages");
  assert.equal(stale[0]!.seq, read.seq);
  assert.equal(stale[0]!.room, NEW);
  assert.equal(stale[0]!.rank, "decode/tp3");
  assert.deepEqual(stale[0]!.witness, [free.seq, post.seq, alloc.seq, read.seq]);
  assert.equal(stale[0]!.detail.previousRoom, OLD);
  assert.equal(stale[0]!.detail.page, 8);

  const page = model.view({ room: NEW }).pages.find((p) => p.buffer === "index_k" && p.page === 8)!;
  assert.equal(page.ownerRoom, NEW);
  assert.equal(page.landed, false);
  assert.deepEqual(page.lastWriter, { room: OLD, chunk: 0, epoch: 1, seq: post.seq }, "posted in the old epoch; the page is in epoch 2 now");
});

test("stale slot reuse also when the orphaned write lands after the reallocation, before the read", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  oldRoomAbandoned(s, false);
  const alloc = s.add("kv.alloc", { ...D, room: NEW, pages: [[8, 10]] });
  const land = s.add("kv.done", { ...P, room: OLD, chunk: 0 });
  const read = s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: [[9, 10]], attrs: { buffer: "kv" } });
  const found = run(model, s).filter((v) => v.check === "stale-slot-reuse");
  assert.deepEqual(found.map((v) => v.witness), [[s.events[4]!.seq, s.events[2]!.seq, alloc.seq, land.seq, read.seq]]);
});

test("no stale reuse when the old write landed before the free, or the new room's own write landed last", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  oldRoomAbandoned(s, true);
  s.add("kv.alloc", { ...D, room: NEW, pages: [[8, 10]] });
  s.add("kv.meta", { ...D, room: NEW, pages: [[8, 10]] });
  s.add("kv.post", { ...P, room: NEW, chunk: 0, pages: [[50, 52]], attrs: { last: true } });
  s.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_kv_0_1_3` } });
  s.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_state_3_0` } });
  s.add("kernel.read", { ...D, room: NEW, layer: 3, pages: [[8, 10]], attrs: { buffer: "index_k" } });
  s.add("kernel.read", { ...D, room: NEW, layer: 3, pages: [[8, 10]], attrs: { buffer: "kv" } });
  const found = run(model, s);
  assert.deepEqual(found.map((v) => v.check), ["transfer-stall"]);
});

test("read before landed write: a room reads its own page while its chunk is still in flight", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  s.add("kv.alloc", { ...D, room: NEW, pages: [[0, 4]] });
  s.add("kv.meta", { ...D, room: NEW, pages: [[0, 4]] });
  const post0 = s.add("kv.post", { ...P, room: NEW, chunk: 0, pages: [[60, 62]], attrs: { last: false } });
  s.add("kv.post", { ...P, room: NEW, chunk: 1, pages: [[62, 64]], attrs: { last: true } });
  s.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_kv_1_1_3` } });
  const early = s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: [[0, 4]], attrs: { buffer: "kv" } });
  s.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_kv_0_0_3` } });
  s.add("kernel.read", { ...D, room: NEW, layer: 0, pages: [[0, 4]], attrs: { buffer: "kv" } });
  const found = run(model, s);
  assert.deepEqual(
    found.map((v) => [v.check, v.seq, v.witness, v.detail.page]),
    [["read-before-landed-write", early.seq, [post0.seq, early.seq], 0]],
    "chunk 0 covers pages 0-1 (in flight), chunk 1 pages 2-3 (landed)",
  );
});

test("incomplete completion: decode takes Success while is_done() lacks the aux", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  const meta = s.add("kv.meta", { ...D, room: NEW, pages: [[0, 2]] });
  s.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_kv_0_1_3` } });
  const poll = s.add("kv.poll", { ...D, room: NEW, attrs: { local: 4, reduced: 4 } });
  const found = run(model, s);
  assert.equal(found.length, 1);
  assert.equal(found[0]!.check, "incomplete-completion");
  assert.equal(found[0]!.seq, poll.seq);
  assert.equal(found[0]!.witness[0], meta.seq);
  assert.deepEqual(found[0]!.detail.missing, ["aux"]);

  const ok = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const t = new Stream();
  t.add("kv.meta", { ...D, room: NEW, pages: [[0, 2]] });
  t.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_kv_0_1_3` } });
  t.add("kv.notify", { ...D, room: NEW, attrs: { tag: `${NEW}_aux` } });
  t.add("kv.poll", { ...D, room: NEW, attrs: { local: 4, reduced: 4 } });
  assert.deepEqual(run(ok, t), []);
  assert.equal(ok.view().rooms[0]!.decode.state, 4);
});

test("metadata buffer collision: a live room's aux slot handed to another room", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  const first = s.add("kv.meta", { ...D, room: OLD, pages: [[0, 2]], attrs: { aux_index: 7 } });
  const second = s.add("kv.meta", { ...D, room: NEW, pages: [[2, 4]], attrs: { aux_index: 7 } });
  const found = run(model, s);
  assert.deepEqual(found.map((v) => [v.check, v.witness, v.room]), [["metadata-collision", [first.seq, second.seq], NEW]]);
});
