// NIXL / Mooncake connector lines (docs/protocol.md §3.1–§3.3,
// §7.4) and the notification tags of §6, in every form and version.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseNotifTag } from "../../domain/notifTag.js";
import { parseLines, parseOne } from "./sglangHarness.js";

const ROOM = "8972542885242963296";
const TS = "[2026-08-20 10:20:01.250 DP0 TP3]";

test("notif tags of every §6 kind and version form", () => {
  const cases: Array<[string, object]> = [
    // kv, before #15027: no source field
    [`${ROOM}_kv_0_0`, { room: ROOM, tagKind: "kv", chunk: 0, isLast: false }],
    // kv with the source field (pp_rank → engine_rank → src by version)
    [`${ROOM}_kv_2_1_3`, { room: ROOM, tagKind: "kv", chunk: 2, isLast: true, src: 3 }],
    [`${ROOM}_kv_11_0_12`, { room: ROOM, tagKind: "kv", chunk: 11, isLast: false, src: 12 }],
    // kv part (mixed VRAM/DRAM destinations)
    [`${ROOM}_kv_4_1_3_part_1_2`, { room: ROOM, tagKind: "kv_part", chunk: 4, isLast: true, src: 3, part: 1, parts: 2 }],
    // staged: the agent name keeps its underscores (decode splits with maxsplit 8)
    [
      `${ROOM}_stg_1_0_3_5_1024_64_decode_10.0.4.2_rank_3`,
      { room: ROOM, tagKind: "staged", chunk: 1, isLast: false, src: 3, chunkIdx: 5, pageStart: 1024, numPages: 64, agentName: "decode_10.0.4.2_rank_3" },
    ],
    // state, with and without the component suffix of maybe_send_extra
    [`${ROOM}_state_3_0`, { room: ROOM, tagKind: "state", src: 3, component: 0 }],
    [`${ROOM}_state_3`, { room: ROOM, tagKind: "state", src: 3 }],
    // aux, and aux without KV (#19746, then with the expected count #32837)
    [`${ROOM}_aux`, { room: ROOM, tagKind: "aux" }],
    [`${ROOM}_aux_nokv_3`, { room: ROOM, tagKind: "aux_nokv", src: 3 }],
    [`${ROOM}_aux_nokv_3_2`, { room: ROOM, tagKind: "aux_nokv", src: 3, expectedChunks: 2 }],
  ];
  for (const [tag, expected] of cases) assert.deepEqual(parseNotifTag(tag), expected, tag);
});

test("malformed notif tags are rejected", () => {
  const bad = [
    "",
    "aux",
    `${ROOM}`,
    `x${ROOM}_kv_0_0_0`,
    `${ROOM}_kv_0_2_0`, // is_last is 0 or 1
    `${ROOM}_kv_a_1_0`,
    `${ROOM}_kv_0_1_0_piece_1_2`,
    `${ROOM}_kv_0_1_0_part_1`,
    `${ROOM}_stg_1_0_3_5_1024_64_`,
    `${ROOM}_stg_1_0_3_5_1024`,
    `${ROOM}_state`,
    `${ROOM}_state_x_0`,
    `${ROOM}_aux_kv_3`,
    `${ROOM}_aux_nokv`,
    `${ROOM}_meta_0`,
  ];
  for (const tag of bad) assert.equal(parseNotifTag(tag), null, tag);
});

test("`sending kvcache to … with notif …` carries the decoded tag", () => {
  const ev = parseOne(`${TS} sending kvcache to 4f1e0c2a-decode-3 with notif ${ROOM}_kv_2_1_3`);
  assert.equal(ev.kind, LogKind.notifSent);
  assert.equal(ev.role, "prefill");
  assert.equal(ev.room, ROOM);
  assert.equal(ev.chunk, 2);
  assert.deepEqual(ev.attrs, { peer: "4f1e0c2a-decode-3", tag: `${ROOM}_kv_2_1_3`, tagKind: "kv", isLast: true, src: 3 });

  const aux = parseOne(`${TS} sending kvcache to 4f1e0c2a-decode-3 with notif ${ROOM}_aux_nokv_3_2`);
  assert.equal(aux.room, ROOM);
  assert.equal(aux.chunk, undefined);
  assert.equal(aux.attrs?.tagKind, "aux_nokv");
  assert.equal(aux.attrs?.expectedChunks, 2);
});

