// SGLang's OpenTelemetry traces (docs/telemetry.md "OpenTelemetry traces"):
// the traces-wedge bundle's collector file and Jaeger download through the
// real ingest into a real database, and the other span shapes SGLang's
// revisions write. Golden values are the scenario's (test/bundles/README.md).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedEvent, ParseIssue, StoredEvent } from "../../domain/event.js";
import { detectFormat } from "../../ingest/formats/index.js";
import { jaegerJson } from "../../ingest/formats/traces/jaegerJson.js";
import { otlpJson } from "../../ingest/formats/traces/otlpJson.js";
import { ingest } from "../../ingest/pipeline.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { tempDir, withDb, writeTree } from "./bundle.js";

const BUNDLE = new URL("../../../test/bundles/traces-wedge/", import.meta.url).pathname;
const OTLP = readFileSync(join(BUNDLE, "otel/traces.jsonl"), "utf8");
const JAEGER = readFileSync(join(BUNDLE, "jaeger/trace-finished.json"), "utf8");
/** 2026-11-20T03:38:00Z and 03:40:00Z in µs. */
const T38 = 1_795_145_880_000_000;
const T40 = 1_795_146_000_000_000;
const MS = 1000;

async function ingested(files: Record<string, string>): Promise<{ spans: StoredEvent[]; sources: ReturnType<typeof listSources>; clocks: string[] }> {
  const dir = tempDir("traces");
  writeTree(join(dir, "in"), files);
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [join(dir, "in")] });
  const clocks = Object.keys(summary.clockOffsetsUs);
  // Spans are placed at their ends (domain/kinds.ts); these tests read them in start order, as the files hold them.
  const spans = (h: Parameters<typeof iterateEvents>[0]) => [...iterateEvents(h)].filter((e) => e.kind === "trace.span").sort((a, b) => startOf(a) - startOf(b) || a.seq - b.seq);
  return withDb(db, (h) => ({ spans: spans(h), sources: listSources(h), clocks }));
}

/** Parsed spans in the order they began (stable: a file's order among equal starts). */
function inStartOrder(events: ParsedEvent[]): ParsedEvent[] {
  return [...events].sort((a, b) => (a.attrs!.startUs as number) - (b.attrs!.startUs as number));
}

function startOf(e: StoredEvent): number {
  return e.attrs?.startUs as number;
}

