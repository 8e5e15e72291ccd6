// Mooncake's transfer engine (kvcache-ai/Mooncake mooncake-transfer-engine/), glog
// `LOG(...) << …` streams: the format is what follows the
// `E0611 14:03:07.554102 88213 worker_pool.cpp:654] ` prefix. `PLOG` appends
// `: {strerror(errno)} [{errno}]`. Where a stream changed, both forms are read.
// Samples without a real log line behind them are written from the stream as
// the source prints it, under the same prefix.

import type { ParsedEvent } from "../../../../domain/event.js";
import { engineErrorClass } from "./engineFailure.js";
import { error, errorRow, glog, PEER_NIC, timeout, timeoutRow } from "./mooncakeRows.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

const RDMA = "mooncake-transfer-engine/src/transport/rdma_transport/";
const SLICE =
  "Worker: Process failed for slice (opcode: 1, source_addr: 0x7f2a40000000, length: 65536, dest_addr: 0x7f1c80010000, local_nic: mlx5_0, " +
  `peer_nic: ${PEER_NIC}, dest_rkey: 2097152, retry_cnt: 0`;

/** `endpoint=EndPoint: local {nic}, peer {peer_nic}`: the peer, when the endpoint names one. */
function activeHandshakePeer(ev: ParsedEvent, g: Groups): void {
  const peer = /, peer (\S+)/.exec(g.endpoint!);
  if (peer) ev.attrs!.peer = peer[1];
  engineErrorClass(ev);
}

