// SGLang scheduler-side PD lines: request failures, corruption, peer loss,
// per-room timeouts, aborts, the warning_once hints.

import { LogKind } from "../../../domain/kinds.js";
import { P, PMS, RID, RID2, ROOM, ROOM2, type ConformanceRow } from "./row.js";

const SG = "sgl-project/sglang python/sglang/srt/";

export const SGLANG_PD_ROWS: ConformanceRow[] = [
  {
    template: "Decode transfer failed",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodeTransferQueue.pop_transferred (index copies of v0.5.x; reference v0.5.18)`,
    line:
      `${P} Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.WaitingForInput`,
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
    template: "Decode transfer failed (prefill_req era)",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodeTransferQueue.pop_transferred, early form naming the entry prefill_req (index copy)`,
    line:
      `[2025-05-02 09:12:44 TP1] Decode transfer failed for request rank=1 prefill_req.req.rid='${RID2}' prefill_req.req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Failed to get kvcache from prefill instance, it might be dead`,
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
    template: "Decode transfer failed (rid= form)",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py pop_transferred, form with bare rid= and bootstrap_room= (index copy)`,
    line: `${P} Decode transfer failed for request rank=3 rid=${RID} bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Aborted by AbortReq.`,
    expect: { kind: LogKind.transferFailed, role: "decode", room: ROOM, rid: RID, state: 0, attrs: { rank: 3, reasonKind: "abort", abortBy: "AbortReq", failureClass: "other" } },
  },
  {
    template: "Decode handshake failed (rid= form)",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodePreallocQueue._handle_bootstrap_failure: rid=, bootstrap_room= and ': {error_msg}' (index copy)`,
    line: `${P} Decode handshake failed for request rank=3 rid=${RID} bootstrap_room=${ROOM}: prefill bootstrap server unreachable`,
    expect: { kind: LogKind.handshakeFailed, role: "decode", room: ROOM, rid: RID, state: 0, attrs: { rank: 3, detail: "prefill bootstrap server unreachable" } },
  },
  {
    template: "Decode handshake failed",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodePreallocQueue._update_handshake_waiters (index copies of v0.5.x)`,
    line:
      `${PMS} Decode handshake failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998)`,
    expect: { kind: LogKind.handshakeFailed, role: "decode", room: ROOM, rid: RID, tp: 3, attrs: { reasonKind: "peer_loss", bootstrapAddr: "10.0.3.17:8998", failureClass: "transport" } },
  },
  {
    template: "Prefill bootstrap failed",
    origin: "sglang",
    source: `${SG}disaggregation/prefill.py PrefillBootstrapQueue.pop_bootstrapped / handle_bootstrap_failure (index copies)`,
    line:
      `[2026-02-19 16:33:31 TP0] Prefill bootstrap failed for request rank=0 req.rid='${RID}' req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.Bootstrapping`,
    expect: { kind: LogKind.bootstrapFailed, role: "prefill", room: ROOM, rid: RID, state: 0, tp: 0, attrs: { rank: 0, reasonKind: "timeout", timeoutState: "Bootstrapping", failureClass: "timeout" } },
  },
  {
    template: "Prefill transfer failed",
    origin: "sglang",
    source: `${SG}disaggregation/prefill.py process_disagg_prefill_inflight_queue / handle_inflight_transfer_failure; line as in ai-dynamo/nixl issue #1983`,
    line: `[2026-07-21 08:04:41 TP7 EP7] Prefill transfer failed for request rank=7 req.rid='${RID}' req.bootstrap_room=${ROOM} with exception NIXL_ERR_REMOTE_DISCONNECT`,
    expect: { kind: LogKind.transferFailed, role: "prefill", room: ROOM, rid: RID, state: 0, tp: 7, attrs: { rank: 7, reasonKind: "nixl_error", reason: "NIXL_ERR_REMOTE_DISCONNECT", failureClass: "transport" } },
  },
  {
    template: "Prefill transfer failed (pp_rank form)",
    origin: "sglang",
    source: `${SG}disaggregation/prefill.py inflight queue, copy that appends {self.pp_rank=} (index copy)`,
    line:
      `[2026-02-27 15:01:51 PP1 TP4] Prefill transfer failed for request rank=4 req.rid='${RID}' req.bootstrap_room=${ROOM} self.pp_rank=1 ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Decode instance could be dead, remote mooncake session 10.99.91.49:15295 is not alive`,
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
    template: "Context corruption detected",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodeTransferQueue._commit_transfer_to_req (index copies)`,
    line: `${P} Context corruption detected: Request ${RID} (bootstrap_room=${ROOM}) received metadata from bootstrap_room=${ROOM2}. Metadata buffer index: 17. This indicates metadata buffer index collision.`,
    expect: { kind: LogKind.contextCorruption, role: "decode", room: ROOM, rid: RID, attrs: { actualRoom: ROOM2, metadataBufferIndex: 17 } },
  },
  {
    template: "Metadata unexpectedly not ready after readiness gate",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodeTransferQueue._commit_transfer_to_req (index copies)`,
    line: `${P} Metadata unexpectedly not ready after readiness gate: request ${RID}, bootstrap_room=${ROOM}, metadata_buffer_index=42`,
    expect: { kind: LogKind.metadataNotReady, role: "decode", room: ROOM, rid: RID, attrs: { metadataBufferIndex: 42 } },
  },
  {
    template: "Lost connection with prefill instance",
    origin: "sglang",
    source: `${SG}disaggregation/common/conn.py CommonKVManager._handle_node_failure @0094505d`,
    line: `${P} Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 58 requests affected`,
    expect: { kind: LogKind.nodeFailure, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998", affected: 58, failureClass: "transport" } },
  },
  {
    template: "Lost connection with prefill instance (NIXL)",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._handle_node_failure (index copies): counts transfers`,
    line: `${P} Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 3 transfers affected`,
    expect: { kind: LogKind.nodeFailure, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998", affected: 3 } },
  },
  {
    template: "Losing connection with prefill instance",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py MooncakeKVManager._handle_node_failure, older copies (also its failure reason)`,
    line:
      `${P} Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
      `with exception KVTransferError(bootstrap_room=${ROOM}): Losing connection with prefill instance (bootstrap_addr: 10.0.3.17:8998)`,
    expect: { kind: LogKind.transferFailed, room: ROOM, attrs: { reasonKind: "peer_loss", bootstrapAddr: "10.0.3.17:8998", failureClass: "transport" } },
  },
  {
    template: "Losing connection with prefill instance (log line)",
    origin: "sglang",
    source: `${SG}disaggregation/mooncake/conn.py MooncakeKVManager._handle_node_failure, older copies`,
    line: `${P} Losing connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 12 requests affected`,
    expect: { kind: LogKind.nodeFailure, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998", affected: 12 } },
  },
  {
    template: "Let room be failed due to prefill down",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._handle_node_failure (index copies)`,
    line: `${P} Let room ${ROOM} be failed due to prefill down`,
    expect: { kind: LogKind.nodeFailure, role: "decode", room: ROOM, state: 0, attrs: { cause: "prefill_down", failureClass: "transport" } },
  },
  {
    template: "Request waiting_timeout",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVReceiver.poll (index copies)`,
    line: `${P} Request ${ROOM} waiting_timeout`,
    expect: { kind: LogKind.roomTimeout, role: "decode", room: ROOM, state: 0, attrs: { timeoutState: "WaitingForInput", failureClass: "timeout" } },
  },
  {
    template: "Transfer for room failed due to node failure",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVReceiver.poll (index copies)`,
    line: `${P} Transfer for room ${ROOM} failed due to node failure`,
    expect: { kind: LogKind.nodeFailure, role: "decode", room: ROOM, state: 0, attrs: { cause: "transfer_failed" } },
  },
  {
    template: "Abort queue request",
    origin: "sglang",
    source: `${SG}managers/scheduler.py Scheduler.abort_request (debug; index copy)`,
    line: `${P} Abort prealloc queue request. decode_req.req.rid='${RID}'`,
    expect: { kind: LogKind.abortRequest, role: "decode", rid: RID, attrs: { queue: "prealloc queue" } },
  },
  {
    template: "Some requests timed out when bootstrapping",
    origin: "sglang",
    source: `${SG}disaggregation/common/conn.py CommonKVSender._check_bootstrap_timeout (warning_once) @0094505d`,
    line:
      `${P} Some requests timed out when bootstrapping, which means prefill instances fail to receive the KV indices from the decode instance of this request. ` +
      `If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT=600' (10 minutes) to relax the timeout condition. `,
    expect: { kind: LogKind.timeoutWarning, role: "prefill", attrs: { phase: "bootstrap", timeoutState: "Bootstrapping" } },
  },
  {
    template: "Some requests fail to receive KV Cache transfer done signal",
    origin: "sglang",
    source: `${SG}disaggregation/common/conn.py CommonKVReceiver._check_waiting_timeout (warning_once) @0094505d`,
    line:
      `${P} Some requests fail to receive KV Cache transfer done signal after bootstrapping. ` +
      `If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600' (10 minutes) to relax the timeout condition. `,
    expect: { kind: LogKind.timeoutWarning, role: "decode", attrs: { phase: "waiting", timeoutState: "WaitingForInput" } },
  },
];
