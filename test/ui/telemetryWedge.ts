// Incidents of the operator's telemetry for the timeline's tests, written
// with the store's own writer: Prometheus samples (metric.sample) and
// OpenTelemetry spans (trace.span) of a small PD wedge, and one long gauge
// series for the counter route's level of detail. Each builder writes one
// incident file; `serveIncident` puts such a file in a server's data
// directory as a ready incident. A builder that ingests hand-written bundles
// instead (test/bundles/metrics-wedge, traces-wedge) can take a builder's place.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IncidentWriter } from "../../store/writer.js";
import { TextBlockBuilder, type TextBlock } from "../../store/eventText.js";
import { TelemetryKind } from "../../domain/kinds.js";
import { deriveIncident } from "../../analyzer/derive.js";
import { openIncident } from "../../store/db.js";
import type { IncidentRecord } from "../../ui/server/incidentRecord.js";

/** Writes an incident file at a path. */
export type IncidentBuilder = (dbPath: string) => void;

export interface TelemetryEvent {
  tsUs: number;
  source: string;
  host: string;
  role: string;
  tp: number;
  kind: string;
  room: string | null;
  rid: string | null;
  attrs: Record<string, unknown>;
  text: string;
}

/** 2026-11-20T03:40:05Z, the wedge's first sample. */
export const T0_US = Date.UTC(2026, 10, 20, 3, 40, 5) * 1000;
/** 04:30:00Z: samples every 15 s up to it. */
export const END_US = Date.UTC(2026, 10, 20, 4, 30, 0) * 1000;
export const STEP_US = 15e6;
/** The queue is 0 before the wedge and 3 from this sample on (03:45:05Z). */
export const WEDGE_SAMPLE = 20;
/** The failed-transfer counter steps 0 → 1 at sample 40 (03:50:05Z) and 1 → 2 at sample 80 (04:00:05Z). */
export const FAILURE_SAMPLES = [40, 80] as const;

export const QUEUE = "sglang:num_decode_transfer_queue_reqs";
export const FAILED = "sglang:num_transfer_failed_reqs_total";
const LABELS = { engine_type: "decode", model_name: "qwen3-32b", tp_rank: "0" };
export const seriesOf = (metric: string) => `${metric}{engine_type="decode",model_name="qwen3-32b",tp_rank="0"}`;

export const FINISHED_ROOMS = ["1111111111111111111", "2222222222222222222"] as const;
export const WEDGED_ROOMS = ["8972542885242963296", "5830149913321000001", "7000000000000000007"] as const;

function sample(tsUs: number, metric: string, metricType: string, value: number, source = "metrics/d0-query_range.json"): TelemetryEvent {
  const series = seriesOf(metric);
  return {
    tsUs,
    source,
    host: "d0",
    role: "decode",
    tp: 0,
    kind: TelemetryKind.metricSample,
    room: null,
    rid: null,
    attrs: { metric, value, labels: LABELS, metricType, series, model: LABELS.model_name, engine: "decode" },
    text: `${series} ${value} @${tsUs / 1e6}`,
  };
}

/** A span; `id` and `parent` name spans within the room's trace. */
function span(room: string, name: string, stage: string | undefined, startUs: number, endUs: number, id: string, parent: string | null): TelemetryEvent {
  const spanId = `${room}-${id}`;
  return {
    tsUs: endUs,
    source: "traces/otlp.jsonl",
    host: "d0",
    role: "decode",
    tp: 0,
    kind: TelemetryKind.span,
    room,
    rid: `rid-${room.slice(0, 8)}`,
    attrs: {
      name,
      ...(stage && { stage }),
      startUs,
      durationUs: endUs - startUs,
      traceId: `trace-${room}`,
      spanId,
      ...(parent && { parentSpanId: `${room}-${parent}` }),
      thread: "Decode [TP 0]",
      statusCode: "STATUS_CODE_UNSET",
    },
    text: JSON.stringify({ name, traceId: `trace-${room}`, spanId, startUs, endUs, room }),
  };
}

/** A finished room: its root and request spans and the four decode stages up to decode_transferred. */
function finishedRoom(room: string, startUs: number): TelemetryEvent[] {
  const hex = `0x${BigInt(room).toString(16)}`;
  return [
    span(room, "decode_prepare", "decode_prepare", startUs, startUs + 200_000, "prepare", "req"),
    span(room, "decode_bootstrap", "decode_bootstrap", startUs + 200_000, startUs + 1_000_000, "bootstrap", "req"),
    span(room, "decode_waiting", "decode_waiting", startUs + 1_000_000, startUs + 2_000_000, "waiting", "req"),
    span(room, "decode_transferred", "decode_transferred", startUs + 2_000_000, startUs + 2_500_000, "transferred", "req"),
    span(room, `Decode Req ${room.slice(0, 8)}`, undefined, startUs, startUs + 2_550_000, "req", "root"),
    span(room, `Bootstrap Room ${hex}`, undefined, startUs, startUs + 2_600_000, "root", null),
  ];
}

