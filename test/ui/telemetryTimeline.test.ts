// The timeline's telemetry over the API of a real server: counter tracks for
// the Prometheus series (a gauge's values, a counter's rate, reduced to the
// least and greatest point per pixel column) and trace slices (stage,
// orphaned stage, request), on incidents written by the store's writer
// (telemetryWedge.ts).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ingest } from "../../ingest/pipeline.js";
import { scratchDir } from "../scratchDir.js";
import { SpanTypes } from "../../analyzer/timeline/spanTypes.js";
import type { CountersAnswer, CounterTrack, EventColumns, Lane } from "../../ui/wire.js";
import { getJson, startTestServer, type TestServer } from "./serverHarness.js";
import {
  buildLongSeries,
  buildTelemetryWedge,
  DIP_SAMPLE,
  DIP_VALUE,
  END_US,
  FAILED,
  FINISHED_ROOMS,
  LONG_SAMPLES,
  QUEUE,
  serveIncident,
  seriesOf,
  STEP_US,
  T0_US,
  WEDGED_ROOMS,
} from "./telemetryWedge.js";

const WEDGE = "telemetry-wedge";
const LONG = "long-series";
const BUNDLE = "traces-wedge";
let server: TestServer;

before(async () => {
  const dataDir = scratchDir("kvrewind-telemetry-");
  serveIncident(dataDir, WEDGE, buildTelemetryWedge);
  serveIncident(dataDir, LONG, buildLongSeries);
  // The hand-written bundle as a user's ingest stores it (test/bundles/traces-wedge).
  const ingested = join(scratchDir("kvrewind-telemetry-bundle-"), "incident.db");
  await ingest({ db: ingested, paths: [fileURLToPath(new URL("../../../test/bundles/traces-wedge", import.meta.url))] });
  serveIncident(dataDir, BUNDLE, (db) => copyFileSync(ingested, db));
  server = await startTestServer({ dataDir });
});
after(() => server?.close());

interface LanesBody {
  lanes: Lane[];
  labels: string[];
  counterTracks: CounterTrack[];
}

async function lanesOf(id: string): Promise<LanesBody> {
  const res = await getJson(server, `/api/incidents/${id}/lanes`);
  assert.equal(res.status, 200, res.text);
  return res.body as unknown as LanesBody;
}

