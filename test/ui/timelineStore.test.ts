// The timeline index lives in the incident file (analyzer/timeline/timelineStore.ts
// over store/read/derived.ts): built once, read back as built, gone
// stale when the events change; the server leaves no cache file beside it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident } from "../../store/db.js";
import { buildTimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { storedTimelineIndex, storeTimelineIndex } from "../../analyzer/timeline/timelineStore.js";
import { scratchDir } from "../scratchDir.js";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident } from "./serverHarness.js";

const ID = "stale-slot-reuse";

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

test("the server keeps the timeline in the incident file, none beside it", async () => {
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
});