const templates: LogTemplate[] = [
  errorRow({
    id: "mooncakeTransferEngine.slice_failed",
    level: "ERROR",
    format:
      "Worker: Process failed for slice (opcode: {0 READ|1 WRITE}, source_addr: {ptr}, length: {n}, dest_addr: {ptr}, local_nic: {dev}, peer_nic: {segment@dev}, dest_rkey: {k}, retry_cnt: {r}[, max_retry_cnt: {m}]): {ibv_wc_status_str} — the status is libibverbs' text, e.g. `transport retry counter exceeded`",
    source: `${RDMA}worker_pool.cpp WorkerPool::performPollCq`,
    versions: "v0.3.0+; `, max_retry_cnt` since v0.3.12",
    head: "Worker: Process failed for slice",
    pattern:
      /Worker: Process failed for slice \(opcode: (?<opcode>\d+), source_addr: (?<sourceAddr>\S+), length: (?<bytes>\d+), dest_addr: (?<destAddr>\S+), local_nic: (?<localNic>\S*), peer_nic: (?<peer>\S*), dest_rkey: (?<destRkey>\d+), retry_cnt: (?<retryCnt>\d+)(?:, max_retry_cnt: (?<maxRetryCnt>\d+))?\): (?<error>.*)$/ys,
    attrs: {
      ...error("rdma_completion"),
      opcode: cap("opcode", "rdmaOpcode"),
      sourceAddr: cap("sourceAddr"),
      bytes: cap("bytes", "number"),
      destAddr: cap("destAddr"),
      localNic: cap("localNic"),
      peer: cap("peer"),
      destRkey: cap("destRkey", "number"),
      retryCnt: cap("retryCnt", "number"),
      maxRetryCnt: cap("maxRetryCnt", "number"),
    },
    truncated: "Mooncake slice failure line",
    samples: [glog("worker_pool.cpp:307", `${SLICE}): transport retry counter exceeded`), glog("worker_pool.cpp:654", `${SLICE}, max_retry_cnt: 3): remote access error`)],
  }),
  errorRow({
    id: "mooncakeTransferEngine.no_connection",
    level: "ERROR ≤ v0.3.11, WARNING since",
    format:
      "Worker: Cannot make connection for endpoint: {peer_nic}, mark it inactive (≤ v0.3.11); since v0.3.12 `, pausing peer rail and retrying through an alternate peer RNIC` | `, local RNIC is inactive; trying another local RNIC` | `, no alternate peer RNIC is available; retrying without pausing peer rail`",
    source: `${RDMA}worker_pool.cpp WorkerPool::performPostSend`,
    head: "Worker: Cannot make connection",
    pattern: /Worker: Cannot make connection for endpoint: (?<peer>\S+?)(?:, |$)(?<outcome>.*)$/ys,
    attrs: { ...error("rdma_connect", "cannot make connection"), peer: cap("peer"), outcome: cap("outcome") },
    truncated: "Mooncake endpoint connection line",
    samples: [
      glog("worker_pool.cpp:244", `Worker: Cannot make connection for endpoint: ${PEER_NIC}, mark it inactive`),
      glog("worker_pool.cpp:477", `Worker: Cannot make connection for endpoint: ${PEER_NIC}, no alternate peer RNIC is available; retrying without pausing peer rail`, "W"),
    ],
  }),
  timeoutRow({
    id: "mooncakeTransferEngine.ready_ack_timeout",
    level: "ERROR",
    format: "Worker: Timed out waiting for RDMA ready ACK for endpoint: {peer_nic}, deleting endpoint",
    source: `${RDMA}worker_pool.cpp WorkerPool::performPostSend`,
    versions: "v0.3.12+",
    head: "Worker: Timed out waiting for RDMA ready ACK",
    pattern: /Worker: Timed out waiting for RDMA ready ACK for endpoint: (?<peer>\S+), deleting endpoint/ys,
    attrs: { ...timeout("rdma_ready_ack"), peer: cap("peer") },
    truncated: "Mooncake ready-ACK timeout line",
    samples: [glog("worker_pool.cpp:510", `Worker: Timed out waiting for RDMA ready ACK for endpoint: ${PEER_NIC}, deleting endpoint`)],
  }),
  errorRow({
    id: "mooncakeTransferEngine.async_event",
    level: "WARNING",
    format: "Worker: Received context async event {ibv_event_type_str} for context {dev} (e.g. `port error`)",
    source: `${RDMA}worker_pool.cpp WorkerPool::doProcessContextEvents`,
    head: "Worker: Received context async event",
    pattern: /Worker: Received context async event (?<error>.+) for context (?<localNic>\S+)$/ys,
    attrs: { ...error("rdma_async_event"), localNic: cap("localNic") },
    truncated: "Mooncake async event line",
    samples: [glog("worker_pool.cpp:1014", "Worker: Received context async event port error for context mlx5_0", "W")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.redispatch_no_target",
    level: "ERROR",
    format: "Worker: Cannot redispatch slice for target {id}, peer segment unavailable or no target RNIC, dest_addr={ptr}, length={n}, retry_cnt={r}",
    source: `${RDMA}worker_pool.cpp WorkerPool::redispatch`,
    versions: "v0.3.12+",
    head: "Worker: Cannot redispatch slice",
    pattern: /Worker: Cannot redispatch slice for target (?<targetId>\d+), peer segment unavailable or no target RNIC, dest_addr=(?<destAddr>\S+), length=(?<bytes>\d+), retry_cnt=(?<retryCnt>\d+)/ys,
    attrs: {
      ...error("rdma_redispatch", "peer segment unavailable or no target RNIC"),
      targetId: cap("targetId", "number"),
      destAddr: cap("destAddr"),
      bytes: cap("bytes", "number"),
      retryCnt: cap("retryCnt", "number"),
    },
    truncated: "Mooncake redispatch line",
    samples: [glog("worker_pool.cpp:785", "Worker: Cannot redispatch slice for target 7, peer segment unavailable or no target RNIC, dest_addr=0x7f1c80010000, length=65536, retry_cnt=2")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.redispatch_paused",
    level: "ERROR",
    format: "Worker: Cannot redispatch slice because all peer rails are paused for target {id}, selected peer={peer_nic}, retry_cnt={r}",
    source: `${RDMA}worker_pool.cpp WorkerPool::redispatch`,
    versions: "v0.3.12+",
    head: "Worker: Cannot redispatch slice",
    pattern: /Worker: Cannot redispatch slice because all peer rails are paused for target (?<targetId>\d+), selected peer=(?<peer>\S+), retry_cnt=(?<retryCnt>\d+)/ys,
    attrs: { ...error("rdma_redispatch", "all peer rails are paused"), targetId: cap("targetId", "number"), peer: cap("peer"), retryCnt: cap("retryCnt", "number") },
    truncated: "Mooncake redispatch line",
    samples: [glog("worker_pool.cpp:770", `Worker: Cannot redispatch slice because all peer rails are paused for target 7, selected peer=${PEER_NIC}, retry_cnt=2`)],
  }),
  errorRow({
    id: "mooncakeTransferEngine.active_handshake_failed",
    level: "ERROR",
    format:
      "Active handshake RPC failed; resetting endpoint. rc={rc}, local_desc.qp_num=[{q},…], endpoint=EndPoint: local {nic}, peer {peer_nic} (a WARNING variant `Active handshake RPC failed, but simultaneous-open passive setup already connected this endpoint. …` is not a failure and is not read)",
    source: `${RDMA}rdma_endpoint.cpp RdmaEndPoint::setupConnectionsByActive`,
    versions: "v0.3.12+",
    head: "Active handshake RPC failed;",
    pattern: /Active handshake RPC failed; resetting endpoint\. rc=(?<rc>-?\d+), local_desc\.qp_num=(?<qpNum>\[[\d,]*\]), endpoint=(?<endpoint>.*)$/ys,
    attrs: { ...error("rdma_handshake", "handshake RPC failed"), rc: cap("rc", "number"), qpNum: cap("qpNum"), endpoint: cap("endpoint") },
    refine: activeHandshakePeer,
    truncated: "Mooncake active handshake line",
    samples: [
      glog("rdma_endpoint.cpp:462", `Active handshake RPC failed; resetting endpoint. rc=-1, local_desc.qp_num=[1234,1235], endpoint=EndPoint: local 10.99.91.41:15001@mlx5_0, peer ${PEER_NIC}`),
    ],
  }),
  errorRow({
    id: "mooncakeTransferEngine.post_send_failed",
    level: "ERROR",
    format: "Failed to ibv_post_send: {strerror} [{errno}] (PLOG, ≤ v0.3.12); `Failed to ibv_post_send: {strerror(rc)}` after",
    source: `${RDMA}rdma_endpoint.cpp RdmaEndPoint::submitPostSend`,
    head: "Failed to ibv_post_send",
    pattern: /Failed to ibv_post_send: (?<error>.*?)(?: \[(?<errno>\d+)\])?$/ys,
    attrs: { ...error("rdma_post_send"), errno: cap("errno", "number") },
    truncated: "Mooncake ibv_post_send line",
    samples: [glog("rdma_endpoint.cpp:990", "Failed to ibv_post_send: Cannot allocate memory [12]"), glog("rdma_endpoint.cpp:992", "Failed to ibv_post_send: Cannot allocate memory")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.handshake_rejected",
    level: "ERROR",
    format: "Reject the handshake request by peer {peer_nic_path} (v0.3.1–v0.3.10) / `Rejected handshake request by peer {peer_nic_path}` (v0.3.11+)",
    source: `${RDMA}rdma_endpoint.cpp RdmaEndPoint::setupConnectionsByActive`,
    head: "Reject",
    pattern: /Reject(?:ed)? (?:the )?handshake request by peer (?<peer>\S+)/ys,
    attrs: { ...error("rdma_handshake_rejected", "handshake rejected"), peer: cap("peer") },
    samples: [glog("rdma_endpoint.cpp:150", `Reject the handshake request by peer ${PEER_NIC}`), glog("rdma_endpoint.cpp:514", `Rejected handshake request by peer ${PEER_NIC}`)],
  }),
  errorRow({
    id: "mooncakeTransferEngine.handshake_rejected_by",
    level: "ERROR",
    format: "Handshake rejected by {peer_server_name}: {reply_msg}",
    source: "mooncake-transfer-engine/src/transfer_metadata.cpp TransferMetadata::sendHandshake",
    head: "Handshake rejected by ",
    pattern: /Handshake rejected by (?<peer>\S+): (?<error>.*)$/ys,
    attrs: { ...error("rdma_handshake_rejected"), peer: cap("peer") },
    truncated: "Mooncake handshake rejection line",
    samples: [glog("transfer_metadata.cpp:1519", "Handshake rejected by 10.99.91.49:15295: Failed to modify QP to RTR, check mtu, gid, peer lid, peer qp num: Invalid argument")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.handshake_step",
    level: "ERROR",
    format: "[Handshake] {message} (`Failed to modify QP to INIT/RTR/RTS, …`, `Invalid peer GID: …`, optionally `: {strerror}` and QP details)",
    source: `${RDMA}rdma_endpoint.cpp RdmaEndPoint::doSetupConnection`,
    head: "[Handshake] ",
    pattern: /\[Handshake\] (?<error>.*)$/ys,
    attrs: error("rdma_handshake"),
    samples: [glog("rdma_endpoint.cpp:1149", "[Handshake] Failed to modify QP to INIT, check local context port num: Invalid argument")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.handshake_connect",
    level: "ERROR (PLOG)",
    format: "SocketHandShakePlugin: connect(){ip:port}: {strerror} [{errno}] (one call site has a space after `()`)",
    source: "mooncake-transfer-engine/src/transfer_metadata_plugin.cpp SocketHandShakePlugin doConnect",
    head: "SocketHandShakePlugin: ",
    pattern: /SocketHandShakePlugin: connect\(\) ?(?<peer>\S+?): (?<error>.*?)(?: \[(?<errno>\d+)\])?$/ys,
    attrs: { ...error("handshake_connect"), peer: cap("peer"), errno: cap("errno", "number") },
    samples: [glog("transfer_metadata_plugin.cpp:1030", "SocketHandShakePlugin: connect()10.99.91.49:15295: Connection refused [111]")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.handshake_resolve",
    level: "ERROR",
    format: "SocketHandShakePlugin: failed to get IP address of peer server {host}:{port}, check DNS and /etc/hosts, or use IPv4 address instead: …",
    source: "mooncake-transfer-engine/src/transfer_metadata_plugin.cpp SocketHandShakePlugin (peer lookup)",
    head: "SocketHandShakePlugin: ",
    pattern: /SocketHandShakePlugin: failed to get IP address of peer server (?<peer>\S+), check DNS/ys,
    attrs: { ...error("handshake_resolve", "failed to get IP address of peer server"), peer: cap("peer") },
    samples: [
      glog(
        "transfer_metadata_plugin.cpp:1004",
        "SocketHandShakePlugin: failed to get IP address of peer server prefill-0:15295, check DNS and /etc/hosts, or use IPv4 address instead: Name or service not known",
      ),
    ],
  }),
  errorRow({
    id: "mooncakeTransferEngine.tcp_connect",
    level: "ERROR",
    format: "TcpTransport::getConnection failed to create connection to {host}:{port}. Error: {e.what()}",
    source: "mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp TcpTransport::getConnection",
    head: "TcpTransport::",
    pattern: /TcpTransport::getConnection failed to create connection to (?<peer>\S+)\. Error: (?<error>.*)$/ys,
    attrs: { ...error("tcp_connect"), peer: cap("peer") },
    samples: [glog("tcp_transport.cpp:720", "TcpTransport::getConnection failed to create connection to 10.99.91.49:16708. Error: connect: Cannot assign requested address")],
  }),
  errorRow({
    id: "mooncakeTransferEngine.tcp_transfer",
    level: "ERROR",
    format: "TcpTransport::startTransfer encountered an exception. Slice details - source_addr: {a}, length: {n}, opcode: {op}, target_id: {id}. Exception: {e}",
    source: "mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp TcpTransport::startTransferWithSocket",
    head: "TcpTransport::",
    pattern:
      /TcpTransport::startTransfer encountered an exception\. Slice details - source_addr: (?<sourceAddr>\S+), length: (?<bytes>\d+), opcode: (?<opcode>\d+), target_id: (?<targetId>\d+)\. Exception: (?<error>.*)$/ys,
    attrs: {
      ...error("tcp_transfer"),
      sourceAddr: cap("sourceAddr"),
      bytes: cap("bytes", "number"),
      opcode: cap("opcode", "rdmaOpcode"),
      targetId: cap("targetId", "number"),
    },
    samples: [
      glog(
        "tcp_transport.cpp:812",
        "TcpTransport::startTransfer encountered an exception. Slice details - source_addr: 0x7f2a40000000, length: 65536, opcode: 1, target_id: 7. Exception: write: Broken pipe",
      ),
    ],
  }),
  errorRow({
    id: "mooncakeTransferEngine.tcp_asio_exception",
    level: "ERROR",
    format: "TcpTransport: ASIO exception: {e.what()} — what asio threw while a TCP slice was sent, e.g. `connect: Connection refused`; the slice is marked failed",
    source: "mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp TcpTransport::startTransfer",
    head: "TcpTransport: ASIO exception",
    pattern: /TcpTransport: ASIO exception: (?<error>.*)$/ys,
    attrs: error("tcp_transfer"),
    // As pasted without its glog prefix (kvcache-ai/Mooncake#180).
    samples: ["TcpTransport: ASIO exception: connect: Connection refused"],
  }),
  timeoutRow({
    id: "mooncakeTransferEngine.cq_timeout",
    level: "ERROR",
    format:
      "CQ completion timeout diagnostic: context={dev}, outstanding={n}, outstanding_age_ms={ms}, poll_gap_ms=…, …; followed by `CQ stuck transfer group: context=…, peer_nic=…, slices=…, bytes=…, …` (not read)",
    source: `${RDMA}worker_pool.cpp WorkerPool::monitorWorker`,
    versions: "v0.3.12+",
    head: "CQ completion timeout diagnostic:",
    pattern: /CQ completion timeout diagnostic: context=(?<localNic>\S+), outstanding=(?<outstanding>\d+), outstanding_age_ms=(?<outstandingAgeMs>\d+)/ys,
    attrs: {
      ...timeout("rdma_cq"),
      localNic: cap("localNic"),
      outstanding: cap("outstanding", "number"),
      outstandingAgeMs: cap("outstandingAgeMs", "number"),
    },
    truncated: "Mooncake CQ timeout diagnostic line",
    samples: [
      glog(
        "worker_pool.cpp:1292",
        "CQ completion timeout diagnostic: context=mlx5_0, outstanding=128, outstanding_age_ms=15000, poll_gap_ms=3, last_poll_interval_ms=1, max_poll_interval_ms=7",
      ),
    ],
  }),
];

export const MOONCAKE_TRANSFER_ENGINE: TemplateComponent = {
  name: "mooncakeTransferEngine",
  dialect: "engine",
  sourceFiles: /^(?:\w+_transport|\w+_context|\w+_endpoint|transfer_engine(?:_impl|_c)?|transfer_metadata\w*|worker_pool|topology|slice_dispatcher|\w+_transfer_executor)\.cpp$/,
  engine: "mooncake",
  title: "Mooncake transfer engine",
  intro:
    "`kvcache-ai/Mooncake` `mooncake-transfer-engine/`, glog. Event: `xfer.error` (`engine: mooncake`, `errorKind`, `error`, the fields named, `failureClass`) or `xfer.timeout` (`scope`, `failureClass: timeout`). Paths are from the repository root; `{x}` is a value the stream prints.",
  templates,
};
