// The timeline index lives in the incident file (ui/server/timeline-store.ts
// over store/timelineColumns.ts): built once, read back as built, gone
// stale when the events change; a schema-7 incident (before the table) is
// migrated on first open, and the server leaves no cache file beside it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, schemaVersion } from "../../store/db.js";
import { SCHEMA_VERSION } from "../../store/schema.js";
import { buildTimelineIndex } from "../../ui/server/timeline-index.js";
import { storedTimelineIndex, storeTimelineIndex } from "../../ui/server/timeline-store.js";
import { scratchDir } from "../scratchDir.js";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident } from "./serverHarness.js";

const ID = "stale-slot-reuse";

/** Makes an incident file what schema 7 wrote: the same, without the timeline table. */
function downgradeToSchema7(path: string): void {
  const raw = new Database(path);
  raw.exec("DROP TABLE timeline_columns; UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  raw.close();
}

test("the stored timeline reads back as it was built, and is stale once another ingest changes the events", async () => {
  const path = join(scratchDir("kvrewind-timeline-"), "incident.db");
  await ingest({ db: path, paths: [join(FIXTURES, ID, "p0")] });
  const db = openIncident(path);
  assert.equal(storedTimelineIndex(db), undefined, "nothing stored before it is built");
  const { index, bytes } = storeTimelineIndex(db);
  assert.ok(bytes > 0);
  assert.deepEqual(index, buildTimelineIndex(db));
  assert.deepEqual(storedTimelineIndex(db), index);
  db.close();

  await ingest({ db: path, paths: [join(FIXTURES, ID, "d0")] });
  const after = openIncident(path);
  assert.equal(storedTimelineIndex(after), undefined, "built from other events");
  assert.deepEqual(storeTimelineIndex(after).index, buildTimelineIndex(after));
  after.close();
});

test("a schema-7 incident gains the timeline table on first open; its data stays", async () => {
  const path = join(scratchDir("kvrewind-timeline-"), "incident.db");
  await ingest({ db: path, paths: [join(FIXTURES, ID)] });
  const current = openIncident(path);
  const built = buildTimelineIndex(current);
  current.close();
  downgradeToSchema7(path);
  const check = new Database(path, { readonly: true });
  assert.equal(schemaVersion(check), 7);
  check.close();

  const db = openIncident(path);
  assert.equal(schemaVersion(db), SCHEMA_VERSION);
  assert.equal(storedTimelineIndex(db), undefined);
  assert.deepEqual(storeTimelineIndex(db).index, built);
  assert.deepEqual(storedTimelineIndex(db), built);
  db.close();
});

test("the server keeps the timeline in the incident file: none beside it, an older server's cache file removed, a schema-7 incident migrated", async () => {
  const first = await startTestServer();
  const up = await uploadFiles(first, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(first, ID))["status"], "ready");
  const lanes = await getJson(first, `/api/incidents/${ID}/lanes`);
  assert.equal(lanes.status, 200, lanes.text);
  await first.close();

  const dir = join(first.dataDir, "incidents", ID);
  const dbPath = join(dir, "incident.db");
  assert.equal(existsSync(join(dir, "timeline.idx")), false, "no cache file beside the incident");
  const stored = openIncident(dbPath, { readonly: true });
  assert.ok(storedTimelineIndex(stored), "the analysis job stored the timeline in the incident");
  stored.close();

  downgradeToSchema7(dbPath);
  writeFileSync(join(dir, "timeline.idx"), "an older server's cache");
  const second = await startTestServer({ dataDir: first.dataDir });
  try {
    const again = await getJson(second, `/api/incidents/${ID}/lanes`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, lanes.body);
    assert.equal(existsSync(join(dir, "timeline.idx")), false);
  } finally {
    await second.close();
  }
  const migrated = openIncident(dbPath, { readonly: true });
  assert.equal(schemaVersion(migrated), SCHEMA_VERSION);
  assert.ok(storedTimelineIndex(migrated), "built once into the migrated incident");
  migrated.close();
});
