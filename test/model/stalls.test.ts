// Transfer stalls: the cause the model gives a timed-out room
// (docs/protocol.md §5.1–§5.2, #32267; DESIGN.md seed case 4).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createModel, defaultProfile } from "../../analyzer/model/index.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { Stream } from "./stream.js";

const ROOM = "5830149913321";
const D = { role: "decode" as const, tp: 0 };
const P = { role: "prefill" as const, tp: 0 };

function decodeTimeoutLine(s: Stream, at: number) {
  return s.add("pd.transfer_failed", {
    ...D,
    room: ROOM,
    attrs: { reasonKind: "timeout", timeoutState: "WaitingForInput" },
    text: `Decode transfer failed for request rank=0 decode_req.req.rid='x' decode_req.req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.WaitingForInput`,
    at,
  });
}

test("a timeout with every notification in is a false timeout before #32267 (v0.5.17); after it, evidence and model disagree", () => {
  for (const [version, cause] of [
    ["0.5.16", "false-timeout"],
    ["0.5.17", "completed-before-timeout"],
  ] as const) {
    const model = createModel(defaultProfile({ backend: "nixl", version }));
    const s = new Stream();
    s.add("boot.got_info", { ...P, room: ROOM, at: 1 });
    s.add("kv.meta", { ...D, room: ROOM, pages: [[0, 1]], at: 1 });
    s.add("kv.post", { ...P, room: ROOM, chunk: 0, pages: [[5, 6]], attrs: { last: true }, at: 2 });
    s.add("kv.done", { ...P, room: ROOM, chunk: 0, at: 2.1 });
    s.add("kv.notify", { ...D, room: ROOM, attrs: { tag: `${ROOM}_kv_0_1_0` }, at: 2.2 });
    s.add("kv.notify", { ...D, room: ROOM, attrs: { tag: `${ROOM}_aux` }, at: 2.3 });
    decodeTimeoutLine(s, 301.5);
    const found = s.events.flatMap((e) => model.apply(e));
    assert.deepEqual(found.map((v) => [v.check, v.detail.cause]), [["transfer-stall", cause]], version);
  }
});

test("a room whose chunks sit in a backed-up transfer queue stalls with the queue named", () => {
  const model = createModel(defaultProfile({ backend: "nixl", version: "0.5.16" }));
  const s = new Stream();
  s.add("kv.meta", { ...D, room: ROOM, pages: [[0, 4]], at: 1 });
  for (let i = 0; i < 3; i++) s.add("kv.post", { ...P, room: String(900 + i), chunk: 0, pages: [[i, i + 1]], attrs: { last: true, queue: 2 }, at: 1 });
  s.add("boot.got_info", { ...P, room: ROOM, at: 1.5 });
  const post = s.add("kv.post", { ...P, room: ROOM, chunk: 0, pages: [[10, 14]], attrs: { last: true, queue: 2 }, at: 2 });
  const line = decodeTimeoutLine(s, 301.5);
  const found = s.events.flatMap((e) => model.apply(e));
  assert.equal(found.length, 1);
  assert.equal(found[0]!.detail.cause, "transfer-in-flight");
  assert.equal(found[0]!.detail.queue, 2);
  assert.equal(found[0]!.detail.queueDepth, 4);
  assert.deepEqual(found[0]!.witness, [post.seq, s.events[0]!.seq, line.seq]);
  assert.equal(model.view().queues.find((q) => q.queue === 2)!.depth, 4);
});

test("Mooncake prefill times out in Bootstrapping when decode's metadata never arrives", () => {
  const model = createModel(defaultProfile({ backend: "mooncake", version: "0.5.16" }));
  const s = new Stream();
  const arrive = s.add("req.arrive", { ...P, room: ROOM, rid: "r1", at: 1 });
  const line = s.add("pd.bootstrap_failed", {
    ...P,
    room: ROOM,
    attrs: { reasonKind: "timeout", timeoutState: "Bootstrapping" },
    text: `Prefill bootstrap failed for request rank=0 req.rid='r1' req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.Bootstrapping`,
    at: 301,
  });
  const found = s.events.flatMap((e) => model.apply(e));
  assert.deepEqual(found.map((v) => [v.check, v.detail.side, v.detail.cause, v.witness]), [["transfer-stall", "prefill", "metadata-never-arrived", [arrive.seq, line.seq]]]);
  assert.equal(model.view().rooms[0]!.prefill.state, KVPoll.Failed);
});