async function counters(id: string, query: string): Promise<CountersAnswer> {
  const res = await getJson(server, `/api/incidents/${id}/counters?${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body as unknown as CountersAnswer;
}

const SAMPLES = 200; // 03:40:05 to 04:29:50, 15 s apart

test("each series is a track in the metrics lane of its rank, a counter marked as a rate", async () => {
  const { lanes, counterTracks } = await lanesOf(WEDGE);
  const metrics = lanes.find((l) => l.component === "metrics")!;
  assert.deepEqual([metrics.host, metrics.role, metrics.tp], ["d0", "decode", 0]);
  assert.deepEqual(counterTracks, [
    { lane: metrics.id, series: seriesOf(QUEUE), metric: QUEUE, rate: false },
    { lane: metrics.id, series: seriesOf(FAILED), metric: FAILED, rate: true },
  ]);
});

test("a gauge's points are its samples where each has a pixel column of its own; a counter's are its rate per second", async () => {
  const answer = await counters(WEDGE, `from=${T0_US}&to=${END_US + 1}&px=1000`);
  const [queue, failed] = answer.tracks;
  assert.equal(queue!.track, 0);
  assert.equal(queue!.ts.length, SAMPLES);
  assert.deepEqual(queue!.value, [...new Array<number>(20).fill(0), ...new Array<number>(180).fill(3)]);
  assert.equal(queue!.ts[20], Date.UTC(2026, 10, 20, 3, 45, 5) * 1000);

  assert.equal(failed!.track, 1);
  // A rate needs the sample before it: the first sample has none.
  assert.equal(failed!.ts.length, SAMPLES - 1);
  assert.equal(failed!.ts[0], T0_US + STEP_US);
  const rising = failed!.value.flatMap((v, i) => (v !== 0 ? [[failed!.ts[i], v]] : []));
  assert.deepEqual(rising, [
    [Date.UTC(2026, 10, 20, 3, 50, 5) * 1000, 1 / 15],
    [Date.UTC(2026, 10, 20, 4, 0, 5) * 1000, 1 / 15],
  ]);
});

test("a window keeps the nearest point either side, so the line runs to its edges; a lane filter leaves other lanes' tracks out", async () => {
  const from = T0_US + 100 * STEP_US + 1;
  const answer = await counters(WEDGE, `from=${from}&to=${from + 2 * STEP_US}&px=50`);
  const queue = answer.tracks.find((t) => t.track === 0)!;
  assert.deepEqual(queue.ts, [T0_US + 100 * STEP_US, T0_US + 101 * STEP_US, T0_US + 102 * STEP_US, T0_US + 103 * STEP_US]);
  const { lanes } = await lanesOf(WEDGE);
  const traces = lanes.find((l) => l.component === "traces")!;
  assert.deepEqual((await counters(WEDGE, `from=${from}&to=${from + STEP_US}&px=50&lanes=${traces.id}`)).tracks, []);
});

test("the counter route takes only what its schema says", async () => {
  for (const query of [`from=${T0_US}&to=${END_US}&px=0`, `from=${END_US}&to=${T0_US}&px=100`, `from=${T0_US}&to=${END_US}`, `from=${T0_US}&to=${END_US}&px=100&sql=1`, `from=${T0_US}&to=${END_US}&px=100&lanes=a`]) {
    const res = await getJson(server, `/api/incidents/${WEDGE}/counters?${query}`);
    assert.equal(res.status, 400, `${query}: ${res.text}`);
  }
});

test("580,000 samples in a 1,000-pixel window answer at most two points a column: the column's true least and greatest", async () => {
  const toUs = T0_US + LONG_SAMPLES * 1e6;
  const answer = await counters(LONG, `from=${T0_US}&to=${toUs}&px=1000`);
  assert.equal(answer.tracks.length, 1);
  const t = answer.tracks[0]!;
  assert.ok(t.ts.length <= 2000, `${t.ts.length} points`);
  // Column c holds samples 580c … 580c + 579 (one a second, 580 s a column): values 10c + (i mod 5), so 10c … 10c + 4;
  // sample 123,456 (column 212) dips to -7.
  const byColumn = new Map<number, number[]>();
  t.ts.forEach((ts, i) => {
    const c = Math.floor((ts - T0_US) / 580e6);
    byColumn.set(c, [...(byColumn.get(c) ?? []), t.value[i]!]);
  });
  assert.equal(byColumn.size, 1000);
  for (const [c, values] of byColumn) {
    const want = c === Math.floor(DIP_SAMPLE / 580) ? [DIP_VALUE, 2124] : [10 * c, 10 * c + 4];
    assert.deepEqual([Math.min(...values), Math.max(...values)], want, `column ${c}`);
  }
  assert.equal(byColumn.get(212)!.length, 2);
  const dip = t.value.indexOf(DIP_VALUE);
  assert.equal(t.ts[dip], T0_US + DIP_SAMPLE * 1e6);
});

test("trace spans are stage slices, request slices, and orphaned stage slices for exactly the wedged rooms", async () => {
  const { labels } = await lanesOf(WEDGE);
  const res = await getJson(server, `/api/incidents/${WEDGE}/events?from=${T0_US}&to=${END_US + 1}`);
  assert.equal(res.status, 200, res.text);
  const spans = (res.body as unknown as EventColumns).spans;
  const of = (type: number) => spans.type.flatMap((t, i) => (t === type ? [{ room: spans.room[i], label: labels[spans.label[i]!], start: spans.start[i], end: spans.end[i], seq: spans.seq[i]! }] : []));

  const orphaned = of(SpanTypes.orphanedStage);
  assert.deepEqual(orphaned.map((s) => `${s.room} ${s.label}`).sort(), WEDGED_ROOMS.flatMap((r) => [`${r} decode_bootstrap`, `${r} decode_prepare`]).sort());
  const first = orphaned.find((s) => s.room === WEDGED_ROOMS[0] && s.label === "decode_prepare")!;
  assert.deepEqual([first.start, first.end], [T0_US + 295e6, T0_US + 295.2e6]);

  const stages = of(SpanTypes.stage);
  assert.deepEqual(
    stages.map((s) => `${s.room} ${s.label}`).sort(),
    FINISHED_ROOMS.flatMap((r) => ["decode_prepare", "decode_bootstrap", "decode_waiting", "decode_transferred"].map((st) => `${r} ${st}`)).sort(),
  );
  const requests = of(SpanTypes.request);
  assert.deepEqual(requests.map((s) => `${s.room} ${s.label}`).sort(), ["1111111111111111111 Bootstrap Room 0xf6b75ab2bc471c7", "1111111111111111111 Decode Req 11111111", "2222222222222222222 Bootstrap Room 0x1ed6eb565788e38e", "2222222222222222222 Decode Req 22222222"]);
  const root = requests.find((s) => s.label?.startsWith("Bootstrap Room 0xf6"))!;
  assert.deepEqual([root.start, root.end], [T0_US + 5e6, T0_US + 7.6e6]);

  // The event panel is told what the span an event defines is.
  const ev = await getJson(server, `/api/incidents/${WEDGE}/events/${first.seq}`);
  assert.deepEqual(ev.body["spanTypes"], [SpanTypes.orphanedStage]);
  const finished = await getJson(server, `/api/incidents/${WEDGE}/events/${stages[0]!.seq}`);
  assert.deepEqual(finished.body["spanTypes"], [SpanTypes.stage]);
});

test("the traces-wedge bundle: the wedged requests' 18 slices are orphaned (no room: their traces never named one), the finished rooms' are not", async () => {
  const { labels } = await lanesOf(BUNDLE);
  const from = Date.UTC(2026, 10, 20, 3, 30) * 1000;
  const res = await getJson(server, `/api/incidents/${BUNDLE}/events?from=${from}&to=${from + 3600e6}`);
  assert.equal(res.status, 200, res.text);
  const spans = (res.body as unknown as EventColumns).spans;
  const of = (type: number) => spans.type.flatMap((t, i) => (t === type ? [{ room: spans.room[i], label: labels[spans.label[i]!] }] : []));
  const orphaned = of(SpanTypes.orphanedStage);
  assert.equal(orphaned.length, 18, "per wedged request, four prefill slices and two decode slices");
  assert.ok(orphaned.every((s) => s.room === null));
  assert.deepEqual([...new Set(orphaned.map((s) => s.label))].sort(), ["decode_bootstrap", "decode_prepare", "prefill_bootstrap", "prefill_forward", "prefill_prepare", "prefill_waiting"]);
  const stages = of(SpanTypes.stage);
  assert.ok(stages.length > 0 && stages.every((s) => s.room === "1111111111111111111" || s.room === "2222222222222222222"), JSON.stringify(stages.slice(0, 3)));
});
