// The parsed rows wait for the merge in memory up to a budget and past it in
// a temporary file (ingest/load/runStore.ts): an ingest whose every batch
// waits in the file stores what one that keeps them all in memory stores —
// the same events, texts and sources.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ingest } from "../../ingest/pipeline.js";
import { eventRows, tempDir, withDb } from "./bundle.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

test("rows spilled to the file store as rows kept in memory", async () => {
  const dir = tempDir("run-spill");
  for (const bundle of ["fixtures/incidents/stale-slot-reuse", "test/bundles/crashed-scheduler"]) {
    const paths = [join(ROOT, bundle)];
    const name = bundle.replace(/\//g, "-");
    const inMemory = await ingest({ db: join(dir, `${name}-memory.db`), paths });
    const spilled = await ingest({ db: join(dir, `${name}-spilled.db`), paths, runMemoryBytes: 0 });
    // Two workers and cut parts too, every batch spilled.
    const cut = await ingest({ db: join(dir, `${name}-cut.db`), paths, runMemoryBytes: 0, loadWorkers: 2, loadSplit: { splitBytes: 0, partBytes: 16 * 1024 } });
    const events = withDb(join(dir, `${name}-memory.db`), eventRows);
    assert.ok(events.length > 100, `${bundle}: ${events.length} events`);
    for (const [what, summary] of [["spilled", spilled], ["cut", cut]] as const) {
      assert.deepStrictEqual(summary.sources, inMemory.sources, `${bundle} ${what}: sources`);
      assert.deepStrictEqual(withDb(join(dir, `${name}-${what}.db`), eventRows), events, `${bundle} ${what}: events`);
    }
  }
});
