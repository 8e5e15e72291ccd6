// The Chrome trace of a small hand-made incident: spans with their real
// durations (a transfer post to landing, collectives enter to exit, one never
// exited), the post → notify arrow as a flow between the two hosts, one named
// thread per lane in the timeline's order, and the findings as instants.

import { test } from "node:test";
import assert from "node:assert/strict";
import { exportChromeTrace } from "../../analyzer/report/chromeTrace.js";
import { analyzeIncident, storeAnalysis } from "../../analyzer/rules/index.js";
import { buildIncident } from "./incidentBuilder.js";
import { lines } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";
import { checkTrace, eventsOf, trackNames } from "./traceEventFormat.js";

const P0: Rank = { host: "p0", role: "prefill", tp: 0 };
const P1: Rank = { host: "p0", role: "prefill", tp: 1 };
const D0: Rank = { host: "d0", role: "decode", tp: 0 };
const ROOM = "8972542885242963296";

test("a Chrome trace: transfer and collective spans, an unfinished collective, a post→notify flow, named lanes, finding markers", async () => {
  const group = { group: "tp_cpu", op: "all_reduce", site: "process_disagg_prefill_inflight_queue" };
  const db = await buildIncident([
    {
      path: "p0/probe-tp0.jsonl",
      text: lines(
        probe(1, P0, "coll.enter", { ...group, seq: 7 }),
        probe(1.002, P0, "coll.exit", { ...group, seq: 7 }),
        probe(2, P0, "kv.post", { chunk: 0, last: true, buffer: "kv", pages: [[0, 4]], dst_pages: [[0, 4]], dst: "d0/tp0", queue: 0 }, ROOM),
        probe(2.5, P0, "kv.done", { chunk: 0 }, ROOM),
        probe(3, P0, "coll.enter", { ...group, seq: 8 }),
      ),
    },
    { path: "p0/probe-tp1.jsonl", text: lines(probe(1.001, P1, "coll.enter", { ...group, seq: 7 }), probe(1.002, P1, "coll.exit", { ...group, seq: 7 })) },
    {
      path: "d0/probe-tp0.jsonl",
      text: lines(
        probe(1.5, D0, "kv.meta", { pages: [[0, 4]], dst: "p0/tp0", item_len: 8448 }, ROOM),
        probe(2.4, D0, "kv.notify", { tag: `${ROOM}_kv_0_1_0` }, ROOM),
        probe(14, D0, "sched.iter", { iter: 1, branch: "on_idle" }),
      ),
    },
  ]);
  storeAnalysis(db, analyzeIncident(db));
  let out = "";
  const { traceEvents } = exportChromeTrace(db, (chunk) => (out += chunk));
  const trace = checkTrace(JSON.parse(out));
  assert.equal(trace.traceEvents.length, traceEvents);
  const names = trackNames(trace);
  const threadName = names.thread;
  const slice = (name: string) => eventsOf(trace, "X").find((e) => e.name === name)!;

  // The write lands by the decode notify that names its chunk (2.4 s), before the sender's done (2.5 s).
  const transfer = slice("c0 in flight");
  assert.deepEqual([transfer.ts, transfer.dur, threadName.get(transfer.tid)], [1_000_000, 400_000, "TP0 transfer · transfer"]);
  const collectives = eventsOf(trace, "X").filter((e) => e.name === "all_reduce #7");
  assert.deepEqual(collectives.map((c) => [threadName.get(c.tid), c.dur]).sort(), [["TP0 collectives · collective", 2_000], ["TP1 collectives · collective", 1_000]]);
  const hung = slice("all_reduce #8 never exited");
  assert.equal(hung.args?.["open"], true);
  assert.equal(hung.ts + hung.dur, 13_000_000, "an unfinished collective runs to the end of the records (14 s, 13 s after the first)");

  const [start, finish] = trace.traceEvents.filter((e) => e.ph === "s" || e.ph === "f");
  assert.deepEqual([start?.ph, finish?.ph, start?.name], ["s", "f", "chunk 0"]);
  assert.notEqual(start!.pid, finish!.pid, "the arrow crosses from prefill to decode");
  assert.deepEqual([threadName.get(start!.tid), threadName.get(finish!.tid)], ["TP0 transfer", "TP0 transfer"]);

  assert.deepEqual(names.processOrder, ["d0/decode", "p0/prefill"]);
  assert.deepEqual(names.threadOrder, [
    "d0/decode TP0 scheduler",
    "d0/decode TP0 transfer",
    "p0/prefill TP0 transfer",
    "p0/prefill TP0 transfer · transfer",
    "p0/prefill TP0 collectives",
    "p0/prefill TP0 collectives · collective",
    "p0/prefill TP1 collectives",
    "p0/prefill TP1 collectives · collective",
  ]);

  const markers = eventsOf(trace, "i");
  const divergence = markers.find((m) => /^F\d+ collective-divergence$/.test(m.name));
  assert.ok(divergence, `markers: ${markers.map((m) => m.name).join(", ")}`);
  assert.deepEqual(Object.keys(divergence.args ?? {}).sort(), ["id", "rule", "severity", "title", "witness"]);
  assert.ok((divergence.args?.["witness"] as string[]).every((w) => /^p0\/probe-tp[01]\.jsonl:\d+$/.test(w)));
});
