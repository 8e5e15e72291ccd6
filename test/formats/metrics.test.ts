import { seriesLabels } from "../../domain/telemetry.js";
import { sampleOwnText } from "../../store/eventText.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { InputFormat, ParseContext } from "../../ingest/formats/format.js";
import { detectFormat } from "../../ingest/formats/index.js";
import { prometheusText } from "../../ingest/formats/metrics/exposition.js";
import { prometheusApiJson } from "../../ingest/formats/metrics/promApi.js";
import { sglangRequestMetrics } from "../../ingest/formats/metrics/requestMetrics.js";
import { parsePullTime, stepFor } from "../../ingest/prometheus/pull.js";

const ANCHOR_US = 1_700_000_000_000_000;

function parse(format: InputFormat, lines: string[], ctx: Partial<ParseContext> = {}): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const dating = { hasDatedLines: false, anchorUs: ANCHOR_US, anchorOrigin: "test", yearNearUs: ANCHOR_US, yearOrigin: "test" };
  const parser = format.createParser({ sourcePath: "p0/metrics.prom", tzOffsetMinutes: 0, dating, ...ctx });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  lines.forEach((l, i) => parser.line(l, i + 1, events, issues));
  parser.end(events, issues);
  while (parser.drain?.(events, 3)) continue;
  return { events, issues };
}

const MODEL = "deepseek-ai/DeepSeek-V3.2";


/** A sample's labels, read back from its series text as the decoder reads them. */
function labelsOf(e: ParsedEvent): Record<string, string> {
  return seriesLabels(e.attrs!.series as string);
}

test("a saved scrape: each sample an event with its series' labels, ranks and role; no timestamp means timeless", () => {
  const lines = [
    "# HELP sglang:num_decode_transfer_queue_reqs The number of requests in the decode transfer queue.",
    "# TYPE sglang:num_decode_transfer_queue_reqs gauge",
    `sglang:num_decode_transfer_queue_reqs{engine_type="decode",instance="10.0.0.12:30001",model_name="${MODEL}",pp_rank="0",tp_rank="3",dp_rank="1"} 58.0`,
  ];
  const { events, issues } = parse(prometheusText, lines);
  assert.deepEqual(issues, []);
  assert.deepEqual(events, [
    {
      tsUs: ANCHOR_US,
      tsInferred: true,
      timeless: true,
      line: 3,
      kind: "metric.sample",
      host: "10.0.0.12",
      role: "decode",
      dp: 1,
      pp: 0,
      tp: 3,
      text: lines[2],
      attrs: {
        metric: "sglang:num_decode_transfer_queue_reqs",
        value: 58,
        metricType: "gauge",
        series: `sglang:num_decode_transfer_queue_reqs{engine_type="decode",instance="10.0.0.12:30001",model_name="${MODEL}",pp_rank="0",tp_rank="3",dp_rank="1"}`,
      },
    },
  ]);
  // The labels are read back from the series text, where each sample keeps them once.
  assert.deepEqual(labelsOf(events[0]!), { engine_type: "decode", instance: "10.0.0.12:30001", model_name: MODEL, pp_rank: "0", tp_rank: "3", dp_rank: "1" });
});

test("the path's host wins over the instance label; engine_type unified gives no role", () => {
  const { events } = parse(prometheusText, ['sglang:num_running_reqs{engine_type="unified",instance="10.0.0.11:30000",tp_rank="0"} 4'], { host: "p0" });
  assert.equal(events[0]!.host, undefined, "the source's host (p0) stands");
  assert.equal(events[0]!.role, undefined);
  assert.equal(labelsOf(events[0]!).engine_type, "unified");
});

