// LMCache (LMCache/LMCache lmcache/v1/), Python logging behind LMCache's own
// prefix (`[2025-09-25 00:42:06,089] LMCache WARNING: … (file.py:line:module)`),
// often behind a vLLM or Ray process tag. Its ISO-dated lines take SGLang's
// templates too (ingest/formats/log/messages.ts), so its rows sit in that set;
// a row's sample is a whole line as the log holds it.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const templates: LogTemplate[] = [
  {
    id: "lmcache.retrieve_block_missing",
    level: "WARNING",
    format: "The cache block is in the storage, but it can't be retrieved",
    source:
      "lmcache/v1/cache_engine.py LMCacheEngine retrieve: storage_manager.batched_get returned None for a block the lookup had found; the retrieval stops at that block (ret_mask cut), and vllm_v1_adapter.py then logs `The number of retrieved tokens is less than the expected number of tokens!`",
    versions: "v0.3.x",
    checked: "✔",
    head: "The cache block is in the storage, but it can't be retrieved",
    pattern: /The cache block is in the storage, but it can't be retrieved/y,
    kind: LogKind.transportError,
    attrs: { engine: "lmcache", errorKind: "retrieve_block_missing", error: "the cache block is in the storage, but it can't be retrieved", failureClass: "transport" },
    samples: [
      "(RayWorkerWrapper pid=999) [2025-09-25 00:42:06,089] LMCache WARNING: The cache block is in the storage, but it can't be retrieved (cache_engine.py:1087:lmcache.v1.cache_engine)",
      "(EngineCore_DP0 pid=772517) [2026-01-27 01:40:11,073] LMCache WARNING: The cache block is in the storage, but it can't be retrieved (cache_engine.py:1471:lmcache.v1.cache_engine)",
    ],
  },
  {
    id: "lmcache.l2_store_failed",
    level: "WARNING",
    format: "Store task {task_id} to adapter {adapter_index} failed for keys: {keys}",
    source:
      "lmcache/v1/distributed/storage_controllers/store_controller.py StoreController, on an L2 adapter's store task completing unsuccessfully: it logs the task, the adapter's index and the keys (later copies first publish L2_STORE_COMPLETED with every key failed, succeeded_count 0; the newest then schedule the keys' retry). Read in LMCache/LMCache at ad27712 (`Store task %d …`) and 00c5e64 (`Store request %d …`, the request's id), and in forks' copies",
    checked: "✔",
    head: "Store ",
    pattern: /Store (?:task|request) (?<task>\d+) to adapter (?<adapter>\d+) failed for keys: /y,
    kind: LogKind.transportError,
    attrs: {
      engine: "lmcache",
      errorKind: "l2_store_failed",
      error: "an L2 adapter did not store a task's keys",
      task: cap("task", "number"),
      adapter: cap("adapter", "number"),
      failureClass: "transport",
    },
    samples: [
      // LMCache/LMCache#5123 (an MP server with a Redis L2 adapter; the keys elided by its reporter).
      "[2026-09-15 06:24:51,595] LMCache WARNING: Store task 1 to adapter 0 failed for keys: ....",
    ],
  },
];

export const LMCACHE: TemplateComponent = {
  name: "lmcache",
  dialect: "sglang",
  title: "LMCache",
  intro:
    "`LMCache/LMCache` `lmcache/v1/`, Python logging behind LMCache's prefix. A retrieval that found a block in the storage and could not read it back is a KV load failure, and a store task that one of its L2 adapters failed (the storage LMCache's distributed cache writes to, Redis in the thread it came from) is KV cache that was not kept: `xfer.error` (`engine: lmcache`, `errorKind`, `failureClass: transport`).",
  templates,
};
