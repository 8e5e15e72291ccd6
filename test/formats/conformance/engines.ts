// C++ transfer-engine messages: Mooncake (glog), NIXL (absl), UCX's own
// logger. Each row keeps the whole line; `message` is what follows the prefix.

import { LogKind } from "../../../domain/kinds.js";
import type { ConformanceRow, Origin } from "./row.js";

const MC = "kvcache-ai/Mooncake mooncake-transfer-engine/src/transport/rdma_transport/";
const NX = "ai-dynamo/nixl src/core/nixl_agent.cpp nixlAgent::";
const UX = "openucx/ucx src/";
const PEER_NIC = "10.99.91.49:15295@mlx5_1";
const AGENT = "def7d2f1-d482-4cd2-b6de-f238da5a9c70";

/** A glog line (Mooncake): `E0611 14:03:07.554102 88213 file:line] message`. */
function glog(file: string, message: string): { line: string; message: string } {
  return { line: `E0611 14:03:07.554102 88213 ${file}] ${message}`, message };
}

/** An absl line (NIXL): the thread id is right-aligned. */
function absl(file: string, message: string): { line: string; message: string } {
  return { line: `E0721 08:06:26.781179    4330 ${file}] ${message}`, message };
}

/** A UCX line: `[sec.usec] [host:pid:thread] file:line UCX  LEVEL message` (src/ucs/debug/log.c UCS_LOG_FMT). */
function ucx(file: string, message: string): { line: string; message: string } {
  return { line: `[1784621081.896649] [prefill-0:537  :1] ${file.padStart(17)} UCX  ERROR ${message}`, message };
}

function row(template: string, origin: Origin, source: string, at: { line: string; message: string }, expect: ConformanceRow["expect"]): ConformanceRow {
  return { template, origin, source, line: at.line, message: at.message, expect };
}

const SLICE =
  "Worker: Process failed for slice (opcode: 1, source_addr: 0x7f2a40000000, length: 65536, dest_addr: 0x7f1c80010000, local_nic: mlx5_0, " +
  `peer_nic: ${PEER_NIC}, dest_rkey: 2097152, retry_cnt: 0`;

