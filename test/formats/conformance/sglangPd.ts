// SGLang scheduler-side PD lines: request failures, corruption, peer loss,
// per-room timeouts, aborts, the warning_once hints.

import { LogKind } from "../../../domain/kinds.js";
import { RID, RID2, ROOM, ROOM2, type SglangConformanceRow } from "./row.js";

export const SGLANG_PD_ROWS: SglangConformanceRow[] = [
  {
    template: "sglangDisaggregation.decode_transfer_failed",
    expect: {
      kind: LogKind.transferFailed,
      role: "decode",
      room: ROOM,
      rid: RID,
      state: 0,
      dp: 0,
      tp: 3,
      attrs: { rank: 3, reasonKind: "timeout", timeoutState: "WaitingForInput", timeoutS: 300, errorRoom: ROOM, failureClass: "timeout" },
    },
  },
  {
    template: "sglangDisaggregation.decode_transfer_failed",
    sample: 1,
    expect: {
      kind: LogKind.transferFailed,
      role: "decode",
      room: ROOM,
      rid: RID2,
      tp: 1,
      attrs: { rank: 1, reasonKind: "mooncake_transfer", failureClass: "transport" },
    },
  },
  {
    template: "sglangDisaggregation.decode_transfer_failed",
    sample: 2,
    expect: { kind: LogKind.transferFailed, role: "decode", room: ROOM, rid: RID, state: 0, attrs: { rank: 3, reasonKind: "abort", abortBy: "AbortReq", failureClass: "other" } },
  },
  {
    template: "sglangDisaggregation.decode_handshake_failed",
    sample: 1,
    expect: { kind: LogKind.handshakeFailed, role: "decode", room: ROOM, rid: RID, state: 0, attrs: { rank: 3, detail: "prefill bootstrap server unreachable" } },
  },
  {
    template: "sglangDisaggregation.decode_handshake_failed",
    expect: { kind: LogKind.handshakeFailed, role: "decode", room: ROOM, rid: RID, tp: 3, attrs: { reasonKind: "peer_loss", bootstrapAddr: "10.0.3.17:8998", failureClass: "transport" } },
  },
  {
    template: "sglangDisaggregation.prefill_bootstrap_failed",
    expect: { kind: LogKind.bootstrapFailed, role: "prefill", room: ROOM, rid: RID, state: 0, tp: 0, attrs: { rank: 0, reasonKind: "timeout", timeoutState: "Bootstrapping", failureClass: "timeout" } },
  },
  {
    template: "sglangDisaggregation.prefill_transfer_failed",
    expect: { kind: LogKind.transferFailed, role: "prefill", room: ROOM, rid: RID, state: 0, tp: 7, attrs: { rank: 7, reasonKind: "nixl_error", reason: "NIXL_ERR_REMOTE_DISCONNECT", failureClass: "transport" } },
  },
  {
    template: "sglangDisaggregation.prefill_transfer_failed",
    sample: 1,
    expect: {
      kind: LogKind.transferFailed,
      role: "prefill",
      room: ROOM,
      pp: 1,
      tp: 4,
      attrs: { rank: 4, pp: 1, reasonKind: "mooncake_transfer", peer: "10.99.91.49:15295", failureClass: "transport" },
    },
  },
  {
    template: "sglangDisaggregation.context_corruption",
    expect: { kind: LogKind.contextCorruption, role: "decode", room: ROOM, rid: RID, attrs: { actualRoom: ROOM2, metadataBufferIndex: 17 } },
  },
  {
    template: "sglangDisaggregation.metadata_not_ready",
    expect: { kind: LogKind.metadataNotReady, role: "decode", room: ROOM, rid: RID, attrs: { metadataBufferIndex: 42 } },
  },
  {
    template: "sglangCommonConn.lost_connection",
    expect: { kind: LogKind.nodeFailure, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998", affected: 58, failureClass: "transport" } },
  },
  {
    template: "sglangNixl.lost_connection",
    expect: { kind: LogKind.nodeFailure, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998", affected: 3 } },
  },
  {
    template: "sglangDisaggregation.decode_transfer_failed",
    sample: 3,
    expect: { kind: LogKind.transferFailed, room: ROOM, attrs: { reasonKind: "peer_loss", bootstrapAddr: "10.0.3.17:8998", failureClass: "transport" } },
  },
  {
    template: "sglangMooncake.losing_connection",
    expect: { kind: LogKind.nodeFailure, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998", affected: 12 } },
  },
  {
    template: "sglangNixl.room_prefill_down",
    expect: { kind: LogKind.nodeFailure, role: "decode", room: ROOM, state: 0, attrs: { cause: "prefill_down", failureClass: "transport" } },
  },
  {
    template: "sglangNixl.waiting_timeout",
    expect: { kind: LogKind.roomTimeout, role: "decode", room: ROOM, state: 0, attrs: { timeoutState: "WaitingForInput", failureClass: "timeout" } },
  },
  {
    template: "sglangNixl.room_node_failure",
    expect: { kind: LogKind.nodeFailure, role: "decode", room: ROOM, state: 0, attrs: { cause: "transfer_failed" } },
  },
  {
    template: "sglangScheduler.abort_request",
    expect: { kind: LogKind.abortRequest, role: "decode", rid: RID, attrs: { queue: "prealloc queue" } },
  },
  {
    template: "sglangCommonConn.bootstrap_timeout_hint",
    expect: { kind: LogKind.timeoutWarning, role: "prefill", attrs: { phase: "bootstrap", timeoutState: "Bootstrapping" } },
  },
  {
    template: "sglangCommonConn.waiting_timeout_hint",
    expect: { kind: LogKind.timeoutWarning, role: "decode", attrs: { phase: "waiting", timeoutState: "WaitingForInput" } },
  },
];
