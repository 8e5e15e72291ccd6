// Mooncake store (kvcache-ai/Mooncake mooncake-store/src/), glog: the batch
// waits of the store's transfers. The format is what follows the glog prefix.

import { cap, type LogTemplate, type TemplateComponent } from "../template.js";
import { error, errorRow, glog, timeout, timeoutRow } from "./mooncakeRows.js";

const templates: LogTemplate[] = [
  timeoutRow({
    id: "mooncakeStore.store_batch_timeout_s",
    level: "ERROR",
    format:
      "Failed to complete transfers after 60 seconds (client.cpp, v0.3.0–v0.3.2) / `… after {timeout_seconds} seconds` (transfer_task.cpp, v0.3.3) / `… seconds for batch {batch_id_}` (v0.3.4–v0.3.10)",
    source: "mooncake-store/src/client.cpp; mooncake-store/src/transfer_task.cpp TransferEngineOperationState::wait_for_completion",
    head: "Failed to complete transfers after ",
    pattern: /Failed to complete transfers after (?<timeout>\d+) seconds(?: for batch (?<batchId>\S+))?/ys,
    attrs: { ...timeout("store_batch"), timeoutS: cap("timeout", "number"), batchId: cap("batchId") },
    truncated: "Mooncake store transfer timeout line",
    samples: [glog("client.cpp:430", "Failed to complete transfers after 60 seconds"), glog("transfer_task.cpp:305", "Failed to complete transfers after 60 seconds for batch 94582317056")],
  }),
  timeoutRow({
    id: "mooncakeStore.store_batch_timeout_ms",
    level: "ERROR",
    format: "Failed to complete transfers after {timeout_milliseconds} milliseconds for batch {batch_id_}",
    source: "mooncake-store/src/transfer_task.cpp TransferEngineOperationState::wait_for_completion",
    versions: "v0.3.11+",
    head: "Failed to complete transfers after ",
    pattern: /Failed to complete transfers after (?<timeout>\d+) milliseconds(?: for batch (?<batchId>\S+))?/ys,
    attrs: { ...timeout("store_batch"), timeoutMs: cap("timeout", "number"), batchId: cap("batchId") },
    truncated: "Mooncake store transfer timeout line",
    samples: [glog("transfer_task.cpp:891", "Failed to complete transfers after 30000 milliseconds for batch 94582317056")],
  }),
  errorRow({
    id: "mooncakeStore.store_batch_status",
    level: "ERROR",
    format: "Failed to get transfer status for batch {batch_id_} task {i} with error {s.message()}",
    source: "mooncake-store/src/transfer_task.cpp TransferEngineOperationState::check_task_status",
    head: "Failed to get transfer status for batch ",
    pattern: /Failed to get transfer status for batch (?<batchId>\S+) task (?<task>\d+) with error (?<error>.*)$/ys,
    attrs: { ...error("store_batch_status"), batchId: cap("batchId"), task: cap("task", "number") },
    truncated: "Mooncake store transfer status line",
    samples: [glog("transfer_task.cpp:759", "Failed to get transfer status for batch 94582317056 task 3 with error batch not found")],
  }),
];

export const MOONCAKE_STORE: TemplateComponent = {
  name: "mooncakeStore",
  dialect: "engine",
  sourceFiles: /^(?:client|client_service|real_client|master_client|pybind_client|transfer_task|allocator|client_buffer\w*|storage_backend)\.cpp$/,
  engine: "mooncake",
  title: "Mooncake store",
  intro:
    "`kvcache-ai/Mooncake` `mooncake-store/`, glog. Mooncake store logs nothing else that names a PD transfer; `mooncake-store/src/transfer_task.cpp` is where the store's batch waits time out. Event: `xfer.timeout` (`engine: mooncake`, `scope`, `failureClass: timeout`) or `xfer.error` (`errorKind`, `error`, the fields named, `failureClass`).",
  templates,
};
