// The operator's telemetry as event kinds (DESIGN.md "Inputs" 5;
// docs/telemetry.md): Prometheus samples, trace spans, crash dumps. Part of
// the one catalogue, domain/kinds.ts KINDS.

import { derived, type KindSpec } from "./kindSpec.js";

/** The operator's telemetry (DESIGN.md "Inputs" 5): Prometheus samples, trace spans, crash dumps. */
export const TelemetryKind = {
  metricSample: "metric.sample",
  span: "trace.span",
  crashDump: "crash.dump",
  crashRequest: "crash.request",
} as const;

export const TELEMETRY_KINDS = {
  [TelemetryKind.metricSample]: { lane: "metrics", tone: 0, colour: "#c792ea",
    doc: "one sample of a Prometheus series (a saved scrape, an HTTP API export, a live pull, SGLang's metrics file)",
    fields: {
      metric: "string",
      /** Absent when the sample is not a finite number (`nonFinite` says which). */
      value: "number?",
      /** `NaN`, `+Inf` or `-Inf`: a sample the exposition wrote as no finite number (a stored number is finite). */
      nonFinite: "string?",
      /** The series' own labels, `__name__` left out (model_name, engine_type, tp_rank, stage, reason, …), read from `series`. */
      labels: derived("record", "the labels of `series` (domain/telemetry.ts seriesLabels)"),
      /** `gauge`, `counter`, `histogram`, `summary` or `untyped`, as the exposition's `# TYPE` said, else from the name. */
      metricType: "string?",
      /** The series as PromQL prints it, `name{label="v",…}`: one track per series. */
      series: "string",
      model: derived("string?", "the series' model_name label"),
      engine: derived("string?", "the series' engine_type label"),
    },
  },
  [TelemetryKind.span]: { lane: "traces", tone: 0, colour: "#f78c6c",
    doc: "an OpenTelemetry span of SGLang's request tracing (OTLP/JSON, Jaeger JSON), placed at its end: an exporter writes a span when it ends, and what its end says (a stage done) holds from then",
    fields: {
      room: "room?",
      rid: "string?",
      /** The span's name: `Bootstrap Room 0x…`, `Decode Req …`, a thread span, or a stage (`decode_waiting`). */
      name: "string",
      /** SGLang's stage name (python/sglang/srt/tracing/trace_metric_wrapper.py RequestStage) when the span is a stage slice. */
      stage: "string?",
      traceId: "string?",
      spanId: "string?",
      parentSpanId: "string?",
      /** When the span began; the event's own time is its end. */
      startUs: "number?",
      durationUs: "number?",
      thread: "string?",
      /** The span's attributes as the exporter wrote them. */
      spanAttrs: "record?",
      statusCode: "string?",
    },
  },
  [TelemetryKind.crashDump]: { lane: "scheduler", tone: 2,
    doc: "an SGLang crash dump (`--crash-dump-folder`, crash_dump_<time>.pkl): the process died with these requests in memory",
    fields: { dumpedAtUs: "number?", requests: "number?", unfinished: "number?", launchCommand: "string?", serverArgs: "record?" },
  },
  [TelemetryKind.crashRequest]: { lane: "scheduler", tone: 1,
    doc: "a request an SGLang crash dump held: `finished: false` is in flight at the crash",
    fields: { room: "room?", rid: "string?", finished: "boolean?", createdUs: "number?", finishedUs: "number?", promptTokens: "number?", outputTokens: "number?", finishReason: "string?" },
  },
} as const satisfies Record<string, KindSpec>;
