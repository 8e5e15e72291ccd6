// A hand-written bundle of one prefill rank whose link failed (test/bundles/README.md, nixl-rank-link): NIXL PD with
// UCX, per-rank files of prefill p0 and decode d0 (tp_size=4 each). At 14:05:10 UCX on prefill TP2 reports
// `transport retry counter exceeded` and SGLang's NIXL side a transport error for four rooms; the other ranks go on.
// Decode holds the four rooms in its transfer queue and times them out 300 s later, on every rank.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { bundle, cleanUp, violated } from "./handBundles.js";

after(cleanUp);

test("one prefill rank's link failed: its transport failure is the first suspect, decode's timeouts of the same rooms follow from it", async () => {
  const { report } = await bundle("nixl-rank-link");
  const [transport] = violated(report, "transport-failure");
  assert.ok(transport);
  // The engine's own words, its name said once.
  assert.equal(transport.title, "Transport failure on prefill/tp2: UCX completion: transport retry counter exceeded (4 rooms)");
  assert.deepEqual(transport.ranks, ["prefill/tp2"]);
  assert.equal(transport.ts, "2026-06-11T14:05:10.518Z");
  const [stall] = violated(report, "transfer-stall");
  assert.ok(stall);
  assert.deepEqual([...stall.rooms!].sort(), [...transport.rooms!].sort(), "the rooms that timed out are the rooms whose transfer failed");
  assert.equal(stall.ts, "2026-06-11T14:10:10.000Z");
  assert.match(stall.explanation, /The same timeout hit 3 more room\(s\) at the same time: /);
  assert.equal(report.suspects[0]?.cause, "transport-failure");
  assert.match(report.suspects.find((s) => s.cause === "transfer-saturation")?.summary ?? "", /against: failed transfers explain the timeouts/);
  // Nothing died: no process failure is read into a link's failure.
  assert.deepEqual(violated(report, "process-failure"), []);
});
