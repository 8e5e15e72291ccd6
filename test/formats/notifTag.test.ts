// The one NIXL notification tag parser (domain/notifTag.ts)
// over the tags SGLang's senders build, written as the sender code writes
// them (python/sglang/srt/disaggregation/nixl/conn.py; docs/protocol.md §6
// cites the copies read), and what decode's reader
// (`msg.decode("ascii").split("_", 8)`) takes from each: room, chunk, is_last,
// source rank, and the form's own fields. The model reads the fields the
// ingest decodes with it (analyzer/model/notif.ts notifOf).

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNotifTag } from "../../domain/notifTag.js";
import { notifOf } from "../../analyzer/model/notif.js";

/** The model's reading of a tag, as it reads the fields the ingest decoded. */
const parseNotif = (tag: string) => notifOf(parseNotifTag(tag) ?? {});

/** A 19-digit bootstrap room (rooms are random 63-bit integers). */
const room = "8972542885242963297";
const chunkId = 3;
const engineRank = 5;
/** transfer_source_rank = pp_rank * tp_size + engine_rank, with pp_rank 1 and tp_size 8. */
const transferSourceRank = 1 * 8 + engineRank;
const int = (b: boolean) => (b ? 1 : 0);

test("the first NIXL backend: `\"_\".join([str(req.room), \"kv\", str(chunk_id), str(int(is_last))])` and `str(req.room) + \"_aux\"`", () => {
  const kv = ["" + room, "kv", String(chunkId), String(int(true))].join("_");
  assert.deepEqual(parseNotifTag(kv), { room, tagKind: "kv", chunk: chunkId, isLast: true });
  assert.equal(parseNotif(kv)?.src, 0, "no source field: decode reads pp_rank 0");
  assert.deepEqual(parseNotifTag(room + "_aux"), { room, tagKind: "aux" });
});

test("kv with the source field: `f\"{req.room}_kv_{chunk_id}_{int(is_last)}_{…rank}\"`, each era's rank", () => {
  for (const rank of [0 /* pp_rank */, engineRank /* engine_rank */, transferSourceRank]) {
    const tag = `${room}_kv_${chunkId}_${int(false)}_${rank}`;
    assert.deepEqual(parseNotifTag(tag), { room, tagKind: "kv", chunk: chunkId, isLast: false, src: rank }, tag);
  }
});

test("mixed VRAM/DRAM parts: `{room}_kv_{chunk_id}_{is_last}_{pp_rank}_part_{i}_{n}` (decode: len > 7 and components[5] == \"part\")", () => {
  const tag = `${room}_kv_${chunkId}_${int(true)}_${transferSourceRank}_part_1_2`;
  assert.deepEqual(parseNotifTag(tag), { room, tagKind: "kv_part", chunk: chunkId, isLast: true, src: transferSourceRank, part: 1, parts: 2 });
  assert.deepEqual(parseNotif(tag), { room, kind: "kv", chunk: chunkId, isLast: true, src: transferSourceRank, part: 1, parts: 2 });
});

test("staged: nine fields, the agent name (components[8]) keeps its underscores under split(\"_\", 8)", () => {
  const tag = `${room}_stg_2_${int(true)}_4_8_1024_64_agent_with_underscores`;
  const parsed = parseNotifTag(tag);
  assert.deepEqual(parsed, {
    room, tagKind: "staged", chunk: 2, isLast: true, src: 4, chunkIdx: 8, pageStart: 1024, numPages: 64, agentName: "agent_with_underscores",
  });
  assert.equal(parsed && "chunk" in parsed ? parsed.chunk : undefined, 2);
  assert.equal(parseNotif(tag)?.kind, "stg");
});

test("kv+state bundled: `f\"{req.room}_kvstate_{chunk_id}_{self.kv_args.engine_rank}\"` is always the last chunk", () => {
  assert.deepEqual(parseNotifTag(`${room}_kvstate_${chunkId}_${engineRank}`), { room, tagKind: "kv_state", chunk: chunkId, isLast: true, src: engineRank });
});

test("state: `f\"{req.room}_state_{self.kv_args.engine_rank}\"`, with maybe_send_extra's `_{i}`; decode reads components[2]", () => {
  assert.deepEqual(parseNotifTag(`${room}_state_${engineRank}`), { room, tagKind: "state", src: engineRank });
  assert.deepEqual(parseNotifTag(`${room}_state_${engineRank}_0`), { room, tagKind: "state", src: engineRank, component: 0 });
  assert.equal(parseNotif(`${room}_state_${engineRank}_0`)?.src, engineRank);
  assert.equal("chunk" in parseNotifTag(`${room}_state_${engineRank}`)!, false);
});

test("aux without KV: `f\"{req.room}_aux_nokv_{rank}\"` (#19746) and `…_aux_nokv_{transfer_source_rank}_{kv_chunk.chunk_id}` (#32837)", () => {
  assert.deepEqual(parseNotifTag(`${room}_aux_nokv_${engineRank}`), { room, tagKind: "aux_nokv", src: engineRank });
  const counted = `${room}_aux_nokv_${transferSourceRank}_${chunkId}`;
  assert.deepEqual(parseNotifTag(counted), { room, tagKind: "aux_nokv", src: transferSourceRank, expectedChunks: chunkId });
  assert.deepEqual(parseNotif(counted), { room, kind: "aux_nokv", chunk: chunkId, isLast: true, src: transferSourceRank, part: null, parts: null });
  // Upstream's own decode tests send these.
  assert.deepEqual(parseNotifTag("27_aux_nokv_1"), { room: "27", tagKind: "aux_nokv", src: 1 });
  assert.deepEqual(parseNotifTag("21_aux_nokv_0_0"), { room: "21", tagKind: "aux_nokv", src: 0, expectedChunks: 0 });
});

test("what no sender writes is no tag: decode would fail on int() or the form is unknown", () => {
  for (const tag of [`${room}_kv_x_1_0`, `${room}_kv_0_2_0`, `${room}_stg_2_1_4_8_1024`, `${room}_aux_nokv`, `${room}_meta_0`, `room_kv_0_1_0`, ""]) {
    assert.equal(parseNotifTag(tag), null, tag);
    assert.equal(parseNotif(tag), null, tag);
  }
});

test("the kv tags read in place (the common form) read as the split would: leading zeros, empty and extra fields", () => {
  assert.deepEqual(parseNotifTag(`${room}_kv_007_0_05`), { room, tagKind: "kv", chunk: 7, isLast: false, src: 5 });
  assert.deepEqual(parseNotifTag(`${room}_kv_12_1`), { room, tagKind: "kv", chunk: 12, isLast: true });
  assert.deepEqual(parseNotifTag(`${room}_kv_1_1_3_part_0_2`), { room, tagKind: "kv_part", chunk: 1, isLast: true, src: 3, part: 0, parts: 2 });
  for (const tag of [`${room}_kv_1_1_`, `${room}_kv_1_10`, `${room}_kv__1`, `${room}_kv_1_1_3_4`, `${room}_kv_1_1_3x`, `_kv_1_1`, `${room}_kv_1234567890123456_0`]) {
    assert.equal(parseNotifTag(tag), null, tag);
  }
});
