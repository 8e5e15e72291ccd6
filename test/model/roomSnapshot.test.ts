// The rooms of a snapshot as tables: every field of a room, its senders and
// its receivers comes back through the byte form the store keeps — nulls as
// nulls, µs times past 2^31, reasons on some records and not on others, the
// lists each holds — and the maps keep their order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { KVPoll } from "../../domain/vocabulary.js";
import { defaultProfile } from "../../analyzer/model/index.js";
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

const PROFILE = defaultProfile({ backend: "nixl", version: "0.5.20" });

function roundTrip(reg: RoomRegistry): RoomRegistry {
  // Write slots 0 and 2 are write ids 100 and 102 in the snapshot.
  const stored = decodeSnapshot(encodeSnapshot(encodeRooms(reg, (w) => 100 + w, PROFILE))) as unknown[];
  return decodeRooms(stored, (id) => id - 100);
}

/** The rooms in order, each as "record" or "row" (not yet a record). */
function shapes(reg: RoomRegistry): string[] {
  const out: string[] = [];
  reg.visit(
    (r) => out.push(`${r.room} record`),
    (rows, row) => out.push(`${rows.ids[row]} row`),
  );
  return out;
}

test("every field of a room, its senders and receivers comes back through the stored bytes, in order", () => {
  const reg = registry();
  const back = roundTrip(reg);
  assert.deepEqual([...back.byRid], [...reg.byRid]);
  const [a, b] = [back.records(), reg.records()];
  assert.deepEqual(a.map((r) => r.room), b.map((r) => r.room));
  for (let i = 0; i < a.length; i++) {
    assert.deepEqual(a[i], b[i], `room ${b[i]!.room}`);
    assert.deepEqual([...a[i]!.prefill.keys()], [...b[i]!.prefill.keys()], "senders in their order");
    assert.deepEqual([...a[i]!.decode.keys()], [...b[i]!.decode.keys()], "receivers in their order");
  }
  const sender0 = back.find("5737280593427923200")!.prefill.get(0)!;
  assert.equal(sender0.reason, "KVTransferError: NIXL_ERR_REMOTE_DISCONNECT");
  assert.equal(sender0.lastChunk, null);
  assert.equal(back.find("5737280593427923200")!.prefill.get(3)!.reason, null);
  assert.equal(back.find("8788315687592864526")!.decode.get(1)!.status, null);
  assert.equal(back.find("8788315687592864526")!.decode.get(1)!.metaTsUs, T0 + 16_700_000);
});

test("a restored registry makes a room a record only when it is asked for, in its place", () => {
  const back = roundTrip(registry());
  assert.deepEqual(shapes(back), ["5737280593427923200 row", "8788315687592864526 row"]);
  assert.equal(back.size, 2);
  back.find("8788315687592864526");
  assert.deepEqual(shapes(back), ["5737280593427923200 row", "8788315687592864526 record"]);
  back.get("4000000000000000001", 900, T0);
  assert.deepEqual(shapes(back), ["5737280593427923200 row", "8788315687592864526 record", "4000000000000000001 record"]);
  assert.equal(back.records().length, 3);
  assert.deepEqual(shapes(back), ["5737280593427923200 record", "8788315687592864526 record", "4000000000000000001 record"]);
});

test("a stored room answers the timeouts and retirement without becoming a record", () => {
  const reg = new RoomRegistry();
  const waiting = reg.get("1111111111111111111", 1, T0);
  const d = new DecodeReceiver(0, 1);
  d.metadataSent("nixl", [4, 5], T0 + 2_000_000, 2);
  waiting.decode.set(0, d);
  const done = reg.get("2222222222222222222", 3, T0);
  const s = new PrefillSender(0, T0, 3);
  s.concluded = KVPoll.Success;
  done.prefill.set(0, s);
  reg.linkRid("rid-done", done);
  const back = roundTrip(reg);
  const due = T0 + 2_000_000 + PROFILE.waitingTimeoutS * 1e6;

  const visited: string[] = [];
  assert.equal(back.forEachDueBy(due - 1, (r) => visited.push(r.room)), due, "the waiting receiver's deadline, from its row");
  assert.equal(visited.length, 0);
  back.retire(T0 + 11_000_000, 10_000_000, 600_000_000);
  assert.deepEqual(shapes(back), ["1111111111111111111 row"], "the settled room retired from its row, the waiting one kept");
  assert.equal(back.byRid.size, 0, "with its rid");
  assert.equal(back.forEachDueBy(due, (r) => visited.push(r.room)), Infinity);
  assert.deepEqual(visited, ["1111111111111111111"], "a room whose deadline has come is handed over as a record");
  assert.deepEqual(shapes(back), ["1111111111111111111 record"]);
});

test("an empty registry is an empty registry", () => {
  const back = roundTrip(new RoomRegistry());
  assert.equal(back.size, 0);
  assert.equal(back.byRid.size, 0);
});