test("a sending line with an unknown tag is uninterpreted and reported", () => {
  const { events, issues } = parseLines([`${TS} sending kvcache to peer-1 with notif ${ROOM}_meta_0`]);
  assert.equal(events[0].kind, LogKind.message);
  assert.equal(issues.length, 1);
  assert.match(issues[0].message, /notif tag/);
});

test("NIXL bootstrap thread lines: got info, bootstrapped, Register KVArgs", () => {
  const info = parseOne(`${TS} got info room=${ROOM} agent_name='4f1e0c2a-decode-3' required_dst_info_num=1`);
  assert.equal(info.kind, LogKind.gotInfo);
  assert.equal(info.role, "prefill");
  assert.equal(info.room, ROOM);
  assert.deepEqual(info.attrs, { agentName: "4f1e0c2a-decode-3", requiredDstInfoNum: 1 });

  const boot = parseOne(`${TS} room=${ROOM} is bootstrapped`);
  assert.equal(boot.kind, LogKind.bootstrapped);
  assert.equal(boot.room, ROOM);
  assert.equal(boot.state, 2);

  const reg = parseOne(`${TS} Register KVArgs from 4f1e0c2a-decode-3 successfully`);
  assert.equal(reg.kind, LogKind.registerKvArgs);
  assert.deepEqual(reg.attrs, { peer: "4f1e0c2a-decode-3" });
  const mooncake = parseOne(`${TS} Register KVArgs from 10.0.4.2:15432 successfully`);
  assert.deepEqual(mooncake.attrs, { peer: "10.0.4.2:15432" });
});

test("abort notifications received: marked Failed, ignored, ACK deferred (§7.4), malformed", () => {
  const failed = parseOne(`${TS} Received abort notification for room ${ROOM}, marked as Failed`);
  assert.equal(failed.kind, LogKind.abortReceived);
  assert.equal(failed.role, "prefill");
  assert.equal(failed.room, ROOM);
  assert.equal(failed.state, 0);
  assert.deepEqual(failed.attrs, { outcome: "marked_failed" });

  const ignored = parseOne(`${TS} Received abort notification for room ${ROOM}, ignoring (already completed or unknown)`);
  assert.equal(ignored.state, undefined);
  assert.deepEqual(ignored.attrs, { outcome: "ignored" });

  const deferred = parseOne(`${TS} Received abort notification for room ${ROOM}, marked as Failed; ACK deferred until transfer drains`);
  assert.equal(deferred.state, 0);
  assert.deepEqual(deferred.attrs, { outcome: "ack_deferred" });

  const malformed = parseOne(`${TS} Ignoring malformed abort notification: invalid literal for int() with base 10: b'ABORT'`);
  assert.equal(malformed.kind, LogKind.abortReceived);
  assert.equal(malformed.room, undefined);
  assert.deepEqual(malformed.attrs, { outcome: "malformed", error: "invalid literal for int() with base 10: b'ABORT'" });
});

test("abort notifications sent and ABORT_ACKs, with their failure forms", () => {
  const sent = parseOne(`${TS} Sent abort notification for room ${ROOM} to 10.0.3.17:17003`);
  assert.equal(sent.kind, LogKind.abortSent);
  assert.equal(sent.role, "decode");
  assert.equal(sent.room, ROOM);
  assert.deepEqual(sent.attrs, { to: "10.0.3.17:17003" });

  const sendFailed = parseOne(`${TS} Failed to send abort notification for room ${ROOM}: Resource temporarily unavailable`);
  assert.equal(sendFailed.kind, LogKind.abortSent);
  assert.deepEqual(sendFailed.attrs, { failed: true, error: "Resource temporarily unavailable" });

  const ack = parseOne(`${TS} Sent ABORT_ACK for room ${ROOM} to 10.0.4.2:17010`);
  assert.equal(ack.kind, LogKind.abortAckSent);
  assert.equal(ack.role, "prefill");
  assert.deepEqual(ack.attrs, { to: "10.0.4.2:17010" });

  const ackFailed = parseOne(`${TS} Failed to send ABORT_ACK for room ${ROOM}: Socket operation on non-socket`);
  assert.equal(ackFailed.kind, LogKind.abortAckSent);
  assert.deepEqual(ackFailed.attrs, { failed: true, error: "Socket operation on non-socket" });

  const drained = parseOne(`${TS} Failed to send drained ABORT_ACK for room ${ROOM}: Host unreachable`);
  assert.deepEqual(drained.attrs, { failed: true, drained: true, error: "Host unreachable" });

  const received = parseOne(`${TS} Received ABORT_ACK for room ${ROOM}`);
  assert.equal(received.kind, LogKind.abortAckReceived);
  assert.equal(received.role, "decode");
  assert.equal(received.room, ROOM);
});