export const MOONCAKE_ROWS: ConformanceRow[] = [
  row("Worker: Process failed for slice", "mooncake", `${MC}worker_pool.cpp WorkerPool::performPollCq, v0.3.0–v0.3.11`, glog("worker_pool.cpp:307", `${SLICE}): transport retry counter exceeded`), {
    kind: LogKind.transportError,
    attrs: { engine: "mooncake", errorKind: "rdma_completion", error: "transport retry counter exceeded", opcode: "WRITE", bytes: 65536, localNic: "mlx5_0", peer: PEER_NIC, retryCnt: 0, failureClass: "transport" },
  }),
  row("Worker: Process failed for slice (max_retry_cnt)", "mooncake", `${MC}worker_pool.cpp WorkerPool::performPollCq, v0.3.12+`, glog("worker_pool.cpp:654", `${SLICE}, max_retry_cnt: 3): remote access error`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_completion", error: "remote access error", maxRetryCnt: 3, failureClass: "transport" },
  }),
  row("Worker: Cannot make connection for endpoint", "mooncake", `${MC}worker_pool.cpp WorkerPool::performPostSend, ≤ v0.3.11 (ERROR)`, glog("worker_pool.cpp:244", `Worker: Cannot make connection for endpoint: ${PEER_NIC}, mark it inactive`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_connect", peer: PEER_NIC, outcome: "mark it inactive" },
  }),
  row(
    "Worker: Cannot make connection for endpoint (rails)",
    "mooncake",
    `${MC}worker_pool.cpp WorkerPool::performPostSend, v0.3.12+ (WARNING)`,
    glog("worker_pool.cpp:477", `Worker: Cannot make connection for endpoint: ${PEER_NIC}, no alternate peer RNIC is available; retrying without pausing peer rail`),
    { kind: LogKind.transportError, attrs: { errorKind: "rdma_connect", peer: PEER_NIC, outcome: "no alternate peer RNIC is available; retrying without pausing peer rail" } },
  ),
  row("Worker: Timed out waiting for RDMA ready ACK", "mooncake", `${MC}worker_pool.cpp WorkerPool::performPostSend, v0.3.12+`, glog("worker_pool.cpp:510", `Worker: Timed out waiting for RDMA ready ACK for endpoint: ${PEER_NIC}, deleting endpoint`), {
    kind: LogKind.transferTimeout,
    attrs: { engine: "mooncake", scope: "rdma_ready_ack", peer: PEER_NIC, failureClass: "timeout" },
  }),
  row("Worker: Received context async event", "mooncake", `${MC}worker_pool.cpp WorkerPool::doProcessContextEvents (WARNING)`, glog("worker_pool.cpp:1014", "Worker: Received context async event port error for context mlx5_0"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_async_event", error: "port error", localNic: "mlx5_0" },
  }),
  row(
    "Worker: Cannot redispatch slice",
    "mooncake",
    `${MC}worker_pool.cpp WorkerPool::redispatch, v0.3.12+`,
    glog("worker_pool.cpp:785", "Worker: Cannot redispatch slice for target 7, peer segment unavailable or no target RNIC, dest_addr=0x7f1c80010000, length=65536, retry_cnt=2"),
    { kind: LogKind.transportError, attrs: { errorKind: "rdma_redispatch", targetId: 7, bytes: 65536, retryCnt: 2 } },
  ),
  row(
    "Active handshake RPC failed",
    "mooncake",
    `${MC}rdma_endpoint.cpp RdmaEndPoint::setupConnectionsByActive, v0.3.12+`,
    glog("rdma_endpoint.cpp:462", `Active handshake RPC failed; resetting endpoint. rc=-1, local_desc.qp_num=[1234,1235], endpoint=EndPoint: local 10.99.91.41:15001@mlx5_0, peer ${PEER_NIC}`),
    { kind: LogKind.transportError, attrs: { errorKind: "rdma_handshake", rc: -1, qpNum: "[1234,1235]", peer: PEER_NIC } },
  ),
  row("Failed to ibv_post_send (PLOG)", "mooncake", `${MC}rdma_endpoint.cpp RdmaEndPoint::submitPostSend, ≤ v0.3.12 (PLOG)`, glog("rdma_endpoint.cpp:990", "Failed to ibv_post_send: Cannot allocate memory [12]"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_post_send", error: "Cannot allocate memory", errno: 12 },
  }),
  row("Failed to ibv_post_send", "mooncake", `${MC}rdma_endpoint.cpp RdmaEndPoint::submitPostSend, after v0.3.12 (strerror(rc))`, glog("rdma_endpoint.cpp:992", "Failed to ibv_post_send: Cannot allocate memory"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_post_send", error: "Cannot allocate memory" },
  }),
  row("Reject the handshake request by peer", "mooncake", `${MC}rdma_endpoint.cpp RdmaEndPoint::setupConnectionsByActive, v0.3.1–v0.3.10`, glog("rdma_endpoint.cpp:150", `Reject the handshake request by peer ${PEER_NIC}`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_handshake_rejected", peer: PEER_NIC },
  }),
  row("Rejected handshake request by peer", "mooncake", `${MC}rdma_endpoint.cpp RdmaEndPoint::setupConnectionsByActive, v0.3.11+`, glog("rdma_endpoint.cpp:514", `Rejected handshake request by peer ${PEER_NIC}`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_handshake_rejected", peer: PEER_NIC },
  }),
  row(
    "Handshake rejected by",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-transfer-engine/src/transfer_metadata.cpp TransferMetadata::sendHandshake",
    glog("transfer_metadata.cpp:1519", "Handshake rejected by 10.99.91.49:15295: Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Invalid argument"),
    { kind: LogKind.transportError, attrs: { errorKind: "rdma_handshake_rejected", peer: "10.99.91.49:15295" } },
  ),
  row("[Handshake]", "mooncake", `${MC}rdma_endpoint.cpp RdmaEndPoint::doSetupConnection`, glog("rdma_endpoint.cpp:1149", "[Handshake] Failed to modify QP to INIT, check local context port num: Invalid argument"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "rdma_handshake", error: "Failed to modify QP to INIT, check local context port num: Invalid argument" },
  }),
  row(
    "Failed to complete transfers after (no batch)",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-store/src/client.cpp (v0.3.0–v0.3.2, a fixed 60) and transfer_task.cpp (v0.3.3)",
    glog("client.cpp:430", "Failed to complete transfers after 60 seconds"),
    { kind: LogKind.transferTimeout, attrs: { scope: "store_batch", timeoutS: 60 } },
  ),
  row(
    "Failed to complete transfers after seconds",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-store/src/transfer_task.cpp TransferEngineOperationState::wait_for_completion, v0.3.4–v0.3.10",
    glog("transfer_task.cpp:305", "Failed to complete transfers after 60 seconds for batch 94582317056"),
    { kind: LogKind.transferTimeout, attrs: { engine: "mooncake", scope: "store_batch", timeoutS: 60, batchId: "94582317056", failureClass: "timeout" } },
  ),
  row(
    "Failed to complete transfers after milliseconds",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-store/src/transfer_task.cpp TransferEngineOperationState::wait_for_completion, v0.3.11+",
    glog("transfer_task.cpp:891", "Failed to complete transfers after 30000 milliseconds for batch 94582317056"),
    { kind: LogKind.transferTimeout, attrs: { scope: "store_batch", timeoutMs: 30000, batchId: "94582317056" } },
  ),
  row(
    "Failed to get transfer status for batch",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-store/src/transfer_task.cpp TransferEngineOperationState::check_task_status",
    glog("transfer_task.cpp:759", "Failed to get transfer status for batch 94582317056 task 3 with error batch not found"),
    { kind: LogKind.transportError, attrs: { errorKind: "store_batch_status", batchId: "94582317056", task: 3, error: "batch not found" } },
  ),
  row(
    "Sync batch data transfer timeout",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-integration/transfer_engine/transfer_engine_py.cpp TransferEnginePy::batchTransferSync (INFO)",
    { line: "I0611 14:03:07.554102 88213 transfer_engine_py.cpp:634] Sync batch data transfer timeout after 30001234567ns", message: "Sync batch data transfer timeout after 30001234567ns" },
    { kind: LogKind.transferTimeout, attrs: { scope: "sync_batch", elapsedNs: 30001234567 } },
  ),
  row(
    "Sync data transfer timeout",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-integration/transfer_engine/transfer_engine_py.cpp TransferEnginePy::transferSync (INFO), v0.3.4+",
    {
      line: "I0611 14:03:07.554102 88213 transfer_engine_py.cpp:533] Sync data transfer timeout after 30000456789ns, local buffer 0x7f2a40000000 remote buffer 0x7f1c80010000 length 65536",
      message: "Sync data transfer timeout after 30000456789ns, local buffer 0x7f2a40000000 remote buffer 0x7f1c80010000 length 65536",
    },
    { kind: LogKind.transferTimeout, attrs: { scope: "sync_transfer", elapsedNs: 30000456789, bytes: 65536 } },
  ),
  row(
    "[Mooncake Cuda] Transfer timeout",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-integration/transfer_engine/transfer_engine_py.cpp transfer_on_cuda_callback, v0.3.9+",
    glog("transfer_engine_py.cpp:916", "[Mooncake Cuda] Transfer timeout | BatchID: 94582317056"),
    { kind: LogKind.transferTimeout, attrs: { scope: "cuda_batch", batchId: "94582317056", failureClass: "timeout" } },
  ),
  row(
    "[Mooncake Cuda] Transfer failed",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-integration/transfer_engine/transfer_engine_py.cpp transfer_on_cuda_callback, v0.3.9+",
    glog("transfer_engine_py.cpp:912", "[Mooncake Cuda] Transfer failed | BatchID: 94582317056 | Bytes: 4194304"),
    { kind: LogKind.transportError, attrs: { errorKind: "cuda_batch", batchId: "94582317056", bytes: 4194304 } },
  ),
  row(
    "submitTransfer failed with target",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-integration/transfer_engine/transfer_engine_py.cpp TransferEnginePy::transferSync, v0.3.8+ (WARNING)",
    { line: "W0611 14:03:07.554102 88213 transfer_engine_py.cpp:503] submitTransfer failed with target 10.99.91.49:15295, CheckSegmentStatus not ok, ready to closeSegment", message: "submitTransfer failed with target 10.99.91.49:15295, CheckSegmentStatus not ok, ready to closeSegment" },
    { kind: LogKind.transportError, attrs: { errorKind: "segment_down", peer: "10.99.91.49:15295" } },
  ),
  row(
    "TcpTransport::getConnection failed",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp TcpTransport::getConnection",
    glog("tcp_transport.cpp:720", "TcpTransport::getConnection failed to create connection to 10.99.91.49:16708. Error: connect: Cannot assign requested address"),
    { kind: LogKind.transportError, attrs: { errorKind: "tcp_connect", peer: "10.99.91.49:16708", error: "connect: Cannot assign requested address" } },
  ),
  row(
    "SocketHandShakePlugin: connect()",
    "mooncake",
    "kvcache-ai/Mooncake mooncake-transfer-engine/src/transfer_metadata_plugin.cpp SocketHandShakePlugin doConnect (PLOG)",
    glog("transfer_metadata_plugin.cpp:1030", "SocketHandShakePlugin: connect()10.99.91.49:15295: Connection refused [111]"),
    { kind: LogKind.transportError, attrs: { errorKind: "handshake_connect", peer: "10.99.91.49:15295", error: "Connection refused", errno: 111, failureClass: "transport" } },
  ),
  row(
    "CQ completion timeout diagnostic",
    "mooncake",
    `${MC}worker_pool.cpp WorkerPool::monitorWorker, v0.3.12+`,
    glog("worker_pool.cpp:1292", "CQ completion timeout diagnostic: context=mlx5_0, outstanding=128, outstanding_age_ms=15000, poll_gap_ms=3, last_poll_interval_ms=1, max_poll_interval_ms=7"),
    { kind: LogKind.transferTimeout, attrs: { scope: "rdma_cq", localNic: "mlx5_0", outstanding: 128, outstandingAgeMs: 15000 } },
  ),
];

