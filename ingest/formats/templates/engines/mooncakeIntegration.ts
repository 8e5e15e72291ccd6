// Mooncake's Python binding (kvcache-ai/Mooncake
// mooncake-integration/transfer_engine/transfer_engine_py.cpp), glog: the
// synchronous transfers SGLang's `transfer_sync_write` makes and the
// CUDA-stream batch path. The format is what follows the glog prefix. Samples
// without a real log line behind them are written from the stream as the
// source prints it, under the same prefix.

import { cap, type LogTemplate, type TemplateComponent } from "../template.js";
import { error, errorRow, glog, timeout, timeoutRow } from "./mooncakeRows.js";

const PY = "mooncake-integration/transfer_engine/transfer_engine_py.cpp";

const templates: LogTemplate[] = [
  timeoutRow({
    id: "mooncakeIntegration.cuda_batch_timeout",
    level: "ERROR",
    format: "[Mooncake Cuda] Transfer timeout | BatchID: {batch_id}",
    source: `${PY} transfer_on_cuda_callback`,
    versions: "v0.3.9+",
    head: "[Mooncake Cuda] ",
    pattern: /\[Mooncake Cuda\] Transfer timeout \| BatchID: (?<batchId>\S+)/ys,
    attrs: { ...timeout("cuda_batch"), batchId: cap("batchId") },
    truncated: "Mooncake CUDA batch line",
    samples: [glog("transfer_engine_py.cpp:916", "[Mooncake Cuda] Transfer timeout | BatchID: 94582317056")],
  }),
  errorRow({
    id: "mooncakeIntegration.cuda_batch_failed",
    level: "ERROR",
    format: "[Mooncake Cuda] Transfer failed | BatchID: {batch_id} | Bytes: {total_bytes}",
    source: `${PY} transfer_on_cuda_callback`,
    versions: "v0.3.9+",
    head: "[Mooncake Cuda] ",
    pattern: /\[Mooncake Cuda\] Transfer failed \| BatchID: (?<batchId>\S+) \| Bytes: (?<bytes>\d+)/ys,
    attrs: { ...error("cuda_batch", "transfer failed"), batchId: cap("batchId"), bytes: cap("bytes", "number") },
    truncated: "Mooncake CUDA batch line",
    samples: [glog("transfer_engine_py.cpp:912", "[Mooncake Cuda] Transfer failed | BatchID: 94582317056 | Bytes: 4194304")],
  }),
  errorRow({
    id: "mooncakeIntegration.cuda_batch_submit",
    level: "ERROR",
    format: "[Mooncake Cuda] Submit failed: {status.ToString()} | BatchID: {id}",
    source: `${PY} transfer_on_cuda_callback`,
    versions: "v0.3.9+",
    head: "[Mooncake Cuda] ",
    pattern: /\[Mooncake Cuda\] Submit failed: (?<error>.*) \| BatchID: (?<batchId>\S+)$/ys,
    attrs: { ...error("cuda_batch_submit"), batchId: cap("batchId") },
    truncated: "Mooncake CUDA batch line",
    samples: [glog("transfer_engine_py.cpp:894", "[Mooncake Cuda] Submit failed: InvalidArgument: invalid segment handle | BatchID: 94582317056")],
  }),
  errorRow({
    id: "mooncakeIntegration.cuda_batch_status",
    level: "ERROR",
    format: "[Mooncake Cuda] Failed to get status for BatchID: {id}",
    source: `${PY} transfer_on_cuda_callback`,
    versions: "v0.3.9+",
    head: "[Mooncake Cuda] ",
    pattern: /\[Mooncake Cuda\] Failed to get status for BatchID: (?<batchId>\S+)/ys,
    attrs: { ...error("cuda_batch_status", "failed to get status"), batchId: cap("batchId") },
    truncated: "Mooncake CUDA batch line",
    samples: [glog("transfer_engine_py.cpp:905", "[Mooncake Cuda] Failed to get status for BatchID: 94582317056")],
  }),
  timeoutRow({
    id: "mooncakeIntegration.sync_batch_timeout",
    level: "INFO",
    format: "Sync batch data transfer timeout after {ns}ns",
    source: `${PY} TransferEnginePy::batchTransferSync / getBatchTransferStatus`,
    versions: "v0.3.4+",
    head: "Sync batch data transfer timeout after ",
    pattern: /Sync batch data transfer timeout after (?<elapsedNs>\d+)ns/ys,
    attrs: { ...timeout("sync_batch"), elapsedNs: cap("elapsedNs", "number") },
    truncated: "Mooncake sync transfer timeout line",
    samples: [glog("transfer_engine_py.cpp:634", "Sync batch data transfer timeout after 30001234567ns", "I")],
  }),
  timeoutRow({
    id: "mooncakeIntegration.sync_transfer_timeout",
    level: "INFO",
    format:
      "Sync data transfer timeout (the engine's TIMEOUT status), or the wall-clock limit: `Sync data transfer timeout, local buffer {ptr} remote buffer {ptr} length {n}` (≤ v0.3.3), `Sync data transfer timeout after {ns}ns, local buffer {ptr} remote buffer {ptr} length {n}` (v0.3.4+) — the call SGLang's `transfer_sync_write` makes",
    source: `${PY} TransferEnginePy::transferSync`,
    head: "Sync data transfer timeout",
    pattern: /Sync data transfer timeout(?: after (?<elapsedNs>\d+)ns)?(?:, local buffer (?<localBuffer>\S+) remote buffer (?<remoteBuffer>\S+) length (?<bytes>\d+))?$/ys,
    attrs: {
      ...timeout("sync_transfer"),
      elapsedNs: cap("elapsedNs", "number"),
      localBuffer: cap("localBuffer"),
      remoteBuffer: cap("remoteBuffer"),
      bytes: cap("bytes", "number"),
    },
    truncated: "Mooncake sync transfer timeout line",
    samples: [
      glog("transfer_engine_py.cpp:533", "Sync data transfer timeout after 30000456789ns, local buffer 0x7f2a40000000 remote buffer 0x7f1c80010000 length 65536", "I"),
    ],
  }),
  errorRow({
    id: "mooncakeIntegration.segment_down",
    level: "WARNING",
    format: "submitTransfer failed with target {target_hostname}, CheckSegmentStatus not ok, ready to closeSegment (the peer's segment is gone)",
    source: `${PY} TransferEnginePy::transferSync / batchTransferSync`,
    versions: "v0.3.8+",
    head: "submitTransfer failed with target ",
    pattern: /submitTransfer failed with target (?<peer>\S+), CheckSegmentStatus not ok, ready to closeSegment/ys,
    attrs: { ...error("segment_down", "CheckSegmentStatus not ok"), peer: cap("peer") },
    truncated: "Mooncake segment status line",
    samples: [glog("transfer_engine_py.cpp:503", "submitTransfer failed with target 10.99.91.49:15295, CheckSegmentStatus not ok, ready to closeSegment", "W")],
  }),
];

export const MOONCAKE_INTEGRATION: TemplateComponent = {
  name: "mooncakeIntegration",
  dialect: "engine",
  sourceFiles: /^(?:store_py|transfer_engine_py)\.cpp$/,
  engine: "mooncake",
  title: "Mooncake Python binding",
  intro:
    "`kvcache-ai/Mooncake` `mooncake-integration/`, glog. Event: `xfer.error` (`engine: mooncake`, `errorKind`, `error`, the fields named, `failureClass`) or `xfer.timeout` (`scope`, `failureClass: timeout`).",
  templates,
};
