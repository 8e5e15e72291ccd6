// C++ messages: Mooncake's transfer engine, store and Python binding (glog), NIXL (absl), UCX's own
// logger, torch c10d's watchdog (c10 / glog). Each row names a template of the table and one of its sample
// lines (the table says where the stream was read); the expectations are
// written by hand from the stream's format.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

const PEER_NIC = "10.99.91.49:15295@mlx5_1";
const AGENT = "def7d2f1-d482-4cd2-b6de-f238da5a9c70";
const BATCH = "94582317056";

const error = LogKind.transportError;
const timeout = LogKind.transferTimeout;

export const MOONCAKE_ROWS: EngineConformanceRow[] = [
  {
    template: "mooncakeTransferEngine.slice_failed",
    expect: {
      kind: error,
      attrs: { engine: "mooncake", errorKind: "rdma_completion", error: "transport retry counter exceeded", opcode: "WRITE", bytes: 65536, localNic: "mlx5_0", peer: PEER_NIC, retryCnt: 0, failureClass: "transport" },
    },
  },
  { template: "mooncakeTransferEngine.slice_failed", sample: 1, expect: { kind: error, attrs: { errorKind: "rdma_completion", error: "remote access error", maxRetryCnt: 3, failureClass: "transport" } } },
  { template: "mooncakeTransferEngine.no_connection", expect: { kind: error, attrs: { errorKind: "rdma_connect", peer: PEER_NIC, outcome: "mark it inactive" } } },
  {
    template: "mooncakeTransferEngine.no_connection",
    sample: 1,
    expect: { kind: error, attrs: { errorKind: "rdma_connect", peer: PEER_NIC, outcome: "no alternate peer RNIC is available; retrying without pausing peer rail" } },
  },
  { template: "mooncakeTransferEngine.ready_ack_timeout", expect: { kind: timeout, attrs: { engine: "mooncake", scope: "rdma_ready_ack", peer: PEER_NIC, failureClass: "timeout" } } },
  { template: "mooncakeTransferEngine.async_event", expect: { kind: error, attrs: { errorKind: "rdma_async_event", error: "port error", localNic: "mlx5_0" } } },
  { template: "mooncakeTransferEngine.redispatch_no_target", expect: { kind: error, attrs: { errorKind: "rdma_redispatch", targetId: 7, bytes: 65536, retryCnt: 2 } } },
  {
    template: "mooncakeTransferEngine.redispatch_paused",
    expect: { kind: error, attrs: { errorKind: "rdma_redispatch", error: "all peer rails are paused", targetId: 7, peer: PEER_NIC, retryCnt: 2 } },
  },
  { template: "mooncakeTransferEngine.active_handshake_failed", expect: { kind: error, attrs: { errorKind: "rdma_handshake", rc: -1, qpNum: "[1234,1235]", peer: PEER_NIC } } },
  { template: "mooncakeTransferEngine.post_send_failed", expect: { kind: error, attrs: { errorKind: "rdma_post_send", error: "Cannot allocate memory", errno: 12 } } },
  { template: "mooncakeTransferEngine.post_send_failed", sample: 1, expect: { kind: error, attrs: { errorKind: "rdma_post_send", error: "Cannot allocate memory" } } },
  { template: "mooncakeTransferEngine.handshake_rejected", expect: { kind: error, attrs: { errorKind: "rdma_handshake_rejected", peer: PEER_NIC } } },
  { template: "mooncakeTransferEngine.handshake_rejected", sample: 1, expect: { kind: error, attrs: { errorKind: "rdma_handshake_rejected", peer: PEER_NIC } } },
  { template: "mooncakeTransferEngine.handshake_rejected_by", expect: { kind: error, attrs: { errorKind: "rdma_handshake_rejected", peer: "10.99.91.49:15295" } } },
  {
    template: "mooncakeTransferEngine.handshake_step",
    expect: { kind: error, attrs: { errorKind: "rdma_handshake", error: "Failed to modify QP to INIT, check local context port num: Invalid argument" } },
  },
  { template: "mooncakeStore.store_batch_timeout_s", expect: { kind: timeout, attrs: { scope: "store_batch", timeoutS: 60 } } },
  {
    template: "mooncakeStore.store_batch_timeout_s",
    sample: 1,
    expect: { kind: timeout, attrs: { engine: "mooncake", scope: "store_batch", timeoutS: 60, batchId: BATCH, failureClass: "timeout" } },
  },
  { template: "mooncakeStore.store_batch_timeout_ms", expect: { kind: timeout, attrs: { scope: "store_batch", timeoutMs: 30000, batchId: BATCH } } },
  { template: "mooncakeStore.store_batch_status", expect: { kind: error, attrs: { errorKind: "store_batch_status", batchId: BATCH, task: 3, error: "batch not found" } } },
  { template: "mooncakeIntegration.sync_batch_timeout", expect: { kind: timeout, attrs: { scope: "sync_batch", elapsedNs: 30001234567 } } },
  { template: "mooncakeIntegration.sync_transfer_timeout", expect: { kind: timeout, attrs: { scope: "sync_transfer", elapsedNs: 30000456789, bytes: 65536 } } },
  { template: "mooncakeIntegration.cuda_batch_timeout", expect: { kind: timeout, attrs: { scope: "cuda_batch", batchId: BATCH, failureClass: "timeout" } } },
  { template: "mooncakeIntegration.cuda_batch_failed", expect: { kind: error, attrs: { errorKind: "cuda_batch", batchId: BATCH, bytes: 4194304 } } },
  { template: "mooncakeIntegration.cuda_batch_submit", expect: { kind: error, attrs: { errorKind: "cuda_batch_submit", error: "InvalidArgument: invalid segment handle", batchId: BATCH } } },
  { template: "mooncakeIntegration.cuda_batch_status", expect: { kind: error, attrs: { errorKind: "cuda_batch_status", batchId: BATCH } } },
  { template: "mooncakeIntegration.segment_down", expect: { kind: error, attrs: { errorKind: "segment_down", peer: "10.99.91.49:15295" } } },
  { template: "mooncakeTransferEngine.tcp_connect", expect: { kind: error, attrs: { errorKind: "tcp_connect", peer: "10.99.91.49:16708", error: "connect: Cannot assign requested address" } } },
  {
    template: "mooncakeTransferEngine.tcp_transfer",
    expect: { kind: error, attrs: { errorKind: "tcp_transfer", bytes: 65536, opcode: "WRITE", targetId: 7, error: "write: Broken pipe", failureClass: "transport" } },
  },
  {
    template: "mooncakeTransferEngine.handshake_connect",
    expect: { kind: error, attrs: { errorKind: "handshake_connect", peer: "10.99.91.49:15295", error: "Connection refused", errno: 111, failureClass: "transport" } },
  },
  { template: "mooncakeTransferEngine.handshake_resolve", expect: { kind: error, attrs: { errorKind: "handshake_resolve", peer: "prefill-0:15295" } } },
  { template: "mooncakeTransferEngine.cq_timeout", expect: { kind: timeout, attrs: { scope: "rdma_cq", localNic: "mlx5_0", outstanding: 128, outstandingAgeMs: 15000 } } },
];

