// What SGLang's telemetry means to the checks: which Prometheus series are
// the PD queues, the arrivals, the failure counters and the scheduler's
// progress, and which trace stage says what about a room. The one place the
// analyzer and the timeline read these names from (docs/telemetry.md cites
// the SGLang source of each).

import { KVPoll, type KVPollValue, type Role } from "./vocabulary.js";

/** What a series tells about the PD path. */
export type SeriesMeaning =
  /** A queue of rooms waiting on the transfer: frozen above zero while work arrives, the path is wedged. */
  | "transfer-queue"
  /** Work arriving: a queue that fills or a request counter that rises. */
  | "arrivals"
  /** A failure counter: each rise is a room the PD path failed. */
  | "transfer-failures"
  | "bootstrap-failures"
  | "aborts"
  /** Rises while the engine runs forward passes (SGLang has no loop counter): flat while requests wait to run, the scheduler hung. */
  | "scheduler-progress"
  /** A queue the scheduler itself drains (running, waiting): above zero, there is work it could run. */
  | "runnable";

export interface SeriesSpec {
  /** Every name the series has had across SGLang versions. */
  names: readonly string[];
  meaning: SeriesMeaning;
  /** The engine whose scheduler sets it (engine_type label), when only one does. */
  role?: Role;
  /** In words, for findings: "decode transfer queue". */
  label: string;
  /** Requests in it are the scheduler's to run (not waiting on a transfer). */
  runnable?: boolean;
  /** The batch line's field that prints the same number (docs/protocol.md §2.1, §2.2): both are read from one stats call. */
  batchField?: string;
}

/**
 * SGLang's series by meaning (python/sglang/srt/metrics/collector.py,
 * SchedulerMetricsCollector and TokenizerMetricsCollector). The queue gauges
 * are set only when the scheduler logs its stats (scheduler_metrics_mixin.py
 * log_prefill_stats / log_decode_stats), so a gauge that holds its value
 * while another gauge of the same stats call moves was read again, not left
 * behind.
 */
export const SGLANG_SERIES: readonly SeriesSpec[] = [
  { names: ["sglang:num_decode_transfer_queue_reqs"], meaning: "transfer-queue", role: "decode", label: "decode transfer queue", batchField: "#transfer-req" },
  { names: ["sglang:num_prefill_inflight_queue_reqs"], meaning: "transfer-queue", role: "prefill", label: "prefill inflight queue", batchField: "#inflight-req" },
  { names: ["sglang:num_decode_prealloc_queue_reqs"], meaning: "arrivals", role: "decode", label: "decode prealloc queue" },
  { names: ["sglang:num_prefill_bootstrap_queue_reqs", "sglang:num_prefill_prealloc_queue_reqs"], meaning: "arrivals", role: "prefill", label: "prefill bootstrap queue" },
  { names: ["sglang:num_queue_reqs"], meaning: "arrivals", label: "waiting queue", runnable: true },
  { names: ["sglang:num_running_reqs"], meaning: "runnable", label: "running requests", runnable: true },
  { names: ["sglang:num_requests_total", "sglang:http_requests_total"], meaning: "arrivals", label: "requests" },
  { names: ["sglang:num_transfer_failed_reqs_total"], meaning: "transfer-failures", label: "transfer-failed requests" },
  { names: ["sglang:num_bootstrap_failed_reqs_total"], meaning: "bootstrap-failures", label: "bootstrap-failed requests" },
  { names: ["sglang:num_aborted_requests_total", "sglang:scheduler_aborts_total"], meaning: "aborts", label: "aborted requests" },
  {
    names: ["sglang:realtime_tokens_total", "sglang:forward_execution_seconds_total", "sglang:gpu_execution_seconds_total", "sglang:cuda_graph_passes_total"],
    meaning: "scheduler-progress",
    label: "forward progress",
  },
];

const BY_NAME = new Map(SGLANG_SERIES.flatMap((s) => s.names.map((n) => [n, s] as const)));

/** The spec of a series name, or undefined for a series no check reads. */
export function seriesSpec(metric: string): SeriesSpec | undefined {
  return BY_NAME.get(metric);
}

/** A trace stage (python/sglang/srt/tracing/trace_metric_wrapper.py RequestStage) and what its end says about the room. */
export interface StageSpec {
  side: "prefill" | "decode";
  /** The side's KVPoll once the stage has ended (docs/protocol.md §5). */
  after?: KVPollValue;
  /** The room's work on that side is done once it ends. */
  finishes?: boolean;
}

export const SGLANG_STAGES: Readonly<Record<string, StageSpec>> = {
  prefill_prepare: { side: "prefill" },
  prefill_bootstrap: { side: "prefill", after: KVPoll.WaitingForInput },
  prefill_waiting: { side: "prefill" },
  prefill_forward: { side: "prefill" },
  chunked_prefill: { side: "prefill" },
  prefill_transfer_kv_cache: { side: "prefill", after: KVPoll.Success, finishes: true },
  decode_prepare: { side: "decode" },
  decode_bootstrap: { side: "decode", after: KVPoll.WaitingForInput },
  decode_waiting: { side: "decode", after: KVPoll.Success },
  decode_transferred: { side: "decode", after: KVPoll.Success, finishes: true },
  fake_output: { side: "decode", finishes: true },
  quick_finish: { side: "decode", finishes: true },
};

/**
 * The labels of a series as PromQL prints it, `name{l="v",…}` (the values
 * escaped as the exposition format escapes them: backslash, double quote,
 * newline): a sample stores its series once as this text, and its labels are
 * read back from it.
 */
export function seriesLabels(series: string): Record<string, string> {
  const out: Record<string, string> = {};
  const open = series.indexOf("{");
  if (open < 0) return out;
  const re = /([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
  re.lastIndex = open + 1;
  for (let m = re.exec(series); m; m = re.exec(series)) out[m[1]!] = m[2]!.replace(/\\(.)/g, (_all, c: string) => (c === "n" ? "\n" : c));
  return out;
}
