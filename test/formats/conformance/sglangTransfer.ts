// SGLang connector lines: NIXL / Mooncake bootstrap threads, notifications,
// aborts and acks, transport errors, the Mooncake engine wrapper.

import { LogKind } from "../../../domain/kinds.js";
import { ROOM, type SglangConformanceRow } from "./row.js";

/** The room of the debug-level lines quoted in the transfer-line tests. */
const ROOM_DEBUG = "8972542885242963296";

const AGENT = "def7d2f1-d482-4cd2-b6de-f238da5a9c70";

export const SGLANG_TRANSFER_ROWS: SglangConformanceRow[] = [
  {
    template: "sglangNixl.notif_sent",
    expect: { kind: LogKind.notifSent, role: "prefill", room: ROOM, chunk: 2, attrs: { peer: AGENT, tagKind: "kv", isLast: true, src: 3 } },
  },
  {
    template: "sglangNixl.notif_sent",
    sample: 1,
    expect: { kind: LogKind.notifSent, room: ROOM, chunk: 4, attrs: { tagKind: "kv_state", isLast: true, src: 3 } },
  },
  {
    template: "sglangNixl.got_info",
    expect: { kind: LogKind.gotInfo, role: "prefill", room: ROOM, attrs: { agentName: AGENT, requiredDstInfoNum: 1 } },
  },
  {
    template: "sglangNixl.bootstrapped",
    expect: { kind: LogKind.bootstrapped, role: "prefill", room: ROOM, state: 2 },
  },
  {
    template: "sglangNixl.register_kv_args",
    expect: { kind: LogKind.registerKvArgs, role: "prefill", attrs: { peer: AGENT } },
  },
  {
    template: "sglangMooncake.abort_received",
    expect: { kind: LogKind.abortReceived, role: "prefill", room: ROOM, state: 0, attrs: { outcome: "marked_failed" } },
  },
  {
    template: "sglangMooncake.abort_ignored",
    expect: { kind: LogKind.abortReceived, room: ROOM, attrs: { outcome: "ignored" } },
  },
  {
    template: "sglangCommonConn.abort_sent",
    expect: { kind: LogKind.abortSent, role: "decode", room: ROOM, attrs: { to: "10.0.3.17:17003" } },
  },
  {
    template: "sglangCommonConn.abort_send_failed",
    expect: { kind: LogKind.abortSent, role: "decode", room: ROOM, attrs: { failed: true, error: "Resource temporarily unavailable" } },
  },
  {
    template: "sglangMooncake.aux_received",
    expect: { kind: LogKind.auxReceived, role: "decode", room: ROOM, attrs: { length: 4096 } },
  },
  {
    template: "sglangMooncake.aux_mismatch",
    expect: { kind: LogKind.transportError, role: "decode", room: ROOM, attrs: { errorKind: "aux_length_mismatch", failureClass: "transport" } },
  },
  {
    template: "sglangMooncake.session_failed",
    expect: { kind: LogKind.transportError, role: "prefill", attrs: { errorKind: "mooncake_session", session: "10.99.91.49:15295", failureClass: "transport" } },
  },
  {
    template: "sglangMooncake.skip_chunk",
    expect: { kind: LogKind.skipChunk, role: "prefill", room: ROOM, state: 0 },
  },
  {
    template: "sglangNixl.skip_chunk_cleared",
    expect: { kind: LogKind.skipChunk, role: "prefill", room: ROOM, attrs: { because: "cleared" } },
  },
  {
    template: "sglangNixl.metadata_sent",
    expect: { kind: LogKind.metadataSent, role: "decode", room: ROOM, attrs: { isDummy: false } },
  },
  {
    template: "sglangNixl.transport_error",
    expect: { kind: LogKind.transportError, role: "prefill", room: ROOM, state: 0, tp: 1, attrs: { errorKind: "nixl_transport", error: "NIXL_ERR_REMOTE_DISCONNECT", failureClass: "transport", ep: 1 } },
  },
  {
    template: "sglangNixl.worker_error",
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
    template: "sglangNixl.kv_manager",
    expect: { kind: LogKind.config, attrs: { backend: "nixl", nixlBackend: "UCX" } },
  },
  {
    template: "sglangMooncake.transfer_sync_failed",
    expect: { kind: LogKind.transportError, attrs: { errorKind: "mooncake_transfer_sync", session: "10.99.91.49:15295", failureClass: "transport" } },
  },
  {
    template: "sglangMooncake.batch_transfer_failed",
    expect: { kind: LogKind.transportError, attrs: { errorKind: "mooncake_batch_transfer", session: "10.99.91.49:15295" } },
  },
  {
    template: "sglangNixl.notif_sent",
    sample: 2,
    expect: { kind: LogKind.notifSent, role: "prefill", room: ROOM_DEBUG, attrs: { peer: "4f1e0c2a-decode-3", tagKind: "aux_nokv", src: 3, expectedChunks: 2 } },
  },
  {
    template: "sglangNixl.deferred_release_timeout",
    expect: { kind: LogKind.deferredRelease, role: "decode", room: ROOM, attrs: { outcome: "timed_out", timeoutS: 30, failureClass: "timeout" } },
  },
  {
    template: "sglangNixl.deferred_release_failed",
    expect: { kind: LogKind.deferredRelease, role: "decode", room: ROOM_DEBUG, attrs: { outcome: "failed" } },
  },
  {
    template: "sglangMooncake.abort_received_deferred",
    expect: { kind: LogKind.abortReceived, role: "prefill", room: ROOM_DEBUG, state: 0, attrs: { outcome: "ack_deferred" } },
  },
  {
    template: "sglangMooncake.abort_malformed",
    expect: { kind: LogKind.abortReceived, role: "prefill", attrs: { outcome: "malformed", error: "invalid literal for int() with base 10: b'ABORT'" } },
  },
  {
    template: "sglangMooncake.ack_received",
    expect: { kind: LogKind.abortAckReceived, role: "decode", room: ROOM_DEBUG },
  },
  {
    template: "sglangMooncake.ack_sent",
    expect: { kind: LogKind.abortAckSent, role: "prefill", room: ROOM_DEBUG, attrs: { to: "10.0.4.2:17010" } },
  },
  {
    template: "sglangMooncake.ack_send_failed",
    expect: { kind: LogKind.abortAckSent, role: "prefill", room: ROOM_DEBUG, attrs: { failed: true, error: "Socket operation on non-socket" } },
  },
  {
    template: "sglangMooncake.drained_ack_send_failed",
    expect: { kind: LogKind.abortAckSent, role: "prefill", room: ROOM_DEBUG, attrs: { failed: true, drained: true, error: "Host unreachable" } },
  },
];
