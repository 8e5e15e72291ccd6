// A reader waiting on a HiCache layer is a span of the timeline (and so of
// the export): from its hicache.wait to the hicache.layer that completes the
// same slot's layer on the same rank. A wait on a layer already loaded since
// its slot's load began is over at once and draws nothing. Expectations are
// read from the hicache-indexk-race fixture's probe files themselves.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildTimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { SpanTypes } from "../../analyzer/timeline/spanTypes.js";
import { openIncident } from "../../store/db.js";
import { FIXTURE_INCIDENTS, fixtureInputs, sharedIncident } from "../sharedIncident.js";

const ID = "hicache-indexk-race";

interface Probe {
  ts: number;
  host: string;
  tp: number;
  ev: string;
  slot?: number;
  layer?: number;
}

/** Per rank, in file order: the waits whose layer completes after them, as [wait µs, completion µs, slot, layer]. */
function expectedWaits(): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (const host of readdirSync(join(FIXTURE_INCIDENTS, ID))) {
    let files: string[];
    try {
      files = readdirSync(join(FIXTURE_INCIDENTS, ID, host)).filter((f) => f.startsWith("probe") && f.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const f of files) {
      const loaded = new Set<string>();
      const waiting = new Map<string, number>();
      for (const line of readFileSync(join(FIXTURE_INCIDENTS, ID, host, f), "utf8").split("\n")) {
        if (!line.includes('"hicache.')) continue;
        const p = JSON.parse(line) as Probe;
        const us = Math.round(p.ts / 1000);
        const key = `${p.slot}/${p.layer}`;
        if (p.ev === "hicache.load") for (const k of loaded) if (k.startsWith(`${p.slot}/`)) loaded.delete(k);
        if (p.ev === "hicache.wait" && !loaded.has(key)) waiting.set(key, us);
        if (p.ev === "hicache.layer") {
          loaded.add(key);
          const since = waiting.get(key);
          if (since !== undefined) out.push([since, us, p.slot!, p.layer!]);
          waiting.delete(key);
        }
      }
    }
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

test("each wait on a HiCache layer not yet loaded is a span to that layer's completion; waits on loaded layers are none", async () => {
  const { path } = await sharedIncident(fixtureInputs(ID));
  const db = openIncident(path, { readonly: true });
  const index = buildTimelineIndex(db);
  db.close();
  const got: [number, number, string][] = [];
  for (let i = 0; i < index.spans.type.length; i++) {
    if (index.spans.type[i] === SpanTypes.hicacheWait) got.push([index.spans.start[i]!, index.spans.end[i]!, index.labels[index.spans.label[i]!]!]);
  }
  got.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const want = expectedWaits();
  assert.ok(want.length > 0, "the fixture's readers do wait on layers still loading");
  assert.deepEqual(got.map(([s, e]) => [s, e]), want.map(([s, e]) => [s, e]));
  assert.deepEqual(got.map(([, , label]) => label), want.map(([, , slot, layer]) => `waiting on layer ${layer} of slot ${slot}`));
});
