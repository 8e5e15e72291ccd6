// SGLang connector lines: NIXL / Mooncake bootstrap threads, notifications,
// aborts and acks, transport errors, the Mooncake engine wrapper.

import { LogKind } from "../../../domain/kinds.js";
import { P, PMS, ROOM, type ConformanceRow } from "./row.js";

const SG = "sgl-project/sglang python/sglang/srt/";
const AGENT = "def7d2f1-d482-4cd2-b6de-f238da5a9c70";

export const SGLANG_TRANSFER_ROWS: ConformanceRow[] = [
  {
    template: "sending kvcache to",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._send_kvcache_generic / send_kvcache (debug; index copies)`,
    line: `${PMS} sending kvcache to ${AGENT} with notif ${ROOM}_kv_2_1_3`,
    expect: { kind: LogKind.notifSent, role: "prefill", room: ROOM, chunk: 2, attrs: { peer: AGENT, tagKind: "kv", isLast: true, src: 3 } },
  },
  {
    template: "sending kvcache to (kvstate tag)",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py add_transfer_request: bundled NSA/SWA state, tag {room}_kvstate_{chunk}_{rank} (index copy)`,
    line: `${PMS} sending kvcache to ${AGENT} with notif ${ROOM}_kvstate_4_3`,
    expect: { kind: LogKind.notifSent, room: ROOM, chunk: 4, attrs: { tagKind: "kv_state", isLast: true, src: 3 } },
  },
  {
    template: "got info room=",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._start_bootstrap_thread (debug; index copies)`,
    line: `${P} got info room=${ROOM} agent_name='${AGENT}' required_dst_info_num=1`,
    expect: { kind: LogKind.gotInfo, role: "prefill", room: ROOM, attrs: { agentName: AGENT, requiredDstInfoNum: 1 } },
  },
  {
    template: "room= is bootstrapped",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._start_bootstrap_thread (debug; index copies)`,
    line: `${P} room=${ROOM} is bootstrapped`,
    expect: { kind: LogKind.bootstrapped, role: "prefill", room: ROOM, state: 2 },
  },
  {
    template: "Register KVArgs from",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py bootstrap_thread; mooncake/conn.py bootstrap_thread (debug; index copies)`,
    line: `${P} Register KVArgs from ${AGENT} successfully`,
    expect: { kind: LogKind.registerKvArgs, role: "prefill", attrs: { peer: AGENT } },
  },
  {
    template: "Received abort notification",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py bootstrap_thread (debug; index copy); nixl/conn.py _handle_abort_notification v0.5.16+ (reference)`,
    line: `${P} Received abort notification for room ${ROOM}, marked as Failed`,
    expect: { kind: LogKind.abortReceived, role: "prefill", room: ROOM, state: 0, attrs: { outcome: "marked_failed" } },
  },
  {
    template: "Received abort notification (ignored)",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py bootstrap_thread (debug; index copy)`,
    line: `${P} Received abort notification for room ${ROOM}, ignoring (already completed or unknown)`,
    expect: { kind: LogKind.abortReceived, room: ROOM, attrs: { outcome: "ignored" } },
  },
  {
    template: "Sent abort notification",
    origin: "sglang",
    source: `${SG}disaggregation/common/conn.py CommonKVReceiver._send_abort_notification (debug) @0094505d`,
    line: `${P} Sent abort notification for room ${ROOM} to 10.0.3.17:17003`,
    expect: { kind: LogKind.abortSent, role: "decode", room: ROOM, attrs: { to: "10.0.3.17:17003" } },
  },
  {
    template: "Failed to send abort notification",
    origin: "sglang",
    source: `${SG}disaggregation/common/conn.py CommonKVReceiver._send_abort_notification (debug) @0094505d`,
    line: `${P} Failed to send abort notification for room ${ROOM}: Resource temporarily unavailable`,
    expect: { kind: LogKind.abortSent, role: "decode", room: ROOM, attrs: { failed: true, error: "Resource temporarily unavailable" } },
  },
  {
    template: "Received AUX_DATA",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py _handle_aux_data (debug; reference §3.3)`,
    line: `${P} Received AUX_DATA for bootstrap_room ${ROOM} with length:4096`,
    expect: { kind: LogKind.auxReceived, role: "decode", room: ROOM, attrs: { length: 4096 } },
  },
  {
    template: "AUX_DATA length mismatch",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py _handle_aux_data (reference §3.3)`,
    line: `${P} AUX_DATA length mismatch for bootstrap_room ${ROOM}`,
    expect: { kind: LogKind.transportError, role: "decode", room: ROOM, attrs: { errorKind: "aux_length_mismatch", failureClass: "transport" } },
  },
  {
    template: "Session failed.",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py MooncakeKVManager.transfer_worker (index copies)`,
    line: `${P} Session 10.99.91.49:15295 failed.`,
    expect: { kind: LogKind.transportError, role: "prefill", attrs: { errorKind: "mooncake_session", session: "10.99.91.49:15295", failureClass: "transport" } },
  },
  {
    template: "Skipping chunk for room",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py MooncakeKVManager.transfer_worker (debug; index copies, f-string and %-style)`,
    line: `${P} Skipping chunk for room ${ROOM} because it has already failed or been aborted`,
    expect: { kind: LogKind.skipChunk, role: "prefill", room: ROOM, state: 0 },
  },
  {
    template: "Skipping chunk for room (cleared)",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py transfer_worker, copies with the deferred-release drain (%-style logger.debug; index copy)`,
    line: `${P} Skipping chunk for room ${ROOM} because it has been cleared`,
    expect: { kind: LogKind.skipChunk, role: "prefill", room: ROOM, attrs: { because: "cleared" } },
  },
  {
    template: "Sending to prefill server with bootstrap room",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVReceiver.send_metadata (debug; index copies)`,
    line: `${P} Sending to prefill server with bootstrap room ${ROOM} is_dummy=False`,
    expect: { kind: LogKind.metadataSent, role: "decode", room: ROOM, attrs: { isDummy: false } },
  },
  {
    template: "NIXL transport error for room",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager.transfer_worker (warning; index copies); line as in ai-dynamo/nixl issue #1983`,
    line: `[2026-07-21 08:04:41 TP1 EP1] NIXL transport error for room ${ROOM}: NIXL_ERR_REMOTE_DISCONNECT`,
    expect: { kind: LogKind.transportError, role: "prefill", room: ROOM, state: 0, tp: 1, attrs: { errorKind: "nixl_transport", error: "NIXL_ERR_REMOTE_DISCONNECT", failureClass: "transport", ep: 1 } },
  },
  {
    template: "Unexpected transfer worker error for room",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager.transfer_worker (logger.exception; index copies); traceback as in ai-dynamo/nixl issue #1983`,
    line: `[2026-07-21 08:06:26 TP1 EP1] Unexpected transfer worker error for room ${ROOM}`,
    more: [
      "Traceback (most recent call last):",
      '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 568, in transfer_worker',
      "    kv_xfer_handle = self.send_kvcache(",
      '  File "/usr/local/lib/python3.11/site-packages/nixl_cu13/_api.py", line 613, in initialize_xfer',
      "    handle = self.agent.createXferReq(",
      "nixl_cu13._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND",
    ],
    expect: {
      kind: LogKind.transportError,
      room: ROOM,
      state: 0,
      attrs: { errorKind: "worker", excType: "nixl_cu13._bindings.nixlNotFoundError", excMessage: "NIXL_ERR_NOT_FOUND", failureClass: "transport" },
    },
  },
  {
    template: "NIXL KVManager initialized with backend",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager.__init__ (reference §3.2)`,
    line: `${P} NIXL KVManager initialized with backend: UCX`,
    expect: { kind: LogKind.config, attrs: { backend: "nixl", nixlBackend: "UCX" } },
  },
  {
    template: "Failed to transfer data from",
    origin: "sglang",
    source: `${SG}distributed/device_communicators/mooncake_transfer_engine.py MooncakeTransferEngine.transfer_sync (debug; index copies)`,
    line: `${P} Failed to transfer data from 140234567188480 to 10.99.91.49:15295 - 139923456000000.`,
    expect: { kind: LogKind.transportError, attrs: { errorKind: "mooncake_transfer_sync", session: "10.99.91.49:15295", failureClass: "transport" } },
  },
  {
    template: "Failed to batch transfer data",
    origin: "sglang",
    source: `${SG}distributed/device_communicators/mooncake_transfer_engine.py MooncakeTransferEngine.batch_transfer_sync (debug; index copies)`,
    line: `${P} Failed to batch transfer data. Buffers: [140234567188480, 140234567254016], Session: 10.99.91.49:15295, Peer addresses: [139923456000000, 139923456065536]`,
    expect: { kind: LogKind.transportError, attrs: { errorKind: "mooncake_batch_transfer", session: "10.99.91.49:15295" } },
  },
];