export const NIXL_ROWS: EngineConformanceRow[] = [
  { template: "nixlAgent.xfer_status", expect: { kind: error, attrs: { engine: "nixl", errorKind: "xfer_status", backend: "UCX", error: "NIXL_ERR_BACKEND", failureClass: "transport" } } },
  { template: "nixlAgent.agent_invalidated_during", expect: { kind: error, attrs: { errorKind: "agent_invalidated", peer: AGENT } } },
  { template: "nixlAgent.post", expect: { kind: error, attrs: { errorKind: "post", backend: "UCX", error: "NIXL_ERR_REMOTE_DISCONNECT" } } },
  { template: "nixlAgent.agent_disconnected", expect: { kind: error, attrs: { errorKind: "agent_disconnected", peer: AGENT } } },
  { template: "nixlAgent.agent_invalidated", expect: { kind: error, attrs: { errorKind: "agent_invalidated", peer: AGENT } } },
  { template: "nixlAgent.agent_reregistered", expect: { kind: error, attrs: { errorKind: "agent_reregistered", peer: AGENT } } },
  { template: "nixlAgent.createXferReq_agent_not_found", expect: { kind: error, attrs: { errorKind: "agent_not_found", peer: AGENT } } },
  { template: "nixlAgent.prepXferDlist_agent_not_found", expect: { kind: error, attrs: { errorKind: "agent_not_found", peer: AGENT } } },
  { template: "nixlAgent.connect", expect: { kind: error, attrs: { errorKind: "connect", peer: AGENT, backend: "UCX", error: "NIXL_ERR_BACKEND" } } },
  { template: "nixlAgent.makeConnection_agent_not_found", expect: { kind: error, attrs: { errorKind: "agent_not_found", peer: AGENT } } },
  { template: "nixlAgent.notif_send", expect: { kind: error, attrs: { errorKind: "notif_send", peer: AGENT, error: "NIXL_ERR_REMOTE_DISCONNECT" } } },
  { template: "nixlAgent.notif_get", expect: { kind: error, attrs: { errorKind: "notif_get", backend: "UCX", error: "NIXL_ERR_BACKEND" } } },
  { template: "nixlAgent.metadata_load", expect: { kind: error, attrs: { errorKind: "metadata_load", peer: AGENT, error: "NIXL_ERR_MISMATCH" } } },
  { template: "nixlAgent.ucx_disconnect", expect: { kind: error, attrs: { errorKind: "ucx_disconnect", error: "NIXL_ERR_BACKEND" } } },
  { template: "nixlAgent.ucx_am_send", expect: { kind: error, attrs: { errorKind: "ucx_am_send", status: -25, error: "Connection reset by remote peer", failureClass: "transport" } } },
  { template: "nixlAgent.ucx_status", expect: { kind: error, attrs: { errorKind: "ucx_status", error: "Input/output error" } } },
  { template: "nixlAgent.metadata_connect", expect: { kind: error, attrs: { errorKind: "metadata_connect", peer: "10.99.91.49:5555" } } },
];

