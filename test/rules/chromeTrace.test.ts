import { test } from "node:test";
import assert from "node:assert/strict";
import { exportChromeTrace } from "../../analyzer/report/chromeTrace.js";
import { analyzeIncident, storeAnalysis } from "../../analyzer/rules/index.js";
import { buildIncident } from "./incidentBuilder.js";
import { lines } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";

const P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const P1: Rank = { host: "p0", role: "prefill", tp: 1 };
const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const ROOM = "8972542885242963296";

type TraceEvent = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; id?: number; args?: Record<string, unknown> };

test("a Chrome trace: transfer and collective slices, an unfinished collective, a post→notify flow, finding markers", async () => {
  const group = { group: "tp_cpu", op: "all_reduce", site: "process_disagg_prefill_inflight_queue" };
  const db = await buildIncident([
    {
      path: "p0/probe-tp0.jsonl",
      text: lines(
        probe(1, P0, "coll.enter", { ...group, seq: 7 }),
        probe(1.002, P0, "coll.exit", { ...group, seq: 7 }),
        probe(2, P0, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[0, 4]] }, ROOM),
        probe(2.5, P0, "kv.done", { chunk: 0 }, ROOM),
        probe(3, P0, "coll.enter", { ...group, seq: 8 }),
      ),
    },
    { path: "p0/probe-tp1.jsonl", text: lines(probe(1.001, P1, "coll.enter", { ...group, seq: 7 }), probe(1.002, P1, "coll.exit", { ...group, seq: 7 })) },
    { path: "d0/probe-tp0.jsonl", text: lines(probe(2.4, D0, "kv.notify", { tag: `${ROOM}_kv_0_1_0` }, ROOM), probe(14, D0, "sched.iter", { iter: 1, branch: "on_idle" })) },
  ]);
  storeAnalysis(db, analyzeIncident(db));
  let out = "";
  const { traceEvents } = exportChromeTrace(db, (chunk) => (out += chunk));
  const trace = JSON.parse(out) as { traceEvents: TraceEvent[] };
  assert.equal(trace.traceEvents.length, traceEvents);
  const slice = (name: string) => trace.traceEvents.find((e) => e.ph === "X" && e.name === name)!;
  assert.equal(slice(`kv transfer ${ROOM} chunk 0`).dur, 500_000);
  assert.equal(slice("all_reduce #7").dur, 2_000);
  const hung = slice("all_reduce #8");
  assert.equal(hung.args?.unfinished, true);
  // The records go on 11 s past the entry: longer than the model takes a collective a member never entered to be hung (COLLECTIVE_HANG_US).
  assert.equal(hung.ts + hung.dur!, 13_000_000, "an unfinished collective runs to the end of the records");
  const [start, finish] = trace.traceEvents.filter((e) => e.name === "kv.post → kv.notify");
  assert.equal(start!.ph, "s");
  assert.equal(finish!.ph, "f");
  assert.equal(start!.id, finish!.id);
  assert.notEqual(start!.pid, finish!.pid, "the arrow crosses from prefill to decode");
  const threads = trace.traceEvents.filter((e) => e.ph === "M" && e.name === "thread_name").map((e) => e.args?.name).sort();
  assert.deepEqual(threads, ["decode/tp0", "prefill/tp0", "prefill/tp1"]);
  const markers = trace.traceEvents.filter((e) => e.ph === "i");
  assert.ok(markers.some((m) => /^F\d+ collective-divergence$/.test(m.name)), `markers: ${markers.map((m) => m.name).join(", ")}`);
});
