// Jaeger's JSON trace download (the UI's "Download JSON", the query
// service's GET /api/traces/{id}; Jaeger's model/json):
//
//   {"data":[{"traceID":"<hex>","spans":[
//       {"traceID":"<hex>","spanID":"<hex>","operationName":"decode_waiting",
//        "references":[{"refType":"CHILD_OF","traceID":"<hex>","spanID":"<hex>"}],
//        "startTime":<epoch µs>,"duration":<µs>,"tags":[{"key":"tp_rank","type":"int64","value":0}, …],
//        "logs":[…],"processID":"p1","warnings":null}, …],
//     "processes":{"p1":{"serviceName":"sglang","tags":[{"key":"host.name","type":"string","value":"d0"}, …]}},
//     "warnings":null}],
//    "total":0,"limit":0,"offset":0,"errors":null}
//
// A single trace object (without the `data` envelope) is read too. Jaeger
// prints a 64-bit trace id in 16 hex digits where OTLP has 32: ids are padded
// so both name a trace alike. A span's parent is its first CHILD_OF reference;
// its machine its process's `host.name` (an OTLP resource attribute) or
// `hostname` tag; its status Jaeger's `otel.status_code` tag or `error`
// tag. The whole file is read at its end (a download holds a few traces);
// each span's line is where its object opens. A file that holds no trace (an
// API error payload, `"data": null`) is one issue, not a crash.

import { z } from "zod";
import type { ParseIssue } from "../../../domain/event.js";
import type { InputFormat, LineParser } from "../format.js";
import { intFromValue, parseJsonExact } from "../numerals.js";
import { isPlainObject, wholeDocumentParser } from "../records.js";
import { statusName } from "./otlpJson.js";
import { hexId, spanEvents, type SpanRecord } from "./spanTree.js";


const tag = z.looseObject({ key: z.string(), value: z.unknown().optional() });
const spanSchema = z.looseObject({
  traceID: z.string(),
  spanID: z.string(),
  operationName: z.string(),
  references: z.array(z.looseObject({ refType: z.string().optional(), traceID: z.string().optional(), spanID: z.string() })).nullish(),
  // µs since the epoch have 16 digits: exact JSON reading keeps them as strings (../numerals.ts).
  startTime: z.union([z.number(), z.string()]),
  duration: z.union([z.number(), z.string()]).nullish(),
  tags: z.array(tag).nullish(),
  processID: z.string().nullish(),
});
const traceSchema = z.looseObject({
  traceID: z.string().optional(),
  spans: z.array(z.unknown()),
  processes: z.record(z.string(), z.looseObject({ serviceName: z.string().optional(), tags: z.array(tag).nullish() })).nullish(),
});
const envelopeSchema = z.looseObject({ data: z.array(traceSchema).nullable(), errors: z.array(z.unknown()).nullish() });

function tagMap(tags: readonly z.infer<typeof tag>[] | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of tags ?? []) out[t.key] = t.value ?? null;
  return out;
}

/** The lines where span objects open, in document order: each `{"traceID": …, "spanID"` (a reference opens with refType). */
function spanLines(doc: string): number[] {
  const lines: number[] = [];
  const re = /\{\s*"traceID"\s*:\s*"[^"]*"\s*,\s*"spanID"\s*:/g;
  let line = 1;
  let scanned = 0;
  for (let m = re.exec(doc); m; m = re.exec(doc)) {
    for (let i = doc.indexOf("\n", scanned); i >= 0 && i < m.index; i = doc.indexOf("\n", i + 1)) line++;
    scanned = m.index;
    lines.push(line);
  }
  return lines;
}

function hostOf(process: { tags?: z.infer<typeof tag>[] | null } | undefined): string | undefined {
  const tags = tagMap(process?.tags);
  const host = tags["host.name"] ?? tags.hostname;
  return typeof host === "string" && host !== "" ? host : undefined;
}