export const NIXL_ROWS: ConformanceRow[] = [
  row("getXferStatus: returned error status", "nixl", `${NX}getXferStatus, 0.6.0+`, absl("nixl_agent.cpp:1238", "getXferStatus: backend 'UCX' returned error status NIXL_ERR_BACKEND"), {
    kind: LogKind.transportError,
    attrs: { engine: "nixl", errorKind: "xfer_status", backend: "UCX", error: "NIXL_ERR_BACKEND", failureClass: "transport" },
  }),
  row("getXferStatus: remote agent invalidated", "nixl", `${NX}getXferStatus, 0.6.0+`, absl("nixl_agent.cpp:1225", `getXferStatus: remote agent '${AGENT}' was invalidated during transfer`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "agent_invalidated", peer: AGENT },
  }),
  row("postXferReq: failed to post", "nixl", `${NX}postXferReq, 0.6.0+`, absl("nixl_agent.cpp:1195", "postXferReq: backend 'UCX' failed to post the transfer request with status NIXL_ERR_REMOTE_DISCONNECT"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "post", backend: "UCX", error: "NIXL_ERR_REMOTE_DISCONNECT" },
  }),
  row("postXferReq: remote agent disconnected", "nixl", `${NX}postXferReq, 0.6.0+`, absl("nixl_agent.cpp:1141", `postXferReq: remote agent '${AGENT}' was disconnected after transfer request creation`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "agent_disconnected", peer: AGENT },
  }),
  row("createXferReq: metadata not found", "nixl", `${NX}createXferReq, 0.6.0+; line as in ai-dynamo/nixl issue #1983`, absl("nixl_agent.cpp:866", `createXferReq: metadata for remote agent '${AGENT}' not found`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "agent_not_found", peer: AGENT },
  }),
  row("makeConnection: connect failed", "nixl", `${NX}makeConnection, 0.6.0+`, absl("nixl_agent.cpp:600", `makeConnection: connect('${AGENT}') failed on backend 'UCX' with status NIXL_ERR_BACKEND`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "connect", peer: AGENT, backend: "UCX", error: "NIXL_ERR_BACKEND" },
  }),
  row(
    "genNotif: returned error status",
    "nixl",
    `${NX}genNotif, 0.6.0+`,
    absl("nixl_agent.cpp:1433", `genNotif: backend 'UCX' returned error status NIXL_ERR_REMOTE_DISCONNECT while sending notification to agent '${AGENT}'`),
    { kind: LogKind.transportError, attrs: { errorKind: "notif_send", peer: AGENT, error: "NIXL_ERR_REMOTE_DISCONNECT" } },
  ),
  row("getNotifs: returned error status", "nixl", `${NX}getNotifs, 0.6.0+`, absl("nixl_agent.cpp:1359", "getNotifs: backend 'UCX' returned error status NIXL_ERR_BACKEND while getting notifications"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "notif_get", backend: "UCX", error: "NIXL_ERR_BACKEND" },
  }),
  row("loadRemoteMD: error loading remote metadata", "nixl", "ai-dynamo/nixl src/core/nixl_agent.cpp nixlAgentData::loadRemoteMD, 0.6.0+", absl("nixl_agent.cpp:1675", `loadRemoteMD: error loading remote metadata for agent '${AGENT}' with status NIXL_ERR_MISMATCH`), {
    kind: LogKind.transportError,
    attrs: { errorKind: "metadata_load", peer: AGENT, error: "NIXL_ERR_MISMATCH" },
  }),
  row("Failed to disconnect ep with status", "nixl", "ai-dynamo/nixl src/plugins/ucx/ucx_utils.cpp nixlUcxEp::~nixlUcxEp (src/utils/ucx/ before #1005)", absl("ucx_utils.cpp:187", "Failed to disconnect ep with status NIXL_ERR_BACKEND"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "ucx_disconnect", error: "NIXL_ERR_BACKEND" },
  }),
  row("UCX AM send failed with status", "nixl", "ai-dynamo/nixl src/plugins/ucx/ucx_utils.cpp nixlUcxEp::sendAmCallback", absl("ucx_utils.cpp:212", "UCX AM send failed with status -25 (Connection reset by remote peer)"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "ucx_am_send", status: -25, error: "Connection reset by remote peer", failureClass: "transport" },
  }),
  row("Unexpected UCX error", "nixl", "ai-dynamo/nixl src/plugins/ucx/ucx_enums.cpp ucsToNixlStatus (WARNING)", absl("ucx_enums.cpp:58", "Unexpected UCX error: Input/output error"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "ucx_status", error: "Input/output error" },
  }),
  row("P2P backend could not connect", "nixl", "ai-dynamo/nixl src/core/nixl_p2p_metadata_backend.cpp", absl("nixl_p2p_metadata_backend.cpp:325", "P2P backend could not connect to IP 10.99.91.49 and port 5555"), {
    kind: LogKind.transportError,
    attrs: { errorKind: "metadata_connect", peer: "10.99.91.49:5555" },
  }),
];

