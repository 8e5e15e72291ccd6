// Mooncake transfer-engine messages (kvcache-ai/Mooncake; docs/log-templates.md
// "Mooncake"). glog `LOG(...) << …` streams: the text below is what follows
// the `E0611 14:03:07.554102 88213 worker_pool.cpp:654] ` prefix. `PLOG`
// appends `: {strerror(errno)} [{errno}]`. Versions are release tags; where a
// stream changed, both forms are read.

import type { ParsedEvent } from "../../../domain/event.js";
import { execAt, type MatchResult } from "../sglang/match.js";
import { engineError, engineTimeout } from "./engineEvent.js";

// worker_pool.cpp WorkerPool::performPollCq. `, max_retry_cnt: N` since v0.3.12.
const SLICE_FAILED =
  /Worker: Process failed for slice \(opcode: (\d+), source_addr: (\S+), length: (\d+), dest_addr: (\S+), local_nic: (\S*), peer_nic: (\S*), dest_rkey: (\d+), retry_cnt: (\d+)(?:, max_retry_cnt: (\d+))?\): (.*)$/ys;
// worker_pool.cpp WorkerPool::performPostSend: `, mark it inactive` ≤ v0.3.11 (ERROR); three outcomes since v0.3.12 (WARNING).
const NO_CONNECTION = /Worker: Cannot make connection for endpoint: (\S+?)(?:, (.*))?$/ys;
const READY_ACK = /Worker: Timed out waiting for RDMA ready ACK for endpoint: (\S+), deleting endpoint/ys;
const ASYNC_EVENT = /Worker: Received context async event (.+) for context (\S+)$/ys;
const REDISPATCH_TARGET = /Worker: Cannot redispatch slice for target (\d+), peer segment unavailable or no target RNIC, dest_addr=(\S+), length=(\d+), retry_cnt=(\d+)/ys;
const REDISPATCH_PAUSED = /Worker: Cannot redispatch slice because all peer rails are paused for target (\d+), selected peer=(\S+), retry_cnt=(\d+)/ys;
// rdma_endpoint.cpp RdmaEndPoint::setupConnectionsByActive, v0.3.12+.
const ACTIVE_HANDSHAKE = /Active handshake RPC failed; resetting endpoint\. rc=(-?\d+), local_desc\.qp_num=(\[[\d,]*\]), endpoint=(.*)$/ys;
const PEER_IN_ENDPOINT = /, peer (\S+)/;
// rdma_endpoint.cpp RdmaEndPoint::submitPostSend: PLOG (`: text [errno]`) ≤ v0.3.12, `<< strerror(rc)` after.
const POST_SEND = /Failed to ibv_post_send: (.*?)(?: \[(\d+)\])?$/ys;
// rdma_endpoint.cpp setupConnectionsByActive: `Reject the …` v0.3.1–v0.3.10, `Rejected …` since v0.3.11.
const REJECTED = /Reject(?:ed)? (?:the )?handshake request by peer (\S+)/ys;
// transfer_metadata.cpp TransferMetadata::sendHandshake.
const HANDSHAKE_REJECTED_BY = /Handshake rejected by (\S+): (.*)$/ys;
const HANDSHAKE_STEP = /\[Handshake\] (.*)$/ys;
// mooncake-store: `… after 60 seconds` (client.cpp) v0.3.0–v0.3.2 and `… after {n} seconds` (transfer_task.cpp)
// v0.3.3; TransferEngineOperationState::wait_for_completion adds ` for batch {id}` v0.3.4–v0.3.10, then
// counts `milliseconds` since v0.3.11.
const COMPLETE_TIMEOUT = /Failed to complete transfers after (\d+) (seconds|milliseconds)(?: for batch (\S+))?/ys;
const STATUS_FAILED = /Failed to get transfer status for batch (\S+) task (\d+) with error (.*)$/ys;
// mooncake-integration transfer_engine_py.cpp TransferEnginePy::batchTransferSync / getBatchTransferStatus (INFO).
const SYNC_TIMEOUT = /Sync batch data transfer timeout after (\d+)ns/ys;
// transfer_engine_py.cpp TransferEnginePy::transferSync (INFO): the engine's TIMEOUT status, or the
// wall-clock limit: `…, local buffer {p} remote buffer {p} length {n}` ≤ v0.3.3, `… after {ns}ns, local …` since.
const SYNC_ONE_TIMEOUT = /Sync data transfer timeout(?: after (\d+)ns)?(?:, local buffer (\S+) remote buffer (\S+) length (\d+))?$/ys;
// transfer_engine_py.cpp transfer_on_cuda_callback (the CUDA-stream batch path), v0.3.9+.
const CUDA_TIMEOUT = /\[Mooncake Cuda\] Transfer timeout \| BatchID: (\S+)/ys;
const CUDA_FAILED = /\[Mooncake Cuda\] Transfer failed \| BatchID: (\S+) \| Bytes: (\d+)/ys;
const CUDA_SUBMIT = /\[Mooncake Cuda\] Submit failed: (.*) \| BatchID: (\S+)$/ys;
const CUDA_STATUS = /\[Mooncake Cuda\] Failed to get status for BatchID: (\S+)/ys;
// transfer_engine_py.cpp transferSync / batchTransferSync, v0.3.8+ (WARNING).
const SEGMENT_DOWN = /submitTransfer failed with target (\S+), CheckSegmentStatus not ok, ready to closeSegment/ys;
// tcp_transport.cpp TcpTransport::getConnection / startTransfer.
const TCP_CONNECT = /TcpTransport::getConnection failed to create connection to (\S+)\. Error: (.*)$/ys;
const TCP_TRANSFER =
  /TcpTransport::startTransfer encountered an exception\. Slice details - source_addr: (\S+), length: (\d+), opcode: (\d+), target_id: (\d+)\. Exception: (.*)$/ys;
