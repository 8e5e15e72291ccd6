// The rooms of a snapshot as tables: every field of a room, its senders and
// its receivers comes back through the byte form the store keeps — nulls as
// nulls, µs times past 2^31, reasons on some records and not on others, the
// lists each holds — and the maps keep their order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { KVPoll } from "../../analyzer/model/api.js";
import { DecodeReceiver } from "../../analyzer/model/receiver.js";
import { decodeRooms, encodeRooms } from "../../analyzer/model/roomSnapshot.js";
import { RoomRegistry } from "../../analyzer/model/rooms.js";
import { PrefillSender } from "../../analyzer/model/sender.js";
import { decodeSnapshot, encodeSnapshot } from "../../analyzer/replay/snapshotCodec.js";

const T0 = 1_787_220_000_123_456;

function registry(): RoomRegistry {
  const reg = new RoomRegistry();
  const a = reg.get("5737280593427923200", 17, T0);
  a.flags = 9;
  a.assumed = 4;
  a.progressSeq = 64;
  a.dstPorts = [17001, 17003];
  a.inflight = [2, 0];
  reg.linkRid("rid-7f3a", a);
  for (const rank of [3, 0]) {
    const s = new PrefillSender(rank, T0 + rank, 20 + rank);
    s.status = KVPoll.Transferring;
    s.transferInfos = 1;
    s.chunksPosted = 2;
    s.pagesPosted = 130;
    s.chunksDone = 1;
    s.lastChunk = rank === 3 ? 1 : null;
    s.queue = rank === 3 ? 2 : null;
    s.changedSeq = 40 + rank;
    if (rank === 0) s.reason = "KVTransferError: NIXL_ERR_REMOTE_DISCONNECT";
    a.prefill.set(rank, s);
  }
  const b = reg.get("8788315687592864526", 1942133, T0 + 16_622_000);
  const d = new DecodeReceiver(1, 1942140);
  d.status = null;
  d.concluded = KVPoll.Failed;
  d.metaTsUs = T0 + 16_700_000;
  d.metaSeq = 1942150;
  d.pages = [40, 41, 42];
  d.auxIndex = 5;
  d.transfer.srcs = [0, 1];
  d.transfer.chunks = [[0], [0, 1]];
  d.transfer.expected = [-1, 2];
  d.abortNotified = true;
  d.freedSeq = 1942190;
  d.successFrom = [0];
  d.changedSeq = 1942189;
  d.reason = "Aborted by AbortReq.";
  b.decode.set(1, d);
  b.decode.set(0, new DecodeReceiver(0, 1942141));
  return reg;
}

test("every field of a room, its senders and receivers comes back through the stored bytes, in order", () => {
  const reg = registry();
  // Write slots 0 and 2 are write ids 100 and 102 in the snapshot.
  const stored = decodeSnapshot(encodeSnapshot(encodeRooms(reg, (w) => 100 + w))) as unknown[];
  const back = decodeRooms(stored, (id) => id - 100);
  assert.deepEqual([...back.rooms.keys()], [...reg.rooms.keys()]);
  assert.deepEqual([...back.byRid], [...reg.byRid]);
  for (const [room, r] of reg.rooms) {
    const b = back.rooms.get(room)!;
    assert.deepEqual(b, r, `room ${room}`);
    assert.deepEqual([...b.prefill.keys()], [...r.prefill.keys()], "senders in their order");
    assert.deepEqual([...b.decode.keys()], [...r.decode.keys()], "receivers in their order");
  }
  const sender0 = back.rooms.get("5737280593427923200")!.prefill.get(0)!;
  assert.equal(sender0.reason, "KVTransferError: NIXL_ERR_REMOTE_DISCONNECT");
  assert.equal(sender0.lastChunk, null);
  assert.equal(back.rooms.get("5737280593427923200")!.prefill.get(3)!.reason, null);
  assert.equal(back.rooms.get("8788315687592864526")!.decode.get(1)!.status, null);
  assert.equal(back.rooms.get("8788315687592864526")!.decode.get(1)!.metaTsUs, T0 + 16_700_000);
});

test("an empty registry is an empty registry", () => {
  const back = decodeRooms(decodeSnapshot(encodeSnapshot(encodeRooms(new RoomRegistry(), (w) => w))) as unknown[], (id) => id);
  assert.equal(back.rooms.size, 0);
  assert.equal(back.byRid.size, 0);
});
