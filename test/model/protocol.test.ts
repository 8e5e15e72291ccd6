// KVPoll, TransferStatus, notification tags, queue routing, chunk ids, the
// decode receiver and profile derivation against docs/protocol.md
// §5, §6, §7, §8 and §10.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ChunkCounter, DecodeReceiver, TransferStatus, defaultProfile, formatNotif, metadataGate, minReduce, notifOf, PrefillSender, profileFor, routeQueue, updateStatus, updateStatusBase } from "../../analyzer/model/index.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { parseNotifTag } from "../../domain/notifTag.js";

/** The model's reading of a tag, as it reads the fields the ingest decoded. */
const parseNotif = (tag: string) => notifOf(parseNotifTag(tag) ?? {});

const ROOM = "8972542885242963297";

test("update_status: absent rooms ignore Failed, present rooms take Failed, else the max", () => {
  assert.equal(updateStatusBase(null, KVPoll.Failed), null);
  assert.equal(updateStatusBase(null, KVPoll.WaitingForInput), KVPoll.WaitingForInput);
  assert.equal(updateStatusBase(KVPoll.Transferring, KVPoll.WaitingForInput), KVPoll.Transferring);
  assert.equal(updateStatusBase(KVPoll.Success, KVPoll.Failed), KVPoll.Failed);
});

test("a later WaitingForInput overwrites Failed under Mooncake's base rule but not under NIXL (Failed sticky)", () => {
  assert.equal(updateStatus("mooncake", KVPoll.Failed, KVPoll.WaitingForInput), KVPoll.WaitingForInput);
  assert.equal(updateStatus("nixl", KVPoll.Failed, KVPoll.WaitingForInput), KVPoll.Failed);
  assert.equal(updateStatus("nixl", KVPoll.Failed, KVPoll.Success), KVPoll.Failed);
  for (const backend of ["nixl", "mooncake"] as const) {
    const d = new DecodeReceiver(0, 1);
    d.status = KVPoll.Failed;
    d.set(backend, KVPoll.WaitingForInput, 2);
    assert.equal(d.status, backend === "nixl" ? KVPoll.Failed : KVPoll.WaitingForInput, backend);
  }
});

test("MIN reduction across ranks: Failed dominates, Success only when every rank has it", () => {
  assert.equal(minReduce([KVPoll.Success, KVPoll.Failed]), KVPoll.Failed);
  assert.equal(minReduce([KVPoll.Success, KVPoll.Success]), KVPoll.Success);
  assert.equal(minReduce([KVPoll.WaitingForInput, KVPoll.Transferring, KVPoll.Success]), KVPoll.WaitingForInput);
});

test("conclude_state keeps the first terminal state poll() saw", () => {
  // Mooncake's base update_status lets a later Failed overwrite Success; poll() still reports Success.
  const sender = new PrefillSender(0, 0, 1);
  assert.equal(sender.set("mooncake", KVPoll.WaitingForInput, 2), true);
  assert.equal(sender.poll(), KVPoll.WaitingForInput);
  assert.equal(sender.set("mooncake", KVPoll.Success, 3), true);
  assert.equal(sender.set("mooncake", KVPoll.Failed, 4, "late failure"), true);
  assert.equal(sender.status, KVPoll.Failed);
  assert.equal(sender.poll(), KVPoll.Success);
  assert.equal(sender.changedSeq, 4);
  assert.equal(sender.reason, "late failure");
});