export const UCX_ROWS: EngineConformanceRow[] = [
  {
    template: "ucx.mlx5_completion",
    expect: {
      kind: error,
      attrs: { engine: "ucx", errorKind: "ucx_completion", error: "Transport retry count exceeded", localNic: "mlx5_0:1", linkLayer: "RoCE", syndrome: "0x15", failureClass: "transport" },
    },
  },
  { template: "ucx.verbs_completion", expect: { kind: error, attrs: { errorKind: "ucx_completion", direction: "send", localNic: "rdmap97s0", error: "Work Request Flushed Error", vendorErr: "0x1" } } },
  { template: "ucx.rc_verbs_completion", expect: { kind: error, attrs: { errorKind: "ucx_completion", error: "transport retry counter exceeded", qpn: "0x1a2b" } } },
  { template: "ucx.ep_unhandled", expect: { kind: error, attrs: { errorKind: "ucx_unhandled", error: "Endpoint timeout", lane: "rc_mlx5/mlx5_0:1" } } },
  { template: "ucx.worker_ep_failed", expect: { kind: error, attrs: { engine: "ucx", errorKind: "ucx_ep_failed", error: "Destination is unreachable", endpoint: "0x55d0c1b2f010" } } },
];

export const TORCH_ROWS: EngineConformanceRow[] = [
  {
    template: "torchC10d.watchdog_timeout",
    expect: {
      kind: LogKind.watchdog,
      attrs: { backend: "nccl", report: "timeout", rank: 2, seq: 48213, op: "ALLREDUCE", numelIn: 14680064, numelOut: 14680064, timeoutMs: 600000, elapsedMs: 600074 },
    },
  },
  { template: "torchC10d.watchdog_timeout", sample: 1, expect: { kind: LogKind.watchdog, attrs: { backend: "nccl", report: "timeout", rank: 1, op: "ALLREDUCE", timeoutMs: 1800000, elapsedMs: 1802212 } } },
  {
    template: "torchC10d.failure_detected",
    expect: {
      kind: LogKind.watchdog,
      attrs: { backend: "nccl", report: "failure_detected", rank: 2, seq: 48213, lastEnqueued: 48213, lastCompleted: 48212, pgId: "0", pgUid: "0", pgDesc: "default_pg" },
    },
  },
  {
    template: "torchC10d.failure_detected",
    sample: 1,
    expect: { kind: LogKind.watchdog, attrs: { backend: "nccl", report: "failure_detected", rank: 0, seq: 1580, lastEnqueued: 1582, lastCompleted: 1579, pgName: "1" } },
  },
];

