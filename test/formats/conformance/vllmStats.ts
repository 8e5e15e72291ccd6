// vLLM's stat logger (ingest/formats/templates/engines/vllmStats.ts), written by hand from vllm/v1/metrics/loggers.py
// LoggingStatLogger.log (`Engine %03d: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s,
// Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%`) and V0's
// vllm/engine/metrics.py (`Running: %d reqs, Swapped: %d reqs, Pending: %d reqs, GPU KV cache usage: %.1f%%, CPU KV
// cache usage: %.1f%%.`), under vLLM's logger prefix.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const VLLM_STATS_ROWS: EngineConformanceRow[] = [
  {
    template: "vllmStats.engine_stats",
    expect: { kind: LogKind.engineStats, attrs: { engine: 0, promptTps: 5120, generationTps: 1400.2, running: 60, waiting: 0, kvUsage: 81 } },
  },
  {
    template: "vllmStats.engine_stats",
    sample: 1,
    expect: { kind: LogKind.engineStats, attrs: { engine: 0, promptTps: 0, generationTps: 0, running: 60, waiting: 12, kvUsage: 81 } },
  },
  {
    template: "vllmStats.engine_stats",
    sample: 2,
    expect: { kind: LogKind.engineStats, attrs: { engine: undefined, promptTps: 0, generationTps: 32.4, running: 1, swapped: 0, waiting: 0, kvUsage: 0.1 } },
  },
];