// transfer_metadata_plugin.cpp SocketHandShakePlugin doConnect / the peer lookup (PLOG).
const SOCKET_CONNECT = /SocketHandShakePlugin: connect\(\) ?(\S+?): (.*?)(?: \[(\d+)\])?$/ys;
const SOCKET_RESOLVE = /SocketHandShakePlugin: failed to get IP address of peer server (\S+), check DNS/ys;
// worker_pool.cpp WorkerPool::monitorWorker, v0.3.12+.
const CQ_TIMEOUT = /CQ completion timeout diagnostic: context=(\S+), outstanding=(\d+), outstanding_age_ms=(\d+)/ys;

/** The Mooncake template at `at`; false when the message is none of them. */
export function parseMooncakeMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  switch (msg.charCodeAt(at)) {
    case 87 /* W */:
      return msg.startsWith("Worker: ", at) ? worker(msg, at, ev) : false;
    case 65 /* A */:
      return msg.startsWith("Active handshake RPC failed;", at) ? activeHandshake(msg, at, ev) : false;
    case 70 /* F */:
      return failed(msg, at, ev);
    case 82 /* R */:
      return msg.startsWith("Reject", at) ? rejected(msg, at, ev) : false;
    case 72 /* H */:
      return msg.startsWith("Handshake rejected by ", at) ? handshakeRejectedBy(msg, at, ev) : false;
    case 91 /* [ */:
      return bracketed(msg, at, ev);
    case 83 /* S */:
      return syncOrSocket(msg, at, ev);
    case 115 /* s */:
      return msg.startsWith("submitTransfer failed with target ", at) ? segmentDown(msg, at, ev) : false;
    case 84 /* T */:
      return msg.startsWith("TcpTransport::", at) ? tcp(msg, at, ev) : false;
    case 67 /* C */:
      return msg.startsWith("CQ completion timeout diagnostic:", at) ? cqTimeout(msg, at, ev) : false;
    default:
      return false;
  }
}