test("histogram family types, escaped label values, +Inf and NaN, timestamps in ms and in OpenMetrics seconds", () => {
  const lines = [
    "# TYPE sglang:per_stage_req_latency_seconds histogram",
    'sglang:per_stage_req_latency_seconds_bucket{le="+Inf",stage="decode_waiting"} 7 1795145415000',
    'sglang:per_stage_req_latency_seconds_sum{stage="decode_waiting"} 3.5 1795145415.5',
    'sglang:kv_transfer_speed_gb_s{note="a \\"quoted\\" \\\\ path\\nnext"} NaN',
    "sglang:num_transfer_failed_reqs_total +Inf",
    "# EOF",
  ];
  const { events, issues } = parse(prometheusText, lines);
  assert.deepEqual(issues, []);
  const byLine = new Map(events.map((e) => [e.line, e]));
  assert.equal(byLine.get(2)!.tsUs, 1795145415000000);
  assert.equal(byLine.get(2)!.attrs!.metricType, "histogram");
  assert.deepEqual(labelsOf(byLine.get(2)!), { le: "+Inf", stage: "decode_waiting" });
  assert.equal(byLine.get(3)!.tsUs, 1795145415500000);
  assert.equal(byLine.get(3)!.attrs!.metricType, "histogram");
  assert.deepEqual(labelsOf(byLine.get(4)!), { note: 'a "quoted" \\ path\nnext' });
  assert.equal(byLine.get(4)!.attrs!.value, undefined);
  assert.equal(byLine.get(4)!.attrs!.nonFinite, "NaN");
  assert.equal(byLine.get(5)!.attrs!.nonFinite, "+Inf");
  assert.equal(byLine.get(5)!.attrs!.metricType, "counter", "from the _total suffix");
});

test("a cut or garbled line is an issue naming the file and its line; the lines around it are kept", () => {
  const lines = [
    'sglang:num_prefill_inflight_queue_reqs{engine_type="prefill",tp_rank="0"} 3',
    'sglang:num_prefill_bootstrap_queue_reqs{engine_type="prefill",tp_ra',
    "sglang:num_prefill_bootstrap_queue_reqs{} 12 oops",
    'sglang:num_decode_transfer_queue_reqs{engine_type="decode",tp_rank="0"} 3',
  ];
  const { events, issues } = parse(prometheusText, lines);
  assert.deepEqual(events.map((e) => e.line), [1, 4]);
  assert.deepEqual(issues.map((i) => i.line), [2, 3]);
  assert.match(issues[0]!.message, /^p0\/metrics\.prom: label tp_ra has no quoted value/);
  assert.match(issues[1]!.message, /^p0\/metrics\.prom: sample timestamp "oops" is not a number/);
});

test("a scrape with two model_names keeps both, each sample with its own model; a series not SGLang's is kept and marked", () => {
  const { events } = parse(prometheusText, [
    'sglang:num_running_reqs{model_name="deepseek-ai/DeepSeek-V3.2",tp_rank="0"} 5',
    'sglang:num_running_reqs{model_name="Qwen/Qwen3-8B",tp_rank="0"} 2',
    'process_resident_memory_bytes 1.2e+09',
  ]);
  assert.deepEqual(events.map((e) => [labelsOf(e).model_name, e.attrs!.value]), [["deepseek-ai/DeepSeek-V3.2", 5], ["Qwen/Qwen3-8B", 2], [undefined, 1.2e9]]);
  assert.deepEqual(events.map((e) => e.unparsedMessage), [undefined, undefined, "a series SGLang does not write: process_resident_memory_bytes"]);
});