function parse(format: typeof otlpJson, text: string): { events: ParsedEvent[]; issues: ParseIssue[] } {
  const parser = format.createParser({ sourcePath: "otel/traces.jsonl", tzOffsetMinutes: 0 });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  text.split("\n").forEach((l, i) => parser.line(l, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}

const row = (e: StoredEvent) => [startOf(e), e.host, e.role, e.tp, e.room, e.rid, e.attrs?.stage ?? e.attrs?.name, e.attrs?.durationUs, e.line];

test("detection: the collector's file and Jaeger's download by their keys, not their names", () => {
  assert.equal(detectFormat(OTLP.slice(0, 64 * 1024)).name, "otlp-json");
  assert.equal(detectFormat(OTLP.slice(0, 300)).name, "otlp-json", "a head cut inside the first line");
  assert.equal(detectFormat(JAEGER).name, "jaeger-json");
  assert.equal(detectFormat('{"status":"success","data":{"resultType":"matrix","result":[]}}\n').name === "jaeger-json", false, "a Prometheus API payload is not Jaeger's");
});

test("a finished request: both sides' span trees, each span with its room, rid, host, role, rank and thread", async () => {
  const { spans } = await ingested({ "otel/traces.jsonl": OTLP });
  assert.equal(spans.length, 50);
  const prefill = spans.filter((e) => e.attrs?.traceId === "00000000000000007a3f1c9e5b2d4a01");
  assert.deepEqual(prefill.map(row), [
    [T38, "p0", null, null, "1111111111111111111", null, "Bootstrap Room 0xf6b75ab2bc471c7", 412 * MS, 1],
    [T38, "p0", "prefill", null, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "prefill Req a1f0c2d4", 412 * MS, 1],
    [T38 + 3 * MS, "p0", "prefill", 0, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "prefill_prepare", 2 * MS, 1],
    [T38 + 3 * MS, "p0", "prefill", 0, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "Prefill Scheduler [TP 0] (host:5f1c9a7e | pid:48213)", 409 * MS, 1],
    [T38 + 5 * MS, "p0", "prefill", 0, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "prefill_bootstrap", 36 * MS, 1],
    [T38 + 41 * MS, "p0", "prefill", 0, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "prefill_waiting", 2 * MS, 1],
    [T38 + 43 * MS, "p0", "prefill", 0, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "prefill_forward", 267 * MS, 1],
    [T38 + 310 * MS, "p0", "prefill", 0, "1111111111111111111", "a1f0c2d4e6b8091a2b3c4d5e6f708192", "prefill_transfer_kv_cache", 102 * MS, 1],
  ]);
  // The decode side's spans came in two exports (lines 2 and 4): the tree is joined across lines.
  const decode = spans.filter((e) => e.attrs?.traceId === "0000000000000000b46e2d8c1a9f3e02");
  assert.deepEqual(decode.map((e) => [e.attrs?.stage ?? e.attrs?.name, e.line, e.room, e.tp, e.attrs?.thread ?? null]), [
    ["Bootstrap Room 0xf6b75ab2bc471c7", 4, "1111111111111111111", null, null],
    ["decode Req a1f0c2d4", 4, "1111111111111111111", null, null],
    ["decode_prepare", 2, "1111111111111111111", 0, "Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)"],
    ["Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)", 4, "1111111111111111111", 0, "Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)"],
    ["decode_bootstrap", 2, "1111111111111111111", 0, "Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)"],
    ["decode_transferred", 2, "1111111111111111111", 0, "Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)"],
    ["decode_waiting", 2, "1111111111111111111", 0, "Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)"],
    ["decode_forward", 4, "1111111111111111111", 0, "Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)"],
  ]);
  const ids = (name: string) => decode.find((e) => (e.attrs?.stage ?? e.attrs?.name) === name)!.attrs!;
  assert.equal(ids("decode Req a1f0c2d4").parentSpanId, ids("Bootstrap Room 0xf6b75ab2bc471c7").spanId);
  assert.equal(ids("decode_waiting").parentSpanId, "4b2e1d3c5f7a9003");
  assert.equal(ids("Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)").spanId, "4b2e1d3c5f7a9003");
  assert.equal(ids("Bootstrap Room 0xf6b75ab2bc471c7").parentSpanId, undefined);
  assert.equal(decode.find((e) => e.attrs?.stage === "decode_forward")!.tsUs, T38 + 1530 * MS, "a span sits at its end");
  assert.deepEqual(ids("Decode Scheduler [TP 0] (host:c3d8e1f4 | pid:51877)").spanAttrs, { tp_rank: 0, host_id: "c3d8e1f46a7b4c2d8e9f0a1b2c3d4e5f", pid: 51877, thread_label: "Decode Scheduler" });
  assert.equal(spans.filter((e) => e.room === "2222222222222222222").length, 16);
});

test("the wedge: the wedged requests' finished slices arrive without parents, with their stage and side and no room", async () => {
  const { spans } = await ingested({ "otel/traces.jsonl": OTLP });
  const orphans = spans.filter((e) => e.tsUs >= T40);
  assert.equal(orphans.length, 18);
  assert.ok(orphans.every((e) => e.room === null && e.rid === null && e.tp === null && e.attrs?.thread === undefined));
  const first = orphans.filter((e) => e.attrs?.traceId === "0000000000000000e7915abf4d2c6105" || e.attrs?.traceId === "0000000000000000f8a26bc05e3d7206");
  assert.deepEqual(first.map((e) => [startOf(e) - T40, e.tsUs - T40, e.host, e.role, e.attrs?.stage, e.attrs?.parentSpanId, e.line]), [
    [3 * MS, 5 * MS, "p0", "prefill", "prefill_prepare", "7e5b4a6f8c0d2103", 6],
    [4 * MS, 6 * MS, "d0", "decode", "decode_prepare", "8f6c5b7a9d1e3203", 7],
    [5 * MS, 41 * MS, "p0", "prefill", "prefill_bootstrap", "7e5b4a6f8c0d2103", 6],
    [6 * MS, 41 * MS, "d0", "decode", "decode_bootstrap", "8f6c5b7a9d1e3203", 7],
    [41 * MS, 43 * MS, "p0", "prefill", "prefill_waiting", "7e5b4a6f8c0d2103", 6],
    [43 * MS, 310 * MS, "p0", "prefill", "prefill_forward", "7e5b4a6f8c0d2103", 6],
  ]);
  // No slice of any wedged trace ended the transfer or the wait: they were never exported.
  const stages = new Set(orphans.map((e) => e.attrs?.stage));
  assert.deepEqual([...stages].sort(), ["decode_bootstrap", "decode_prepare", "prefill_bootstrap", "prefill_forward", "prefill_prepare", "prefill_waiting"]);
});

test("Jaeger's download of a trace gives the events the collector's file gives for it", async () => {
  const { spans, sources, clocks } = await ingested({ "jaeger/trace-finished.json": JAEGER, "otel/traces.jsonl": OTLP });
  assert.deepEqual(sources.map((s) => [s.format, s.errors]), [["jaeger-json", []], ["otlp-json", []]]);
  // The folders the files are in are no machines' clocks: the spans name their hosts.
  assert.deepEqual(clocks, []);
  const ofTrace = (format: string) => {
    const id = sources.find((s) => s.format === format)!.id;
    const bySpan = (a: StoredEvent, b: StoredEvent) => String(a.attrs?.spanId).localeCompare(String(b.attrs?.spanId));
    return spans.filter((e) => e.sourceId === id && e.attrs?.traceId === "0000000000000000b46e2d8c1a9f3e02").sort(bySpan);
  };
  const jaeger = ofTrace("jaeger-json");
  const otlp = ofTrace("otlp-json");
  const facts = (e: StoredEvent) => [e.tsUs, e.host, e.role, e.tp, e.room, e.rid, e.attrs?.name, e.attrs?.stage, e.attrs?.spanId, e.attrs?.parentSpanId, e.attrs?.startUs, e.attrs?.thread];
  assert.deepEqual(jaeger.map(facts), otlp.map(facts));
  // Each span's line is where its object opens in the pretty-printed download.
  assert.deepEqual(jaeger.map((e) => e.line), [6, 39, 78, 132, 166, 205, 244, 283]);
  assert.match(readFileSync(join(BUNDLE, "jaeger/trace-finished.json"), "utf8").split("\n")[132 - 1]!, /^\s*\{$/);
});

/** One OTLP line holding `spans` of one resource. */
function otlpLine(host: string, spans: object[]): string {
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: "host.name", value: { stringValue: host } }] }, scopeSpans: [{ scope: { name: "sglang server" }, spans }] }] });
}