test("notification tags decode as decode splits them", () => {
  assert.deepEqual(parseNotif("5830149913321_kv_2_1_0"), { room: "5830149913321", kind: "kv", chunk: 2, isLast: true, src: 0, part: null, parts: null });
  assert.equal(parseNotif(`${ROOM}_kv_0_0`)!.src, 0, "tags before #15027 carry no source");
  assert.equal(parseNotif(`${ROOM}_kv_0_0_3`)!.room, ROOM, "a 19-digit room stays exact");
  assert.deepEqual(parseNotif(`${ROOM}_kv_1_0_1_part_0_2`)!.parts, 2);
  assert.deepEqual(parseNotif(`${ROOM}_state_3_0`)!.src, 3);
  assert.equal(parseNotif(`${ROOM}_aux`)!.kind, "aux");
  assert.deepEqual(parseNotif(`${ROOM}_aux_nokv_1_4`), { room: ROOM, kind: "aux_nokv", chunk: 4, isLast: true, src: 1, part: null, parts: null });
  assert.equal(parseNotif(`${ROOM}_stg_2_1_0_0_128_64_agent_x`)!.kind, "stg");
  assert.equal(parseNotif("hello_kv_1_1_0"), null);
  assert.equal(parseNotif(`${ROOM}_kv_x_1_0`), null);
  for (const tag of [`${ROOM}_kv_2_1_0`, `${ROOM}_aux`, `${ROOM}_aux_nokv_1_4`]) assert.equal(formatNotif(parseNotif(tag)!), tag);
});

test("is_done() is false until aux arrives, even with every KV chunk in", () => {
  const t = new TransferStatus();
  t.apply(parseNotif(`${ROOM}_kv_0_0_0`)!);
  t.apply(parseNotif(`${ROOM}_kv_1_1_0`)!);
  assert.equal(t.isDone(), false);
  assert.deepEqual(t.missing(), ["aux"]);
  t.apply(parseNotif(`${ROOM}_aux`)!);
  assert.equal(t.isDone(), true);
});

test("is_done() waits for a missing middle chunk and for state when the room expects it", () => {
  const t = new TransferStatus(1, true);
  t.apply(parseNotif(`${ROOM}_kv_2_1_0`)!);
  t.apply(parseNotif(`${ROOM}_aux`)!);
  t.apply(parseNotif(`${ROOM}_kv_0_0_0`)!);
  assert.equal(t.isDone(), false, "chunk 1 missing, state missing");
  t.apply(parseNotif(`${ROOM}_kv_1_0_0`)!);
  assert.equal(t.isDone(), false, "state missing");
  t.apply(parseNotif(`${ROOM}_state_0_0`)!);
  assert.equal(t.isDone(), true);
});

test("aux_nokv: the last chunk had no pages; its count is the number of earlier chunks expected", () => {
  const t = new TransferStatus();
  t.apply(parseNotif(`${ROOM}_kv_0_0_0`)!);
  t.apply(parseNotif(`${ROOM}_aux_nokv_0_2`)!);
  assert.equal(t.isDone(), false, "two chunks expected, one received");
  t.apply(parseNotif(`${ROOM}_kv_1_0_0`)!);
  assert.equal(t.isDone(), true);
});

test("is_done() needs every expected source when two prefill ranks answer", () => {
  const t = new TransferStatus(2);
  t.apply(parseNotif(`${ROOM}_kv_0_1_0`)!);
  t.apply(parseNotif(`${ROOM}_aux`)!);
  assert.equal(t.isDone(), false);
  t.apply(parseNotif(`${ROOM}_kv_0_1_1`)!);
  assert.equal(t.isDone(), true);
});

test("queue routing: room % n before v0.5.17 (19-digit rooms exact), sum of destination ports % n from v0.5.17", () => {
  const old = defaultProfile({ backend: "nixl", version: "0.5.16" });
  const cur = defaultProfile({ backend: "nixl", version: "0.5.17" });
  assert.equal(old.queueRouting, "room-mod");
  assert.equal(cur.queueRouting, "dst-port-sum");
  // 8972542885242963297 = 4k + 1; as a float it would round to a multiple of 4.
  assert.equal(routeQueue(old.queueRouting, 4, ROOM, null), 1);
  assert.equal(routeQueue(old.queueRouting, 4, "5830149913322", null), 2);
  // 17001 + 17002 = 34003 = 4 × 8500 + 3
  assert.equal(routeQueue(cur.queueRouting, 4, ROOM, [17001, 17002]), 3);
  assert.equal(routeQueue(cur.queueRouting, 4, ROOM, null), null, "unknown ports: no queue");
  assert.equal(routeQueue("room-mod", 0, ROOM, null), null, "no worker queues (≤ v0.5.11)");
});

