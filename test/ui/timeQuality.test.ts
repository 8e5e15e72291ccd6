// How well each event's time is known reaches the page (domain/event.ts
// TimeQuality): a window of events says, per event, whether its time is its
// own line's, inferred, or unknown, so the timeline can draw the last two
// as outlines; the unknown ones are placed apart, before every dated record. Against a real server, on a bundle as `kubectl logs
// --previous` leaves it: a dated log and an undated traceback of the same pod.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TimeQuality } from "../../domain/event.js";
import { getJson, startTestServer, uploadFiles, waitForIncident, type TestServer } from "./serverHarness.js";
import { BUNDLES } from "../sharedIncident.js";

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.close();
});

const DATED = [
  "[2026-06-11 14:00:01 DP0 TP1] Prefill batch, #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.02, #running-req: 1, #queue-req: 0",
  "[2026-06-11 14:00:03 DP0 TP1] Prefill batch, #new-seq: 1, #new-token: 2048, #cached-token: 0, token usage: 0.02, #running-req: 1, #queue-req: 0",
].join("\n") + "\n";

test("a window of events marks the undated traceback's records unknown and the dated lines known", async () => {
  const previous = readFileSync(join(BUNDLES, "k8s-mooncake-pod-logs/sglang-prefill-0/previous-tp1.log"), "utf8");
  const up = await uploadFiles(server, [
    { name: "pod/sglang-prefill-0/prefill-tp1.log", content: DATED },
    { name: "pod/sglang-prefill-0/previous-tp1.log", content: previous },
  ], "?name=previous-capture");
  assert.equal(up.status, 202, JSON.stringify(up.body));
  const id = (up.body["incident"] as { id: string }).id;
  assert.equal((await waitForIncident(server, id))["status"], "ready");
  const lanes = (await getJson(server, `/api/incidents/${id}/lanes`)).body as { firstTsUs: number; lastTsUs: number; kinds: string[]; unknownTsUs: number | null; datedFromUs: number };
  const w = (await getJson(server, `/api/incidents/${id}/events?from=${lanes.firstTsUs - 1e6}&to=${lanes.lastTsUs + 1e6}&buckets=100&max=10000`)).body as {
    mode: string; seq: number[]; kind: number[]; time: number[]; ts: number[];
  };
  assert.equal(w.mode, "events");
  assert.equal(w.time.length, w.seq.length);
  const byKind = (k: string) => w.time.filter((_, i) => lanes.kinds[w.kind[i]!] === k);
  assert.deepEqual(byKind("batch.prefill"), [TimeQuality.known, TimeQuality.known]);
  // The whole --previous capture is one traceback: one record, whose time nothing in its file gives.
  assert.deepEqual(byKind("log.exception"), [TimeQuality.unknown]);
  assert.equal(w.seq.length, 3);
  // Drawn apart: before every dated record, at the place the lanes answer names; offsets count from the first dated line (14:00:01).
  const at = w.ts[w.time.indexOf(TimeQuality.unknown)]!;
  assert.equal(at, lanes.unknownTsUs);
  assert.ok(w.ts.every((t, i) => w.time[i] === TimeQuality.unknown || t > at));
  assert.equal(lanes.datedFromUs, Date.parse("2026-06-11T14:00:01Z") * 1000);
  assert.equal(lanes.firstTsUs, at, "the timeline's extent takes the undated records in");
});