test("transfer errors: NIXL transport, Mooncake session, AUX_DATA mismatch", () => {
  const nixl = parseOne(`${TS} NIXL transport error for room ${ROOM}: nixlRemoteDisconnectError: remote agent disconnected`);
  assert.equal(nixl.kind, LogKind.transportError);
  assert.equal(nixl.room, ROOM);
  assert.equal(nixl.state, 0);
  assert.deepEqual(nixl.attrs, { errorKind: "nixl_transport", error: "nixlRemoteDisconnectError: remote agent disconnected", failureClass: "transport" });

  const session = parseOne(`${TS} Session 10.0.4.2:15432 failed.`);
  assert.equal(session.kind, LogKind.transportError);
  assert.equal(session.room, undefined);
  assert.deepEqual(session.attrs, { errorKind: "mooncake_session", session: "10.0.4.2:15432", failureClass: "transport" });

  const aux = parseOne(`${TS} AUX_DATA length mismatch for bootstrap_room ${ROOM}`);
  assert.equal(aux.kind, LogKind.transportError);
  assert.equal(aux.room, ROOM);
  assert.deepEqual(aux.attrs, { errorKind: "aux_length_mismatch", failureClass: "transport" });
});

test("Mooncake: skipped chunks and AUX_DATA received", () => {
  const skip = parseOne(`${TS} Skipping chunk for room ${ROOM} because it has already failed or been aborted`);
  assert.equal(skip.kind, LogKind.skipChunk);
  assert.equal(skip.room, ROOM);
  assert.equal(skip.state, 0);

  const aux = parseOne(`${TS} Received AUX_DATA for bootstrap_room ${ROOM} with length:4096`);
  assert.equal(aux.kind, LogKind.auxReceived);
  assert.equal(aux.role, "decode");
  assert.equal(aux.room, ROOM);
  assert.deepEqual(aux.attrs, { length: 4096 });
});

test("NIXL KVManager start-up is a config event naming the backend", () => {
  const ev = parseOne("[2026-08-20 10:00:00 TP0] NIXL KVManager initialized with backend: UCX");
  assert.equal(ev.kind, LogKind.config);
  assert.deepEqual(ev.attrs, { backend: "nixl", nixlBackend: "UCX" });
});

test("decode sending metadata to prefill", () => {
  const ev = parseOne(`${TS} Sending to prefill server with bootstrap room ${ROOM} is_dummy=False`);
  assert.equal(ev.kind, LogKind.metadataSent);
  assert.equal(ev.role, "decode");
  assert.equal(ev.room, ROOM);
  assert.deepEqual(ev.attrs, { isDummy: false });
});

test("deferred KV release (§7.4): timed out, and failed", () => {
  const timedOut = parseOne(
    `${TS} Deferred KV release for room ${ROOM} timed out after 30.0s without a full drain ack from prefill; releasing anyway.`,
  );
  assert.equal(timedOut.kind, LogKind.deferredRelease);
  assert.equal(timedOut.role, "decode");
  assert.equal(timedOut.room, ROOM);
  assert.deepEqual(timedOut.attrs, { outcome: "timed_out", timeoutS: 30, failureClass: "timeout" });

  const failed = parseOne(`${TS} Deferred KV release failed for room ${ROOM}`);
  assert.deepEqual(failed.attrs, { outcome: "failed" });
});

test("rooms keep all 19 digits, beyond Number.MAX_SAFE_INTEGER", () => {
  const big = "9223372036854775807"; // 2^63 - 1
  const ev = parseOne(`${TS} room=${big} is bootstrapped`);
  assert.equal(ev.room, big);
  assert.notEqual(String(Number(big)), big, "the room would not survive a float");
});