test("chunk ids: empty non-final chunks are not sent and take no id; is_last is page-based", () => {
  const c = new ChunkCounter(10);
  assert.deepEqual(c.send(4), { chunkId: 0, isLast: false });
  assert.deepEqual(c.send(0), { chunkId: null, isLast: false });
  assert.deepEqual(c.send(4), { chunkId: 1, isLast: false });
  assert.deepEqual(c.send(2), { chunkId: 2, isLast: true });
  assert.deepEqual(new ChunkCounter(0).send(0), { chunkId: 0, isLast: true }, "an empty last chunk is still sent");
});

test("decode receiver: WaitingForInput locally at send_metadata, timeout 300 s from there, ABORT only after init from v0.5.13", () => {
  const p14 = defaultProfile({ backend: "nixl", version: "0.5.14" });
  const d = new DecodeReceiver(0, 1);
  assert.equal(d.status, KVPoll.Bootstrapping);
  assert.equal(d.waitingDeadlineUs(p14), Infinity);
  d.metadataSent("nixl", [4, 5], 1_000_000, 2);
  assert.equal(d.status, KVPoll.WaitingForInput);
  assert.equal(d.waitingDeadlineUs(p14), 301_000_000);
  assert.equal(d.abort(p14, 3), true);
  assert.equal(d.status, KVPoll.Failed);
  assert.equal(d.reason, "Aborted by AbortReq.");
  assert.equal(d.abort(p14, 4), false, "ABORT goes out once");

  const early = new DecodeReceiver(0, 1);
  assert.equal(early.abort(p14, 2), false, "no bootstrap infos before init");
  const p12 = defaultProfile({ backend: "nixl", version: "0.5.12" });
  const old = new DecodeReceiver(0, 1);
  old.metadataSent("nixl", [1], 0, 2);
  assert.equal(old.abort(p12, 3), false, "decode sends no ABORT before #27372");
});

test("metadata gate: a polled Success reads Transferring until the metadata landed", () => {
  assert.equal(metadataGate(KVPoll.Success, false), KVPoll.Transferring);
  assert.equal(metadataGate(KVPoll.Success, true), KVPoll.Success);
  assert.equal(metadataGate(KVPoll.WaitingForInput, false), KVPoll.WaitingForInput);
});

test("profiles follow the version history and explicit settings win", () => {
  const n14 = defaultProfile({ backend: "nixl", version: "0.5.14" });
  assert.equal(n14.abortHandling, "fatal-assert");
  assert.equal(n14.prefillBootstrapTimeout, false);
  assert.equal(n14.decodeSendsAbort, true);
  assert.equal(n14.indexKRaggedAccessorsWait, true);
  assert.equal(defaultProfile({ backend: "nixl", version: "0.5.16" }).abortHandling, "failed-no-ack");
  assert.equal(defaultProfile({ backend: "nixl", version: "0.5.18" }).prefillBootstrapTimeout, true);
  assert.equal(defaultProfile({ backend: "nixl", version: "0.5.11" }).transferQueues, 0);
  assert.equal(defaultProfile({ backend: "nixl", version: "0.5.10" }).indexKRaggedAccessorsWait, false);
  const m = defaultProfile({ backend: "mooncake", version: "v0.5.14" });
  assert.equal(m.abortHandling, "failed-ack");
  assert.equal(m.prefillBootstrapTimeout, true);
  assert.equal(defaultProfile({ backend: "nixl", version: "0.5.14", abortHandling: "failed-no-ack" }).abortHandling, "failed-no-ack");
  const fromConfig = profileFor({ backend: "nixl", version: "0.5.15", index_k_dtype: "bfloat16", hicache: true, index_k_bytes_per_token: 132 });
  assert.equal(fromConfig.indexKDtype, "bf16");
  assert.equal(fromConfig.hicache, true);
  assert.equal(fromConfig.indexKBytesPerTokenConfigured, 132);
  assert.throws(() => profileFor({ version: "0.5.15" }), /backend/);
  assert.throws(() => defaultProfile({ backend: "nixl", version: "latest" }), /not an SGLang version/);
});
