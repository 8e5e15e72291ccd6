// One Prometheus series and its samples as `metric.sample` events, whatever
// file or pull they came from (docs/telemetry.md "Prometheus metrics").
//
// Who a sample is comes from SGLang's own labels (python/sglang/srt/managers/
// scheduler_metrics_mixin.py init_metrics: `model_name`, `engine_type`,
// `tp_rank`, `pp_rank`, `dp_rank`, …): `engine_type` prefill/decode is the PD
// role; `unified` gives none, so the path's role (or --role) stands — revisions
// such as 01bb3c8 label every server `unified`, PD ones too. The ranks are the rank labels, and the host is
// the path's (or --host's) when it gives one, else the `instance` label's host
// part (the target Prometheus scraped: `10.0.0.11:30000` is host 10.0.0.11).
// A series SGLang does not write (its name lacks the `sglang:` prefix every
// collector.py series carries) is kept all the same and counted as not
// understood, its name as the shape.

import type { ParsedEvent } from "../../../domain/event.js";
import { TelemetryKind } from "../../../domain/kinds.js";
import type { Role } from "../../../domain/vocabulary.js";

/** The label every SGLang series name starts with (collector.py: `name="sglang:…"`). */
export const SGLANG_PREFIX = "sglang:";

export type MetricType = "gauge" | "counter" | "histogram" | "summary" | "untyped";

/** Who wrote the samples when the labels do not say: the source's host (its path or --host). */
export interface SeriesContext {
  host?: string;
}

/** A series as the samples of it are stored: its identity decided once, shared by every sample. */
export interface Series {
  metric: string;
  labels: Readonly<Record<string, string>>;
  /** `name{l="v",…}` with the labels in the order given, as PromQL prints a series. */
  text: string;
  metricType: MetricType;
  host?: string;
  role?: Role;
  dp?: number;
  pp?: number;
  tp?: number;
  sglang: boolean;
}

/** The suffixes of a histogram's or summary's sample names (exposition format "Histograms and summaries"). */
const FAMILY_SUFFIXES = ["_bucket", "_sum", "_count", "_created", "_gsum", "_gcount"];

/** A metric's type from its name when no `# TYPE` says it: Prometheus naming conventions (`_total` counts, `_bucket` is a histogram's). */
export function typeFromName(name: string): MetricType {
  if (name.endsWith("_total")) return "counter";
  if (name.endsWith("_bucket")) return "histogram";
  return "untyped";
}

/** The metric family a sample name belongs to: `foo_bucket` → `foo`, `foo_total` → `foo` (OpenMetrics counters). */
export function familyCandidates(name: string): string[] {
  const out = [name];
  for (const s of [...FAMILY_SUFFIXES, "_total"]) if (name.endsWith(s)) out.push(name.slice(0, -s.length));
  return out;
}

/** Label-value escaping of the exposition format: backslash, double quote and newline. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export function seriesText(metric: string, labels: Readonly<Record<string, string>>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return parts.length > 0 ? `${metric}{${parts.join(",")}}` : metric;
}

/** The host part of an `instance` label: `10.0.0.11:30000` → `10.0.0.11`, `[::1]:9090` → `::1`. */
export function hostOfInstance(instance: string): string | undefined {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(instance);
  if (v6) return v6[1];
  const host = instance.replace(/:\d+$/, "");
  return host !== "" ? host : undefined;
}

function rank(v: string | undefined): number | undefined {
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** engine_type (collector.py TimeStats.disagg_mode_str's words): prefill/decode are PD roles; unified says none. */
function roleOf(engine: string | undefined): Role | undefined {
  return engine === "prefill" || engine === "decode" ? engine : undefined;
}

export function makeSeries(metric: string, labels: Readonly<Record<string, string>>, metricType: MetricType, ctx: SeriesContext): Series {
  const s: Series = { metric, labels, text: seriesText(metric, labels), metricType, sglang: metric.startsWith(SGLANG_PREFIX) };
  const host = ctx.host === undefined && labels.instance !== undefined ? hostOfInstance(labels.instance) : undefined;
  if (host !== undefined) s.host = host;
  const role = roleOf(labels.engine_type);
  if (role !== undefined) s.role = role;
  const dp = rank(labels.dp_rank);
  const pp = rank(labels.pp_rank);
  const tp = rank(labels.tp_rank);
  if (dp !== undefined) s.dp = dp;
  if (pp !== undefined) s.pp = pp;
  if (tp !== undefined) s.tp = tp;
  return s;
}

/** A sample value as the exposition writes it: a Go float, `+Inf`, `-Inf` or `NaN`; undefined when it is none. */
export function parseSampleValue(text: string): number | undefined {
  switch (text) {
    case "+Inf":
    case "Inf":
      return Infinity;
    case "-Inf":
      return -Infinity;
    case "NaN":
      return NaN;
  }
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** How a non-finite value is written: the event keeps it as text (a stored number must be finite). */
function nonFiniteText(v: number): string {
  return Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf";
}

/**
 * One sample as an event. `tsUs` undefined: the sample carries no time (a
 * scrape saved without timestamps); it is timeless and placed at `anchorUs`.
 */
export function sampleEvent(series: Series, value: number, tsUs: number | undefined, anchorUs: number, line: number, text: string): ParsedEvent {
  // The labels, model and engine are read back from the series text (domain/telemetry.ts seriesLabels): one copy per sample is enough.
  const attrs: Record<string, unknown> = { metric: series.metric, metricType: series.metricType, series: series.text };
  if (Number.isFinite(value)) attrs.value = value;
  else attrs.nonFinite = nonFiniteText(value);
  const ev: ParsedEvent = { tsUs: tsUs ?? anchorUs, line, kind: TelemetryKind.metricSample, text, attrs };
  if (tsUs === undefined) {
    ev.tsInferred = true;
    ev.timeless = true;
  }
  if (series.host !== undefined) ev.host = series.host;
  if (series.role !== undefined) ev.role = series.role;
  if (series.dp !== undefined) ev.dp = series.dp;
  if (series.pp !== undefined) ev.pp = series.pp;
  if (series.tp !== undefined) ev.tp = series.tp;
  if (!series.sglang) ev.unparsedMessage = `a series SGLang does not write: ${series.metric}`;
  return ev;
}

/** A source's samples in time order (the merge of sources takes each in order); stable, so a file's order breaks ties. */
export function inTimeOrder(events: ParsedEvent[]): ParsedEvent[] {
  return events.sort((a, b) => a.tsUs - b.tsUs);
}