export const UCX_ROWS: ConformanceRow[] = [
  row("mlx5 completion with error", "ucx", `${UX}uct/ib/mlx5/ib_mlx5_log.c uct_ib_mlx5_completion_with_err`, ucx("ib_mlx5_log.c:177", "Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)"), {
    kind: LogKind.transportError,
    attrs: { engine: "ucx", errorKind: "ucx_completion", error: "Transport retry count exceeded", localNic: "mlx5_0:1", linkLayer: "RoCE", syndrome: "0x15", failureClass: "transport" },
  }),
  row(
    "verbs completion with error",
    "ucx",
    `${UX}uct/ib/base/ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_MSG; line as in ai-dynamo/nixl issue #1983 (SRD on EFA)`,
    ucx("srd_iface.c:221", "send completion[0] with error on rdmap97s0/0x55f9afe62400: Work Request Flushed Error, vendor_err 0x1 wr_id 0x7f6764057500"),
    { kind: LogKind.transportError, attrs: { errorKind: "ucx_completion", direction: "send", localNic: "rdmap97s0", error: "Work Request Flushed Error", vendorErr: "0x1" } },
  ),
  row(
    "rc_verbs send completion with error",
    "ucx",
    `${UX}uct/ib/rc/verbs/rc_verbs_iface.c uct_rc_verbs_handle_failure`,
    ucx("rc_verbs_iface.c:125", "send completion with error: transport retry counter exceeded [qpn 0x1a2b wrid 0x7f3c vendor_err 0x81]"),
    { kind: LogKind.transportError, attrs: { errorKind: "ucx_completion", error: "transport retry counter exceeded", qpn: "0x1a2b" } },
  ),
  row(
    "ep error will not be handled",
    "ucx",
    `${UX}ucp/core/ucp_ep.c ucp_ep_set_failed`,
    ucx("ucp_ep.c:1661", "ep 0x7f8b20022480: error 'Endpoint timeout' on rc_mlx5/mlx5_0:1 will not be handled since no error callback is installed"),
    { kind: LogKind.transportError, attrs: { errorKind: "ucx_unhandled", error: "Endpoint timeout", lane: "rc_mlx5/mlx5_0:1" } },
  ),
];