function span(traceId: string, spanId: string, parentSpanId: string, name: string, startNs: string, endNs: string, attributes: object[] = []): object {
  return { traceId, spanId, parentSpanId, name, kind: 1, startTimeUnixNano: startNs, endTimeUnixNano: endNs, attributes, status: {} };
}

test("the newest revision's tree: `decode Req` is the root and carries bootstrap_room in hex; the oldest `Req` one in decimal", () => {
  const t = "0000000000000000" + "1234abcd5678ef90";
  const newest = otlpLine("d0", [
    span(t, "00000000000000a1", "", "decode Req c3f2e4d6", "1795146000001000000", "1795146003000000000", [
      { key: "rid", value: { stringValue: "c3f2e4d6a8b0213c4d5e6f7081920314" } },
      { key: "module", value: { stringValue: "sglang::request" } },
      { key: "bootstrap_room", value: { stringValue: "0x7c84e0372edd8560" } },
    ]),
    span(t, "00000000000000a2", "00000000000000a1", "Decode Scheduler [TP 3] (host:c3d8e1f4 | pid:51880)", "1795146000002000000", "1795146003000000000", [{ key: "tp_rank", value: { intValue: "3" } }]),
    span(t, "00000000000000a3", "00000000000000a2", "decode_prepare", "1795146000002000000", "1795146000004000000"),
  ]);
  const oldest = otlpLine("p0", [
    span("0000000000000000" + "00000000000000b0", "00000000000000b1", "", "Req d4a3f5e7", "1795146001000000000", "1795146002000000000", [
      { key: "rid", value: { stringValue: "d4a3f5e7b9c1324d5e6f708192031425" } },
      { key: "bootstrap_room", value: { intValue: "5830149913321000001" } },
    ]),
  ]);
  const { events: parsed, issues } = parse(otlpJson, `${newest}\n${oldest}\n`);
  const events = inStartOrder(parsed);
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.host, e.role, e.tp, e.room, e.rid, e.attrs?.stage ?? e.attrs?.name]), [
    ["d0", "decode", undefined, "8972542885242963296", "c3f2e4d6a8b0213c4d5e6f7081920314", "decode Req c3f2e4d6"],
    // The thread span and its first slice start together; the slice ends first.
    ["d0", "decode", 3, "8972542885242963296", "c3f2e4d6a8b0213c4d5e6f7081920314", "decode_prepare"],
    ["d0", "decode", 3, "8972542885242963296", "c3f2e4d6a8b0213c4d5e6f7081920314", "Decode Scheduler [TP 3] (host:c3d8e1f4 | pid:51880)"],
    ["p0", undefined, undefined, "5830149913321000001", "d4a3f5e7b9c1324d5e6f708192031425", "Req d4a3f5e7"],
  ]);
});

