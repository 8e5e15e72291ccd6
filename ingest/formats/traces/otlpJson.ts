// OTLP/JSON trace files as the OpenTelemetry Collector's file exporter writes
// them: one ExportTraceServiceRequest a line (opentelemetry-proto's
// specification, "JSON Protobuf Encoding"; collector/trace/v1):
//
//   {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"sglang"}}, …]},
//     "scopeSpans":[{"scope":{"name":"sglang server"},"spans":[
//       {"traceId":"<32 hex>","spanId":"<16 hex>","parentSpanId":"<16 hex>|","name":"decode_waiting",
//        "kind":1,"startTimeUnixNano":"1763610000000000000","endTimeUnixNano":"…",
//        "attributes":[{"key":"tp_rank","value":{"intValue":"0"}}, …],"links":[…],"status":{"code":2}}, …]}]}]}
//
// Ids are hex (base64, protobuf's own JSON mapping, is read too); 64-bit
// integers are decimal strings, read exactly (./numerals.ts); enums are
// integers. Older collectors write `instrumentationLibrarySpans` for
// `scopeSpans`. The span's machine is the resource's `host.name` (set by
// OTEL_RESOURCE_ATTRIBUTES or a collector's resourcedetection processor);
// SGLang's own resource names only service.name (process_tracing_init).
// Every span becomes one `trace.span` event at its start (./spanTree.ts);
// a line that is not a whole ExportTraceServiceRequest (a truncated last
// line) is an issue at that line, and every other line's spans are kept.

import { z } from "zod";
import type { ParseIssue } from "../../../domain/event.js";
import type { InputFormat, LineParser } from "../format.js";
import { parseJsonExact, usFromNs } from "../numerals.js";
import { isBlank } from "../records.js";
import { hexId, spanEvents, type SpanRecord } from "./spanTree.js";

const keyValue = z.looseObject({ key: z.string(), value: z.unknown().optional() });
const spanSchema = z.looseObject({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().optional(),
  name: z.string(),
  startTimeUnixNano: z.union([z.string(), z.number()]),
  endTimeUnixNano: z.union([z.string(), z.number()]).optional(),
  attributes: z.array(keyValue).optional(),
  status: z.looseObject({ code: z.union([z.number(), z.string()]).optional() }).optional(),
});
const scopeSpans = z.looseObject({ spans: z.array(z.unknown()).optional() });
const resourceSpans = z.looseObject({
  resource: z.looseObject({ attributes: z.array(keyValue).optional() }).optional(),
  scopeSpans: z.array(scopeSpans).optional(),
  instrumentationLibrarySpans: z.array(scopeSpans).optional(),
});
const exportRequest = z.looseObject({ resourceSpans: z.array(resourceSpans) });

/** An OTLP AnyValue as plain data: 64-bit integers that a float would round stay exact strings. */
export function anyValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  const o = v as Record<string, unknown>;
  if ("stringValue" in o) return o.stringValue;
  if ("boolValue" in o) return o.boolValue;
  if ("intValue" in o) {
    const n = typeof o.intValue === "string" ? Number(o.intValue) : o.intValue;
    return typeof n === "number" && Number.isSafeInteger(n) ? n : o.intValue;
  }
  if ("doubleValue" in o) return typeof o.doubleValue === "string" ? Number(o.doubleValue) : o.doubleValue;
  if ("bytesValue" in o) return o.bytesValue;
  if ("arrayValue" in o) {
    const values = (o.arrayValue as { values?: unknown[] } | null)?.values;
    return Array.isArray(values) ? values.map(anyValue) : [];
  }
  if ("kvlistValue" in o) return attributeMap((o.kvlistValue as { values?: unknown[] } | null)?.values);
  return null;
}

/** A KeyValue list the schemas above checked (a kvlistValue's is checked here), as an object. */
export function attributeMap(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (typeof kv === "object" && kv !== null && typeof (kv as { key?: unknown }).key === "string") out[(kv as { key: string }).key] = anyValue((kv as { value?: unknown }).value);
  }
  return out;
}

/** OTLP's Status.StatusCode (0 unset, 1 ok, 2 error; also its enum names). */
export function statusName(code: unknown): string | undefined {
  if (code === 1 || code === "STATUS_CODE_OK" || code === "OK") return "OK";
  if (code === 2 || code === "STATUS_CODE_ERROR" || code === "ERROR") return "ERROR";
  return undefined;
}

function spanRecord(raw: unknown, host: string | undefined, line: number, issues: ParseIssue[]): SpanRecord | undefined {
  const parsed = spanSchema.safeParse(raw);
  if (!parsed.success) {
    issues.push({ line, message: `OTLP span is not a span (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}); not read` });
    return undefined;
  }
  const s = parsed.data;
  const traceId = hexId(s.traceId, 16);
  const spanId = hexId(s.spanId, 8);
  const startUs = usFromNs(s.startTimeUnixNano);
  if (traceId === undefined || spanId === undefined || startUs === undefined || startUs <= 0) {
    issues.push({ line, message: `OTLP span ${JSON.stringify(s.name)} has no valid traceId, spanId or startTimeUnixNano; not read` });
    return undefined;
  }
  const rec: SpanRecord = { line, text: JSON.stringify(raw), traceId, spanId, name: s.name, startUs, attrs: attributeMap(s.attributes) };
  const parent = hexId(s.parentSpanId, 8);
  if (parent !== undefined) rec.parentSpanId = parent;
  const endUs = usFromNs(s.endTimeUnixNano);
  if (endUs !== undefined && endUs >= startUs) rec.endUs = endUs;
  const status = statusName(s.status?.code);
  if (status !== undefined) rec.statusCode = status;
  if (host !== undefined) rec.host = host;
  return rec;
}

function readLine(text: string, lineNo: number, spans: SpanRecord[], issues: ParseIssue[]): void {
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (e) {
    issues.push({ line: lineNo, message: `OTLP/JSON line is not whole JSON (a truncated or garbled write?): ${(e as Error).message}; its spans are lost, the other lines are read` });
    return;
  }
  const req = exportRequest.safeParse(value);
  if (!req.success) {
    issues.push({ line: lineNo, message: "not an OTLP ExportTraceServiceRequest (no resourceSpans list); not read" });
    return;
  }
  for (const rs of req.data.resourceSpans) {
    const hostName = attributeMap(rs.resource?.attributes)["host.name"];
    const host = typeof hostName === "string" && hostName !== "" ? hostName : undefined;
    for (const scope of [...(rs.scopeSpans ?? []), ...(rs.instrumentationLibrarySpans ?? [])]) {
      for (const raw of scope.spans ?? []) {
        const rec = spanRecord(raw, host, lineNo, issues);
        if (rec) spans.push(rec);
      }
    }
  }
}

export const otlpJson: InputFormat = {
  name: "otlp-json",
  // A collector line may be longer than the head: the opening keys decide.
  detect: (head) => /^\s*\{\s*"resourceSpans"\s*:\s*\[/.test(head),
  createParser(): LineParser {
    const spans: SpanRecord[] = [];
    return {
      line(text, lineNo, _out, issues) {
        if (!isBlank(text)) readLine(text, lineNo, spans, issues);
      },
      end(out) {
        spanEvents(spans, out);
      },
    };
  },
};