/** NCCL's warnings, under NCCL's own prefix (no time: placed between dated neighbours). */
export const NCCL_ROWS: EngineConformanceRow[] = [
  {
    template: "nccl.ib_completion_error",
    expect: { kind: LogKind.error, attrs: { error: "NCCL InfiniBand work completion failed", peer: "[PRIVATE_IP]", wcStatus: 12, vendorErr: 129, failureClass: "nccl" } },
  },
  {
    template: "nccl.ib_completion_error",
    sample: 1,
    expect: { kind: LogKind.error, attrs: { peer: "10.46.70.21<50854>", wcStatus: 5, vendorErr: 249, failureClass: "nccl", ncclLevel: "WARN", ncclHost: "atl1g3r4u9gpu", cudaDev: 5 } },
  },
  { template: "nccl.cuda_failure", expect: { kind: LogKind.error, attrs: { error: "a CUDA call NCCL made failed", reason: "out of memory", failureClass: "nccl", ncclLevel: "WARN", cudaDev: 3 } } },
  { template: "nccl.cuda_failure", sample: 1, expect: { kind: LogKind.error, attrs: { cudaError: 1, reason: "invalid argument", ncclHost: "n176-080-198", cudaDev: 0 } } },
  {
    template: "nccl.error_return",
    expect: { kind: LogKind.error, attrs: { place: "transport/net.cc:1302", ncclResult: 6, failureClass: "nccl", error: "an NCCL call returned ncclRemoteError (6)", ncclLevel: "INFO" } },
  },
  { template: "nccl.error_return", sample: 1, expect: { kind: LogKind.error, attrs: { place: "misc/socket.cc:749", ncclResult: 6, ncclHost: "ng30903", cudaDev: 0 } } },
  { template: "nccl.error_return", sample: 2, expect: { kind: LogKind.error, attrs: { place: "group.cc:65", ncclResult: 3, error: "an NCCL call returned ncclInternalError (3)" } } },
];

/** Lines with no logger prefix, an engine's tool `print`ing them (level `stdout`) or a user pasting the message alone: read by the log parser as a line of a rank's file. */
export const PRINTED_ROWS: EngineConformanceRow[] = [
  // Mooncake's glog message, pasted without its prefix (kvcache-ai/Mooncake#180).
  { template: "mooncakeTransferEngine.tcp_asio_exception", expect: { kind: error, attrs: { errorKind: "tcp_transfer", error: "connect: Connection refused", failureClass: "transport" } } },
  { template: "nixlAgent.bench_xfer_failed", expect: { kind: error, attrs: { errorKind: "bench_xfer_failed", error: "NIXL_ERR_CANCELED" } } },
  // 3FS's admin_cli, printed with no logger (deepseek-ai/3FS#184).
  {
    template: "threeFs.admin_cli_error",
    expect: { kind: error, attrs: { engine: "3fs", errorKind: "admin_cli", statusCode: 6004, statusName: "MgmtdClient::RoutingInfoNotReady", error: "6004(MgmtdClient::RoutingInfoNotReady)", failureClass: "transport" } },
  },
  // An error value of Dynamo's router, as a user pasted it on its own (ai-dynamo/dynamo#1540).
  {
    template: "dynamoRuntime.no_instances",
    expect: { kind: LogKind.error, attrs: { error: "no instances found for endpoint", endpoint: '"instances/dynamo/Frontend/chat/completions"', failureClass: "other" } },
  },
  // sgl-router's reports that a worker could not be reached, with the log call's place its tracing format prints (sgl-project/sglang#11310).
  { template: "sglRouter.grpc_connect_failed", expect: { kind: LogKind.routerProbeFailed, attrs: { worker: "grpc://localhost:20000", error: "transport error" } } },
  {
    template: "sglRouter.health_check_failed",
    expect: {
      kind: LogKind.routerProbeFailed,
      attrs: { worker: "grpc://localhost:20001", error: "Connection failed for worker grpc://localhost:20001: Failed to connect to gRPC server: transport error" },
    },
  },
  // xLLM's first master finding no master's key in etcd (xLLM-AI/xllm#270): the start-up, no failure.
  { template: "xllmService.no_master_yet", expect: { kind: LogKind.message, attrs: { level: "info", etcdKey: "XLLM:SERVICE:MASTER" } } },
  // rdma-core's mlx5 provider's failed completion, as it prints it on stderr (providers/mlx5/cq.c).
  {
    template: "rdmaVerbs.mlx5_error_cqe",
    expect: { kind: error, attrs: { engine: "verbs", errorKind: "mlx5_error_cqe", hostname: "gpu-node-3", failureClass: "transport" } },
  },
];