test("HTTP API answers: a matrix (query_range), a vector and a scalar (query); samples numbered in the answer's order, text saying series and time", () => {
  const matrix = JSON.stringify({
    status: "success",
    data: { resultType: "matrix", result: [{ metric: { __name__: "sglang:num_decode_transfer_queue_reqs", instance: "10.0.0.12:30001", engine_type: "decode", tp_rank: "0" }, values: [[1795145400, "0"], [1795145415, "3"]] }] },
  });
  const m = parse(prometheusApiJson, [matrix]);
  assert.deepEqual(m.issues, []);
  assert.deepEqual(m.events.map((e) => [e.line, e.tsUs, e.attrs!.value, e.host, e.role, e.tp]), [
    [1, 1795145400000000, 0, "10.0.0.12", "decode", 0],
    [2, 1795145415000000, 3, "10.0.0.12", "decode", 0],
  ]);
  // The answer is one line of JSON: the store renders a sample's text from its fields.
  assert.equal(m.events[1]!.text, "");
  const shown = sampleOwnText(m.events[1]!.text, (k) => m.events[1]!.attrs![k], m.events[1]!.tsUs);
  assert.equal(shown, 'sglang:num_decode_transfer_queue_reqs{instance="10.0.0.12:30001",engine_type="decode",tp_rank="0"} 3 @2026-11-20T03:30:15.000000Z');
  const v = parse(prometheusApiJson, ['{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","instance":"10.0.0.11:30000"},"value":[1795145400.25,"1"]}]}}']);
  assert.deepEqual(v.events.map((e) => [e.tsUs, e.attrs!.metric, e.attrs!.value, e.unparsedMessage !== undefined]), [[1795145400250000, "up", 1, true]]);
  const s = parse(prometheusApiJson, ['{"status":"success","data":{"resultType":"scalar","result":[1795145400,"42"]}}']);
  assert.deepEqual(s.events.map((e) => [e.attrs!.metric, e.attrs!.value]), [["scalar", 42]]);
});

test("an error answer is one issue naming the file and Prometheus's error, and no event", () => {
  const { events, issues } = parse(prometheusApiJson, ['{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}']);
  assert.deepEqual(events, []);
  assert.deepEqual(issues, [
    { line: 1, message: "p0/metrics.prom: Prometheus answered an error: bad_data: exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)" },
  ]);
});

test("SGLang's request metrics file: each number of a record a sample at the response's time, with its rid", () => {
  const line = '{"request_parameters": "{\\"rid\\": \\"a1b2\\"}", "id": "a1b2", "finish_reason": {"type": "stop"}, "prompt_tokens": 12, "completion_tokens": 30, "cached_tokens": 0, "e2e_latency": 1.25, "response_sent_to_client_ts": 1795145880.5, "dp_rank": null}';
  const { events, issues } = parse(sglangRequestMetrics, [line]);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.attrs!.metric, e.attrs!.value, e.tsUs, e.rid]), [
    ["prompt_tokens", 12, 1795145880500000, "a1b2"],
    ["completion_tokens", 30, 1795145880500000, "a1b2"],
    ["cached_tokens", 0, 1795145880500000, "a1b2"],
    ["e2e_latency", 1.25, 1795145880500000, "a1b2"],
  ]);
  assert.deepEqual(labelsOf(events[0]!), { finish_reason: "stop" });
});

test("detection by content: a scrape, an API answer, a request metrics file; a log is none of them", () => {
  assert.equal(detectFormat("# HELP sglang:num_running_reqs The number of running requests.\n# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{tp_rank=\"0\"} 0.0\n").name, "prometheus-text");
  assert.equal(detectFormat('{"status":"error","errorType":"timeout","error":"query timed out"}').name, "prometheus-api-json");
  assert.equal(detectFormat('{"request_parameters": "{}", "id": "x", "e2e_latency": 0.5}\n').name, "sglang-request-metrics");
  assert.notEqual(detectFormat("[2026-11-20 03:40:05 TP0] Decode batch, #running-req: 0, #transfer-req: 3\n").name, "prometheus-text");
  assert.notEqual(detectFormat("hello world 1\n").name, "prometheus-text");
});

test("--from/--to: RFC 3339 with a zone or unix seconds; the step keeps a series under 10,000 points, at least 15 s", () => {
  assert.equal(parsePullTime("2026-11-20T03:30:00Z"), 1795145400000000);
  assert.equal(parsePullTime("2026-11-20T05:30:00.25+02:00"), 1795145400250000);
  assert.equal(parsePullTime("1795145400"), 1795145400000000);
  assert.equal(parsePullTime("2026-11-20 03:30"), undefined);
  assert.equal(parsePullTime("yesterday"), undefined);
  assert.equal(stepFor(0, 3600e6), 15);
  assert.equal(stepFor(0, 7 * 86400e6), 61, "a week: 604,800 s / 9,999 points");
});
