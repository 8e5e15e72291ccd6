// vLLM's stat logger to stdout (vllm/v1/metrics/loggers.py LoggingStatLogger.log; vllm/engine/metrics.py
// LoggingStatLogger.log before V1), and LMDeploy's copy of it (lmdeploy/metrics/loggers.py): every interval
// (VLLM_LOG_STATS_INTERVAL, 10 s) the API server asks the engine client for its stats (`do_log_stats`, from the
// server's own `_force_log` task: vllm/entrypoints/openai/api_server.py) and prints the prompt and generation
// throughputs over the interval and the scheduler's running and waiting requests. The line is printed by the
// front-end whatever the engine core does, so requests running while both throughputs are zero is an engine that
// made no step in the interval (analyzer/rules/logStalls.ts). V1 logs at debug once two intervals in a row are idle.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const V1_SOURCE =
  "vllm/v1/metrics/loggers.py LoggingStatLogger.log (`\"Engine %03d: \" \"Avg prompt throughput: %.1f tokens/s, \" \"Avg generation throughput: %.1f tokens/s, \" \"Running: %d reqs, Waiting: %d reqs, \" \"GPU KV cache usage: %.1f%%, \" \"Prefix cache hit rate: %.1f%%\"`; logger.debug instead of logger.info when this interval's and the last one's throughputs are all zero) (vllm-project/vllm, index copies); LMDeploy's lmdeploy/metrics/loggers.py LoggingStatLogger.log (the same words without the engine, `GPU KV cache usage: %.1f%%, ` last) (InternLM/lmdeploy, index copy)";

const STATS = {
  engine: cap("engine", "number"),
  promptTps: cap("prompt", "number"),
  generationTps: cap("generation", "number"),
  running: cap("running", "number"),
  swapped: cap("swapped", "number"),
  waiting: cap("waiting", "number"),
  kvUsage: cap("kv", "number"),
};

const templates: LogTemplate[] = [
  {
    id: "vllmStats.engine_stats",
    kind: LogKind.engineStats,
    checked: "✔",
    level: "info (debug once two intervals in a row are idle)",
    format:
      "[Engine {engine:03d}: ]Avg prompt throughput: {prompt} tokens/s, Avg generation throughput: {generation} tokens/s, Running: {running} reqs[, Swapped: {swapped} reqs], Waiting|Pending: {waiting} reqs[, GPU KV cache usage: {kv}%…]" +
      " — the engine's throughputs over the last interval and its scheduler's requests",
    source: `${V1_SOURCE}; vllm/engine/metrics.py LoggingStatLogger.log before V1 (\`Running: %d reqs, Swapped: %d reqs, Pending: %d reqs, GPU KV cache usage: %.1f%%, CPU KV cache usage: %.1f%%.\`) (index copies)`,
    head: (line, at) => line.startsWith("Avg prompt throughput: ", at) || (line.startsWith("Engine ", at) && line.startsWith(": Avg prompt throughput: ", line.indexOf(":", at))),
    firstChars: "AE",
    pattern:
      /(?:Engine (?<engine>\d+): )?Avg prompt throughput: (?<prompt>\d+(?:\.\d+)?) tokens\/s, Avg generation throughput: (?<generation>\d+(?:\.\d+)?) tokens\/s, Running: (?<running>\d+) reqs(?:, Swapped: (?<swapped>\d+) reqs)?(?:, (?:Waiting|Pending): (?<waiting>\d+) reqs)?(?:,? ?(?:GPU )?KV cache usage: (?<kv>\d+(?:\.\d+)?)%)?/y,
    attrs: STATS,
    samples: [
      "INFO 06-11 14:02:10 [loggers.py:116] Engine 000: Avg prompt throughput: 5120.0 tokens/s, Avg generation throughput: 1400.2 tokens/s, Running: 60 reqs, Waiting: 0 reqs, GPU KV cache usage: 81.0%, Prefix cache hit rate: 12.0%",
      "INFO 06-11 14:02:20 [loggers.py:116] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 60 reqs, Waiting: 12 reqs, GPU KV cache usage: 81.0%, Prefix cache hit rate: 12.0%",
      "INFO 01-20 09:03:01 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 32.4 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.",
    ],
  },
];

export const VLLM_STATS: TemplateComponent = {
  name: "vllmStats",
  dialect: "engine",
  title: "vLLM's stat logger: throughputs and requests every interval",
  intro:
    "`vllm-project/vllm` `vllm/v1/metrics/loggers.py` (and `vllm/engine/metrics.py` before V1; LMDeploy's copy): the line the API server prints every interval with the engine's prompt and generation throughputs and its running and waiting requests. Event: `engine.stats` (`promptTps`, `generationTps`, `running`, `waiting`, `swapped`, `kvUsage`, `engine`). A line whose engine holds running requests while both throughputs are zero is a stopped engine, judged by process-failure.",
  templates,
};