function worker(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const rest = at + "Worker: ".length;
  if (msg.startsWith("Process failed for slice", rest)) return sliceFailed(msg, at, ev);
  if (msg.startsWith("Cannot make connection", rest)) {
    const m = execAt(NO_CONNECTION, msg, at);
    if (!m) return "Mooncake endpoint connection line";
    const outcome = m[2] ?? "";
    return engineError(ev, "mooncake", "rdma_connect", "cannot make connection", { peer: m[1], outcome });
  }
  if (msg.startsWith("Timed out waiting for RDMA ready ACK", rest)) {
    const m = execAt(READY_ACK, msg, at);
    if (!m) return "Mooncake ready-ACK timeout line";
    return engineTimeout(ev, "mooncake", "rdma_ready_ack", { peer: m[1] });
  }
  if (msg.startsWith("Received context async event", rest)) {
    const m = execAt(ASYNC_EVENT, msg, at);
    if (!m) return "Mooncake async event line";
    return engineError(ev, "mooncake", "rdma_async_event", m[1], { localNic: m[2] });
  }
  if (msg.startsWith("Cannot redispatch slice", rest)) return redispatch(msg, at, ev);
  return false;
}

/** The RDMA completion error: the status text is libibverbs' `ibv_wc_status_str` (`transport retry counter exceeded`). */
function sliceFailed(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(SLICE_FAILED, msg, at);
  if (!m) return "Mooncake slice failure line";
  const fields: Record<string, unknown> = {
    opcode: m[1] === "0" ? "READ" : m[1] === "1" ? "WRITE" : m[1],
    sourceAddr: m[2],
    bytes: Number(m[3]),
    destAddr: m[4],
    localNic: m[5],
    peer: m[6],
    destRkey: Number(m[7]),
    retryCnt: Number(m[8]),
  };
  if (m[9] !== undefined) fields.maxRetryCnt = Number(m[9]);
  return engineError(ev, "mooncake", "rdma_completion", m[10], fields);
}

function redispatch(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const target = execAt(REDISPATCH_TARGET, msg, at);
  if (target) {
    return engineError(ev, "mooncake", "rdma_redispatch", "peer segment unavailable or no target RNIC", {
      targetId: Number(target[1]),
      destAddr: target[2],
      bytes: Number(target[3]),
      retryCnt: Number(target[4]),
    });
  }
  const paused = execAt(REDISPATCH_PAUSED, msg, at);
  if (!paused) return "Mooncake redispatch line";
  return engineError(ev, "mooncake", "rdma_redispatch", "all peer rails are paused", {
    targetId: Number(paused[1]),
    peer: paused[2],
    retryCnt: Number(paused[3]),
  });
}

function activeHandshake(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(ACTIVE_HANDSHAKE, msg, at);
  if (!m) return "Mooncake active handshake line";
  const fields: Record<string, unknown> = { rc: Number(m[1]), qpNum: m[2], endpoint: m[3] };
  const peer = PEER_IN_ENDPOINT.exec(m[3]);
  if (peer) fields.peer = peer[1];
  return engineError(ev, "mooncake", "rdma_handshake", "handshake RPC failed", fields);
}

function failed(msg: string, at: number, ev: ParsedEvent): MatchResult {
  if (msg.startsWith("Failed to ibv_post_send", at)) {
    const m = execAt(POST_SEND, msg, at);
    if (!m) return "Mooncake ibv_post_send line";
    return engineError(ev, "mooncake", "rdma_post_send", m[1], m[2] !== undefined ? { errno: Number(m[2]) } : {});
  }
  if (msg.startsWith("Failed to complete transfers after ", at)) {
    const m = execAt(COMPLETE_TIMEOUT, msg, at);
    if (!m) return "Mooncake store transfer timeout line";
    const n = Number(m[1]);
    const fields: Record<string, unknown> = m[2] === "seconds" ? { timeoutS: n } : { timeoutMs: n };
    if (m[3] !== undefined) fields.batchId = m[3];
    return engineTimeout(ev, "mooncake", "store_batch", fields);
  }
  if (msg.startsWith("Failed to get transfer status for batch ", at)) {
    const m = execAt(STATUS_FAILED, msg, at);
    if (!m) return "Mooncake store transfer status line";
    return engineError(ev, "mooncake", "store_batch_status", m[3], { batchId: m[1], task: Number(m[2]) });
  }
  return false;
}

function rejected(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(REJECTED, msg, at);
  if (!m) return false; // "Reject…" opens other messages too
  return engineError(ev, "mooncake", "rdma_handshake_rejected", "handshake rejected", { peer: m[1] });
}

