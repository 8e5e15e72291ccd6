// A data directory an older kvrewind left behind: its incident databases are
// of an older schema. Incident files are not migrated (store/schema.ts); a
// server keeps each incident's input files, so a new server over that
// directory rebuilds each such database from them and serves it as before.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openIncident, schemaVersion } from "../../store/db.js";
import { SCHEMA_VERSION } from "../../store/schema.js";
import { fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident } from "./serverHarness.js";

const ID = "pool-sizing";

test("a server over a data directory with an incident of an older schema rebuilds it from its input files and serves it as before", async () => {
  const first = await startTestServer();
  const up = await uploadFiles(first, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(first, ID))["status"], "ready");
  const before = await getJson(first, `/api/incidents/${ID}/events/5`);
  assert.equal(before.status, 200, before.text);
  const lanesBefore = await getJson(first, `/api/incidents/${ID}/lanes`);
  await first.close();

  const dir = join(first.dataDir, "incidents", ID);
  const dbPath = join(dir, "incident.db");
  const old = new Database(dbPath);
  old.exec("UPDATE meta SET value = '8' WHERE key = 'schema_version'");
  old.close();
  // An older server kept its timeline index in a file beside the database.
  writeFileSync(join(dir, "timeline.idx"), "an older server's cache");

  const second = await startTestServer({ dataDir: first.dataDir });
  try {
    assert.equal((await waitForIncident(second, ID))["status"], "ready");
    const after = await getJson(second, `/api/incidents/${ID}/events/5`);
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(after.body["event"], before.body["event"], "the same event with the same raw text");
    const lanes = await getJson(second, `/api/incidents/${ID}/lanes`);
    assert.equal(lanes.status, 200, lanes.text);
    assert.deepEqual(lanes.body, lanesBefore.body);
    assert.ok(second.logs.some((l) => l.includes(`incident ${ID}: its database was written under another schema; rebuilding it from its input files`)), second.logs.join("\n"));
    assert.deepEqual(second.logs.filter((l) => l.includes(ID) && /error|fail/i.test(l)), []);
  } finally {
    await second.close();
  }
  assert.equal(existsSync(join(dir, "timeline.idx")), false, "the old server's cache went with the old database");
  const rebuilt = openIncident(dbPath, { readonly: true });
  assert.equal(schemaVersion(rebuilt), SCHEMA_VERSION);
  rebuilt.close();
});