function spanRecord(raw: unknown, processes: z.infer<typeof traceSchema>["processes"], line: number, issues: ParseIssue[]): SpanRecord | undefined {
  const parsed = spanSchema.safeParse(raw);
  const traceId = parsed.success ? hexId(parsed.data.traceID, 16) : undefined;
  const spanId = parsed.success ? hexId(parsed.data.spanID, 8) : undefined;
  const startUs = parsed.success ? intFromValue(parsed.data.startTime) : undefined;
  if (!parsed.success || traceId === undefined || spanId === undefined || startUs === undefined || startUs <= 0) {
    issues.push({ line, message: "Jaeger span lacks traceID, spanID, operationName or an integer startTime (µs); not read" });
    return undefined;
  }
  const s = parsed.data;
  const attrs = tagMap(s.tags);
  const rec: SpanRecord = { line, text: JSON.stringify(raw), traceId, spanId, name: s.operationName, startUs, attrs };
  const refs = s.references ?? [];
  const parent = hexId((refs.find((r) => r.refType === "CHILD_OF") ?? refs[0])?.spanID, 8);
  if (parent !== undefined) rec.parentSpanId = parent;
  const duration = intFromValue(s.duration);
  if (duration !== undefined && duration >= 0) rec.endUs = startUs + duration;
  const status = statusName(attrs["otel.status_code"]) ?? (attrs.error === true ? "ERROR" : undefined);
  if (status !== undefined) rec.statusCode = status;
  const host = hostOf(s.processID != null ? processes?.[s.processID] : undefined);
  if (host !== undefined) rec.host = host;
  return rec;
}

/** The traces of a download: its `data` list, or the one trace object the file is. */
function tracesOf(doc: unknown, issues: ParseIssue[]): z.infer<typeof traceSchema>[] | undefined {
  const single = traceSchema.safeParse(doc);
  if (single.success && isPlainObject(doc) && !("data" in doc)) return [single.data];
  const envelope = envelopeSchema.safeParse(doc);
  if (envelope.success && envelope.data.data !== null && envelope.data.data.length > 0) return envelope.data.data;
  const errors = envelope.success && envelope.data.errors ? `: ${JSON.stringify(envelope.data.errors).slice(0, 300)}` : "";
  issues.push({ line: 1, message: `not a Jaeger trace download: no trace with spans in "data"${errors}` });
  return undefined;
}

function parseDocument(doc: string, spans: SpanRecord[], issues: ParseIssue[]): void {
  let value: unknown;
  try {
    value = parseJsonExact(doc);
  } catch (e) {
    issues.push({ line: 1, message: `Jaeger JSON download is not whole JSON (truncated?): ${(e as Error).message}; no span read` });
    return;
  }
  const traces = tracesOf(value, issues);
  if (!traces) return;
  const rawSpans = traces.flatMap((t) => t.spans.map((raw) => ({ raw, processes: t.processes })));
  const lines = spanLines(doc);
  rawSpans.forEach(({ raw, processes }, i) => {
    const rec = spanRecord(raw, processes, lines.length === rawSpans.length ? lines[i]! : 1, issues);
    if (rec) spans.push(rec);
  });
}

export const jaegerJson: InputFormat = {
  name: "jaeger-json",
  detect(head) {
    const t = head.trimStart();
    if (!t.startsWith("{")) return false;
    const trace = /"traceID"\s*:/.test(t) && /"(spans|spanID|operationName)"\s*:/.test(t);
    const envelope = /^\{\s*"data"\s*:\s*(\[|null)/.test(t) && /"(errors|total)"\s*:/.test(t);
    return trace || envelope;
  },
  createParser(): LineParser {
    return wholeDocumentParser("Jaeger JSON download", (doc, out, issues) => {
      const spans: SpanRecord[] = [];
      parseDocument(doc, spans, issues);
      spanEvents(spans, out);
    });
  },
};