function handshakeRejectedBy(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(HANDSHAKE_REJECTED_BY, msg, at);
  if (!m) return "Mooncake handshake rejection line";
  return engineError(ev, "mooncake", "rdma_handshake_rejected", m[2], { peer: m[1] });
}

function bracketed(msg: string, at: number, ev: ParsedEvent): MatchResult {
  if (msg.startsWith("[Handshake] ", at)) {
    const m = execAt(HANDSHAKE_STEP, msg, at);
    return m ? engineError(ev, "mooncake", "rdma_handshake", m[1], {}) : false;
  }
  if (!msg.startsWith("[Mooncake Cuda] ", at)) return false;
  const timeout = execAt(CUDA_TIMEOUT, msg, at);
  if (timeout) return engineTimeout(ev, "mooncake", "cuda_batch", { batchId: timeout[1] });
  const failedBatch = execAt(CUDA_FAILED, msg, at);
  if (failedBatch) {
    return engineError(ev, "mooncake", "cuda_batch", "transfer failed", { batchId: failedBatch[1], bytes: Number(failedBatch[2]) });
  }
  const submit = execAt(CUDA_SUBMIT, msg, at);
  if (submit) return engineError(ev, "mooncake", "cuda_batch_submit", submit[1], { batchId: submit[2] });
  const status = execAt(CUDA_STATUS, msg, at);
  if (status) return engineError(ev, "mooncake", "cuda_batch_status", "failed to get status", { batchId: status[1] });
  return "Mooncake CUDA batch line";
}

function syncOrSocket(msg: string, at: number, ev: ParsedEvent): MatchResult {
  if (msg.startsWith("Sync batch data transfer timeout after ", at)) {
    const m = execAt(SYNC_TIMEOUT, msg, at);
    if (!m) return "Mooncake sync transfer timeout line";
    return engineTimeout(ev, "mooncake", "sync_batch", { elapsedNs: Number(m[1]) });
  }
  if (msg.startsWith("Sync data transfer timeout", at)) {
    const m = execAt(SYNC_ONE_TIMEOUT, msg, at);
    if (!m) return "Mooncake sync transfer timeout line";
    const fields: Record<string, unknown> = {};
    if (m[1] !== undefined) fields.elapsedNs = Number(m[1]);
    if (m[4] !== undefined) Object.assign(fields, { localBuffer: m[2], remoteBuffer: m[3], bytes: Number(m[4]) });
    return engineTimeout(ev, "mooncake", "sync_transfer", fields);
  }
  if (!msg.startsWith("SocketHandShakePlugin: ", at)) return false;
  const connect = execAt(SOCKET_CONNECT, msg, at);
  if (connect) {
    return engineError(ev, "mooncake", "handshake_connect", connect[2], connect[3] !== undefined ? { peer: connect[1], errno: Number(connect[3]) } : { peer: connect[1] });
  }
  const resolve = execAt(SOCKET_RESOLVE, msg, at);
  if (resolve) return engineError(ev, "mooncake", "handshake_resolve", "failed to get IP address of peer server", { peer: resolve[1] });
  return false;
}

function segmentDown(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(SEGMENT_DOWN, msg, at);
  if (!m) return "Mooncake segment status line";
  return engineError(ev, "mooncake", "segment_down", "CheckSegmentStatus not ok", { peer: m[1] });
}

function tcp(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const connect = execAt(TCP_CONNECT, msg, at);
  if (connect) return engineError(ev, "mooncake", "tcp_connect", connect[2], { peer: connect[1] });
  const transfer = execAt(TCP_TRANSFER, msg, at);
  if (!transfer) return false;
  return engineError(ev, "mooncake", "tcp_transfer", transfer[5], {
    sourceAddr: transfer[1],
    bytes: Number(transfer[2]),
    opcode: transfer[3] === "0" ? "READ" : transfer[3] === "1" ? "WRITE" : transfer[3],
    targetId: Number(transfer[4]),
  });
}

function cqTimeout(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(CQ_TIMEOUT, msg, at);
  if (!m) return "Mooncake CQ timeout diagnostic line";
  return engineTimeout(ev, "mooncake", "rdma_cq", { localNic: m[1], outstanding: Number(m[2]), outstandingAgeMs: Number(m[3]) });
}
