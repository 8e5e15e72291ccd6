// The timeline index read on a second thread while the model replays
// (analyzer/timeline/timelineBeside.ts, from a million events) is the index
// built in line after the replay: the same columns, spans, names and lanes,
// on incidents with transfers that landed and did not, trace stages,
// collectives and HiCache waits. And the derive step stores the same index either way.

import { test } from "node:test";
import assert from "node:assert/strict";
import { deriveIncident } from "../../analyzer/derive.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { SpanTypes } from "../../analyzer/timeline/spanTypes.js";
import { timelineBeside } from "../../analyzer/timeline/timelineBeside.js";
import { buildTimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { storedTimelineIndex } from "../../analyzer/timeline/timelineStore.js";
import { openIncident } from "../../store/db.js";
import { bundleInputs, fixtureInputs, ingestedCopy, ingestedIncident, type IncidentInputs } from "../sharedIncident.js";

/** Each case with the span types it is there for. */
const CASES: [string, IncidentInputs, number[]][] = [
  ["stale-slot-reuse (transfers, rooms' pages, timeouts' waits)", fixtureInputs("stale-slot-reuse"), [SpanTypes.transfer, SpanTypes.room, SpanTypes.wait]],
  ["traces-wedge (trace stages, orphaned ones)", bundleInputs("traces-wedge"), [SpanTypes.stage, SpanTypes.orphanedStage]],
  ["overlap-desync (ranks inside collectives)", fixtureInputs("overlap-desync"), [SpanTypes.collective]],
  ["hicache-indexk-race (readers waiting on HiCache layers)", fixtureInputs("hicache-indexk-race"), [SpanTypes.hicacheWait]],
];

for (const [label, inputs, types] of CASES) {
  test(`the timeline read on a second thread is the one built in line: ${label}`, async () => {
    const db = openIncident(await ingestedIncident(inputs), { readonly: true });
    try {
      const beside = timelineBeside(db, { minEvents: 0 });
      assert.ok(beside, "the worker thread runs (its module is built)");
      const { landings } = replayIncident(db);
      beside.landed(landings);
      const read = beside.index();
      const built = buildTimelineIndex(db, landings);
      for (const type of types) assert.ok(built.spans.type.includes(type), `the case has spans of type ${type}`);
      assert.deepEqual(read, built);
      const later = timelineBeside(db, { minEvents: 0 })!;
      later.landed(landings);
      assert.deepEqual(await later.indexLater(), built, "the same index, waited for without blocking");
    } finally {
      db.close();
    }
  });
}

test("the derive step stores the same timeline whether it was read beside the replay or after it", async () => {
  const inputs = fixtureInputs("stale-slot-reuse");
  const [besidePath, inLinePath] = [await ingestedCopy(inputs), await ingestedCopy(inputs)];
  const besideDb = openIncident(besidePath);
  const inLineDb = openIncident(inLinePath);
  try {
    assert.ok(deriveIncident(besideDb, { timelineBesideFrom: 0 }), "the replay ran");
    assert.ok(deriveIncident(inLineDb, { timelineBesideFrom: Infinity }), "the replay ran");
    const stored = storedTimelineIndex(besideDb);
    assert.ok(stored, "the timeline read beside was stored");
    assert.deepEqual(stored, storedTimelineIndex(inLineDb));
    assert.equal(deriveIncident(besideDb, { timelineBesideFrom: 0 }), undefined, "derived again: everything current, no thread left waiting");
    assert.deepEqual(storedTimelineIndex(besideDb), stored);
  } finally {
    besideDb.close();
    inLineDb.close();
  }
});
