// The Chrome trace holds what the timeline shows, on real incidents: fixture
// bundles ingested once (test/sharedIncident.ts), derived and analyzed as
// `kvrewind ingest` and `analyze` leave them. What the timeline shows is read
// through the UI server's own functions — the window query over the whole
// incident for the spans, each room's flow for the arrows, the stored index
// for lanes and counter tracks — and each must be in the export on the thread
// of its lane with the same start, duration and label.

import { test } from "node:test";
import assert from "node:assert/strict";
import { exportChromeTrace } from "../../analyzer/report/chromeTrace.js";
import { analysisSchema } from "../../analyzer/rules/analysis.js";
import { storeAnalysis } from "../../analyzer/rules/index.js";
import { roomFlow } from "../../analyzer/timeline/flows.js";
import type { Lane } from "../../analyzer/timeline/lanes.js";
import { positionOfSeq, type TimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { storedTimelineIndex } from "../../analyzer/timeline/timelineStore.js";
import { openIncident } from "../../store/db.js";
import { roomsWithPrefix } from "../../store/read/search.js";
import { deriveIncident } from "../../analyzer/derive.js";
import { queryWindow } from "../../ui/server/window-query.js";
import { fixtureInputs, incidentCopy, type IncidentInputs } from "../sharedIncident.js";
import { checkTrace, eventsOf, trackNames, type TraceFile } from "./traceEventFormat.js";

interface Exported {
  idx: TimelineIndex;
  trace: TraceFile;
  rooms: string[];
  flows: ReturnType<typeof roomFlow>[];
  report: ReturnType<typeof analysisSchema.parse>;
  bytes: number;
}

async function exported(inputs: IncidentInputs): Promise<Exported> {
  const copy = await incidentCopy(inputs);
  const db = openIncident(copy.path);
  try {
    deriveIncident(db);
    const report = analysisSchema.parse(copy.report);
    storeAnalysis(db, report);
    const idx = storedTimelineIndex(db);
    assert.ok(idx, "the derive step stored the timeline");
    let out = "";
    exportChromeTrace(db, (chunk) => (out += chunk));
    const rooms = roomsWithPrefix(db, "", Number.MAX_SAFE_INTEGER).map((r) => r.room);
    const flows = rooms.map((room) => roomFlow(db, room, idx.landings));
    return { idx, trace: checkTrace(JSON.parse(out)), rooms, flows, report, bytes: Buffer.byteLength(out) };
  } finally {
    db.close();
  }
}

const laneThread = (lane: Lane) => `${lane.group} ${lane.rank} ${lane.component}`;
const SPAN_ROW = " · ";

/** Where the export's slices and flow ends are: "<process> <thread>", the thread of a span row cut to its lane's. */
function placesOf(trace: TraceFile) {
  const names = trackNames(trace);
  const threadOf = (e: { pid: number; tid: number }) => `${names.process.get(e.pid)} ${names.thread.get(e.tid)}`;
  const slices = eventsOf(trace, "X");
  const eventSlices = slices.filter((e) => !names.thread.get(e.tid)!.includes(SPAN_ROW));
  const spanSlices = slices.filter((e) => names.thread.get(e.tid)!.includes(SPAN_ROW));
  return { names, threadOf, eventSlices, spanSlices };
}

/** The event slice a flow end binds to, as Perfetto binds it: the innermost slice open on its thread at its time. */
function boundSeq(slices: ReturnType<typeof placesOf>["eventSlices"], end: { pid: number; tid: number; ts: number }): unknown {
  const open = slices.filter((s) => s.pid === end.pid && s.tid === end.tid && s.ts <= end.ts && end.ts < s.ts + s.dur);
  return open.at(-1)?.args?.["seq"];
}

const sorted = (keys: string[]) => [...keys].sort();

async function checkExport(inputs: IncidentInputs, diagnostic: (message: string) => void): Promise<Exported> {
  const ex = await exported(inputs);
  const { idx, trace } = ex;
  const { names, threadOf, eventSlices, spanSlices } = placesOf(trace);
  const t0 = trace.otherData?.["startUs"] as number;
  assert.equal(t0, Math.min(idx.firstTsUs!, idx.spans.start[0] ?? Infinity), "time 0 is the earliest event or span");

  // Lanes: a process per lane group, a thread per lane, in the timeline's order.
  assert.deepEqual(names.processOrder, [...new Set(idx.lanes.map((l) => l.group))]);
  assert.deepEqual(names.threadOrder.filter((t) => !t.includes(SPAN_ROW)), idx.lanes.map(laneThread));

  // Every event, a slice within its microsecond on its lane's thread.
  const eventPlaces = eventSlices.map((e) => `${e.args?.["seq"]} ${threadOf(e)} ${Math.floor(e.ts)}`);
  const expectedEvents = Array.from(idx.seq, (seq, pos) => `${seq} ${laneThread(idx.lanes[idx.lane[pos]!]!)} ${idx.ts[pos]! - t0}`);
  assert.ok(eventSlices.every((e) => e.dur >= 0 && e.ts + e.dur <= Math.floor(e.ts) + 1));
  assert.deepEqual(sorted(eventPlaces), sorted(expectedEvents));

  // Every span of the whole incident's window: its lane, start, duration and label.
  const window = queryWindow(idx, { fromUs: idx.firstTsUs!, toUs: idx.lastTsUs! + 1, buckets: 1, maxEvents: 0, maxSpans: Number.MAX_SAFE_INTEGER });
  assert.equal(window.spans.left, 0);
  const expectedSpans = window.spans.start.map((start, i) => `${laneThread(idx.lanes[window.spans.lane[i]!]!)}|${start}|${window.spans.end[i]! - start}|${idx.labels[window.spans.label[i]!]}`);
  const spanKeys = spanSlices.map((e) => `${threadOf(e).split(SPAN_ROW)[0]}|${e.ts + t0}|${e.dur}|${e.name}`);
  assert.deepEqual(sorted(spanKeys), sorted(expectedSpans));

  // Every arrow of every room: from the event it leaves to the event it reaches, with its label.
  const expectedFlows = ex.flows.flatMap((f) => f.edges.map((e) => `${e.from}>${e.to} ${e.label}`));
  const ends = new Map(eventsOf(trace, "f").map((f) => [f.id, f]));
  const flowKeys = eventsOf(trace, "s").map((s) => `${boundSeq(eventSlices, s)}>${boundSeq(eventSlices, ends.get(s.id)!)} ${s.name}`);
  assert.deepEqual(sorted(flowKeys), sorted(expectedFlows));

  // Every point of every counter track, on its lane's process.
  const counters = new Set(eventsOf(trace, "C").map((c) => `${names.process.get(c.pid)} ${c.name} ${c.ts + t0} ${Object.values(c.args)[0]}`));
  for (const track of idx.counters.tracks) {
    const lane = idx.lanes[track.lane]!;
    for (let i = track.first; i < track.first + track.count; i++) {
      const point = `${lane.group} ${lane.rank} ${lane.component} ${track.series} ${idx.counters.ts[i]} ${idx.counters.value[i]}`;
      assert.ok(counters.has(point), `counter point ${point}`);
    }
  }

  // Each violated finding that the timeline places, at its first witness, with its witness lines.
  const instants = new Map(eventsOf(trace, "i").map((i) => [i.args?.["id"], i]));
  for (const f of ex.report.findings.filter((x) => x.verdict === "violated" && x.witness.length > 0)) {
    const mark = instants.get(f.id);
    assert.ok(mark, `finding ${f.id}`);
    assert.deepEqual(mark.args, { id: f.id, title: f.title, rule: f.rule, severity: f.severity, witness: f.witness.map((w) => `${w.source}:${w.line}`) });
    assert.equal(mark.ts + t0, idx.ts[positionOfSeq(idx, f.witness[0]!.seq)!]);
  }
  diagnostic(`${trace.traceEvents.length} trace events, ${eventSlices.length} event slices, ${spanSlices.length} spans, ${flowKeys.length} flows, ${eventsOf(trace, "C").length} counter points, ${instants.size} findings; ${ex.bytes} bytes`);
  return ex;
}

test("the abort wedge: every event, span, arrow and finding of the timeline; its 464 waits are on d0", async (t) => {
  const ex = await checkExport(fixtureInputs("nixl-abort-wedge"), (m) => t.diagnostic(m));
  // The 58 re-sent rooms time out on d0 after 300 s in WaitingForInput, on all 8 ranks (fixtures/README.md).
  const { names } = placesOf(ex.trace);
  const waits = eventsOf(ex.trace, "X").filter((e) => e.cat === "wait");
  assert.equal(waits.length, 8 * 58);
  assert.ok(waits.every((w) => w.dur === 300e6 && w.name === "waited 300s in WaitingForInput" && names.process.get(w.pid) === "d0/decode"));
  assert.equal(new Set(waits.map((w) => w.args?.["room"])).size, 58);
  // Decode's ABORTs reach p0's bootstrap threads, which die on them.
  assert.ok(eventsOf(ex.trace, "f").some((f) => f.name === "ABORT → bootstrap thread" && names.process.get(f.pid) === "p0/prefill"));
});

test("other incidents: the healthy run's transfers and arrows, the desync's collectives, the traces wedge's stage slices, the metrics wedge's counter tracks", async (t) => {
  const healthy = await checkExport(fixtureInputs("healthy"), (m) => t.diagnostic(`healthy: ${m}`));
  const arrows = new Set(eventsOf(healthy.trace, "s").map((s) => s.name.replace(/\d+/, "N")));
  assert.deepEqual([...arrows].sort(), ["chunk N", "polled", "read"]);
  assert.ok(eventsOf(healthy.trace, "X").some((e) => e.cat === "transfer") && eventsOf(healthy.trace, "X").some((e) => e.cat === "room"));
  const desync = await checkExport(fixtureInputs("overlap-desync"), (m) => t.diagnostic(`overlap-desync: ${m}`));
  assert.ok(eventsOf(desync.trace, "X").some((e) => e.cat === "collective" && e.args?.["open"] === true));
  const traces = await checkExport({ paths: ["test/bundles/traces-wedge"] }, (m) => t.diagnostic(`traces-wedge: ${m}`));
  assert.ok(eventsOf(traces.trace, "X").some((e) => e.cat === "orphanedStage"));
  const metrics = await checkExport({ paths: ["test/bundles/metrics-wedge"] }, (m) => t.diagnostic(`metrics-wedge: ${m}`));
  assert.ok(metrics.idx.counters.tracks.length > 0 && eventsOf(metrics.trace, "C").length > 0);
});