test("a slice whose parent is lost still takes its room from another span of its trace; ids in base64 are read", () => {
  const traceB64 = Buffer.from("00000000000000001234abcd5678ef90", "hex").toString("base64");
  const line = otlpLine("d0", [
    span(traceB64, Buffer.from("00000000000000c1", "hex").toString("base64"), "", "Bootstrap Room 0x50e8da74eac5cc41", "1795146001000000000", "1795146009000000000"),
    span(traceB64, Buffer.from("00000000000000c3", "hex").toString("base64"), Buffer.from("00000000000000c2", "hex").toString("base64"), "decode_bootstrap", "1795146001002000000", "1795146001040000000"),
  ]);
  const events = inStartOrder(parse(otlpJson, line).events);
  assert.deepEqual(events.map((e) => [e.room, e.attrs?.traceId, e.attrs?.spanId, e.attrs?.parentSpanId]), [
    ["5830149913321000001", "00000000000000001234abcd5678ef90", "00000000000000c1", undefined],
    ["5830149913321000001", "00000000000000001234abcd5678ef90", "00000000000000c3", "00000000000000c2"],
  ]);
});

test("bad input: a truncated OTLP line is an issue naming its file and line; every other span is kept", async () => {
  const lines = OTLP.trimEnd().split("\n");
  const cut = [...lines.slice(0, 5), lines[5]!.slice(0, 700), ...lines.slice(6)].join("\n") + "\n";
  const { spans, sources } = await ingested({ "otel/traces.jsonl": cut });
  assert.equal(spans.length, 50 - 4, "the cut line held W1's four prefill slices");
  const src = sources.find((s) => s.format === "otlp-json")!;
  assert.match(src.path, /otel\/traces\.jsonl$/);
  assert.equal(src.errors.length, 1);
  assert.equal(src.errors[0]!.line, 6);
  assert.match(src.errors[0]!.message, /OTLP\/JSON line is not whole JSON .*its spans are lost, the other lines are read/);
  assert.ok(spans.some((e) => e.line === 11), "the lines after the cut one are read");
});

test("bad input: a Jaeger file that is no trace download (the API's error payload) is one issue, not a crash", async () => {
  const notFound = JSON.stringify({ data: null, total: 0, limit: 0, offset: 0, errors: [{ code: 404, msg: "trace not found" }] }, null, 2);
  assert.equal(detectFormat(notFound).name, "jaeger-json");
  const { spans, sources } = await ingested({ "jaeger/trace.json": notFound });
  assert.equal(spans.length, 0);
  const src = sources.find((s) => s.format === "jaeger-json")!;
  assert.equal(src.status, "complete");
  assert.deepEqual(src.errors.map((e) => e.line), [1]);
  assert.match(src.errors[0]!.message, /not a Jaeger trace download: no trace with spans in "data": \[\{"code":404,"msg":"trace not found"\}\]/);
  const { events, issues } = parse(jaegerJson, JAEGER.slice(0, 2000));
  assert.deepEqual([events.length, issues.length], [0, 1]);
  assert.match(issues[0]!.message, /not whole JSON/);
});
