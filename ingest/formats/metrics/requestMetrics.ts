// SGLang's request metrics file (`--export-metrics-to-file`,
// `--export-metrics-to-file-dir DIR`): python/sglang/srt/managers/
// request_metrics_exporter.py FileRequestMetricsExporter (later revisions:
// python/sglang/srt/observability/request_metrics_exporter.py) appends one
// JSON object a line for each finished request to
// `DIR/sglang-request-metrics-<YYYYmmdd_HH>.log`. It is no Prometheus series:
//
//   record = {"request_parameters": "<the GenerateReqInput fields as a JSON string>",
//             <the response's meta_info>: "id": rid, "finish_reason": {"type": …} | null,
//             "prompt_tokens", "completion_tokens", "cached_tokens", "e2e_latency",
//             "response_sent_to_client_ts" (time.time()), "dp_rank"?, …}
//
// Each finite number of the record (but times and dp_rank) becomes one
// `metric.sample` named for its key (`e2e_latency`, `prompt_tokens`, …) at
// the time the response was sent (`response_sent_to_client_ts`, else
// `request_finished_ts`), with the record's rid; a record with neither time is
// timeless. A line that is not a JSON object is a parse issue with its line.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { firstJsonObjects, isBlank, isPlainObject, jsonRecord } from "../records.js";
import { inTimeOrder, sampleEvent, seriesText, type Series } from "./series.js";

/** Keys that are times or identity, not measurements. */
const NOT_MEASURES = new Set(["dp_rank"]);
const TIME_KEYS = ["response_sent_to_client_ts", "request_finished_ts"];

function timeOf(rec: Record<string, unknown>): number | undefined {
  for (const k of TIME_KEYS) {
    const v = rec[k];
    if (typeof v === "number" && v > 0) return Math.round(v * 1e6);
  }
  return undefined;
}

function finishType(rec: Record<string, unknown>): string | undefined {
  const f = rec.finish_reason;
  return isPlainObject(f) && typeof f.type === "string" ? f.type : undefined;
}

class RequestMetricsParser implements LineParser {
  private readonly events: ParsedEvent[] = [];
  private readonly anchorUs: number;
  private readonly series = new Map<string, Series>();

  constructor(ctx: ParseContext) {
    this.anchorUs = ctx.dating?.anchorUs ?? 0;
  }

  line(text: string, lineNo: number, _out: ParsedEvent[], issues: ParseIssue[]): void {
    if (isBlank(text)) return;
    const rec = jsonRecord(text, lineNo, issues);
    if (!rec) return;
    const tsUs = timeOf(rec);
    const finish = finishType(rec);
    const dp = typeof rec.dp_rank === "number" ? rec.dp_rank : undefined;
    for (const [key, v] of Object.entries(rec)) {
      if (typeof v !== "number" || !Number.isFinite(v) || NOT_MEASURES.has(key) || key.endsWith("_ts")) continue;
      const ev = sampleEvent(this.seriesOf(key, finish), v, tsUs, this.anchorUs, lineNo, text);
      if (typeof rec.id === "string") ev.rid = rec.id;
      if (dp !== undefined) ev.dp = dp;
      this.events.push(ev);
    }
  }

  end(out: ParsedEvent[]): void {
    out.push(...inTimeOrder(this.events));
  }

  private seriesOf(metric: string, finish: string | undefined): Series {
    const key = `${metric}\u0000${finish ?? ""}`;
    let s = this.series.get(key);
    if (s === undefined) {
      const labels: Record<string, string> = finish !== undefined ? { finish_reason: finish } : {};
      s = { metric, labels, text: seriesText(metric, labels), metricType: "untyped", sglang: true };
      this.series.set(key, s);
    }
    return s;
  }
}

export const sglangRequestMetrics: InputFormat = {
  name: "sglang-request-metrics",
  detect: (head) => firstJsonObjects(head).some((o) => typeof o.request_parameters === "string"),
  createParser: (ctx) => new RequestMetricsParser(ctx),
};