/** A wedged room: prepared and bootstrapped, then nothing; its parents never end, so never arrive. */
function wedgedRoom(room: string, startUs: number): TelemetryEvent[] {
  return [
    span(room, "decode_prepare", "decode_prepare", startUs, startUs + 200_000, "prepare", "req"),
    span(room, "decode_bootstrap", "decode_bootstrap", startUs + 200_000, startUs + 1_000_000, "bootstrap", "req"),
  ];
}

/** The small wedge: decode d0's transfer queue 0 then 3, a failed-transfer counter 0 → 2, two finished rooms and three wedged. */
export function telemetryWedgeEvents(): TelemetryEvent[] {
  const events: TelemetryEvent[] = [];
  for (let k = 0; T0_US + k * STEP_US <= END_US; k++) {
    const ts = T0_US + k * STEP_US;
    events.push(sample(ts, QUEUE, "gauge", k < WEDGE_SAMPLE ? 0 : 3));
    events.push(sample(ts, FAILED, "counter", FAILURE_SAMPLES.filter((f) => k >= f).length));
  }
  events.push(...finishedRoom(FINISHED_ROOMS[0], T0_US + 5e6), ...finishedRoom(FINISHED_ROOMS[1], T0_US + 55e6));
  WEDGED_ROOMS.forEach((room, i) => events.push(...wedgedRoom(room, T0_US + 295e6 + i * 2e6)));
  return events;
}

export const buildTelemetryWedge: IncidentBuilder = (dbPath) => writeIncident(dbPath, telemetryWedgeEvents());

/** Samples of the long gauge: one a second. */
export const LONG_SAMPLES = 580_000;
export const LONG_SERIES = "sglang:num_running_reqs";
/** The one sample far below its neighbours. */
export const DIP_SAMPLE = 123_456;
export const DIP_VALUE = -7;

/** Sample i: ten times its 580-sample stretch's number, plus i mod 5; sample DIP_SAMPLE dips to DIP_VALUE. */
export function longValue(i: number): number {
  return i === DIP_SAMPLE ? DIP_VALUE : Math.floor(i / 580) * 10 + (i % 5);
}

/** One gauge series of 580,000 samples a second apart from T0_US (about 6.7 days). */
export const buildLongSeries: IncidentBuilder = (dbPath) => {
  const events: TelemetryEvent[] = [];
  for (let i = 0; i < LONG_SAMPLES; i++) events.push(sample(T0_US + i * 1e6, LONG_SERIES, "gauge", longValue(i), "metrics/long.prom"));
  writeIncident(dbPath, events);
};

/** Writes events as one ingest does: a source per file, rows in time order, the texts of their lines; then the derive step. */
export function writeIncident(dbPath: string, events: TelemetryEvent[]): void {
  const sorted = [...events].sort((a, b) => a.tsUs - b.tsUs);
  const writer = IncidentWriter.open(dbPath, 10_000);
  try {
    writer.begin(10_000);
    const files = [...new Set(sorted.map((e) => e.source))];
    const ids = new Map(files.map((f) => [f, writer.addSource({ path: f, format: f.startsWith("traces") ? "otlp-json" : "prometheus-json", wrapper: null, host: "d0", role: "decode", sha256: f, bytes: 0 })]));
    const lines = new Map(files.map((f) => [f, 0]));
    const texts = new Map(files.map((f) => [f, new TextBlockBuilder(ids.get(f)!)]));
    const blocks: TextBlock[] = [];
    for (const e of sorted) {
      const line = lines.get(e.source)! + 1;
      lines.set(e.source, line);
      const sourceId = ids.get(e.source)!;
      writer.addValues([e.tsUs, sourceId, line, null, null, e.tp, null, null, null, null, null, null, e.host, e.role, e.kind, e.room, e.rid, e.attrs]);
      const full = texts.get(e.source)!.add(line, e.text);
      if (full) blocks.push(full);
    }
    for (const b of texts.values()) {
      const last = b.close();
      if (last) blocks.push(last);
    }
    writer.flushRows();
    writer.addTexts(blocks);
    for (const f of files) {
      const own = sorted.filter((e) => e.source === f);
      writer.completeSource(ids.get(f)!, {
        lines: own.length,
        events: own.length,
        unparsed: 0,
        inferred: 0,
        unparsedShapes: [],
        timeOrigin: null,
        errors: [],
        errorCount: 0,
        firstTsUs: own[0]!.tsUs,
        lastTsUs: own[own.length - 1]!.tsUs,
        ranks: ["d0/decode TP0"],
      });
    }
    writer.commit();
  } finally {
    writer.close();
  }
  const db = openIncident(dbPath);
  try {
    deriveIncident(db);
  } finally {
    db.close();
  }
}

/** Puts an incident built by `build` into a server's data directory, ready, under `id` (the server is started on it afterwards). */
export function serveIncident(dataDir: string, id: string, build: IncidentBuilder): void {
  const dir = join(dataDir, "incidents", id);
  mkdirSync(join(dir, "input"), { recursive: true });
  build(join(dir, "incident.db"));
  const record: IncidentRecord = { id, name: id, createdAt: new Date(0).toISOString(), status: "ready", inputBytes: 0, inputFiles: 0 };
  writeFileSync(join(dir, "incident.json"), JSON.stringify(record));
}
