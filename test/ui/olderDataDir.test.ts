// A data directory an older kvrewind left behind: its incident databases are
// at schema 2 (event texts inside the events rows). A new server over it must
// come up, migrate each database when it first opens it, and serve it as
// before; a failure of one incident must not stop the server.

import { test } from "node:test";
import assert from "node:assert/strict";
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openIncident, schemaVersion } from "../../store/db.js";
import { eventTexts } from "../../store/eventText.js";
import { registerEventsTable } from "../../store/eventsTable.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../store/schema.js";
import { fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident } from "./serverHarness.js";

const ID = "pool-sizing";

/** Rewrites the incident database the way schema 2 kept it: the same sources, events and meta, each event's text in its row. */
function downgradeToSchema2(path: string): void {
  const db = openIncident(path);
  // The events as the old table held them: the columns of SQL's `events`.
  registerEventsTable(db);
  const texts = eventTexts(db);
  const sources = db.prepare("SELECT * FROM sources").all() as Record<string, unknown>[];
  const events = db.prepare("SELECT * FROM events ORDER BY seq").all() as Record<string, unknown>[];
  const meta = db.prepare("SELECT key, value FROM meta WHERE key <> 'schema_version'").all() as { key: string; value: string }[];
  const withText = events.map((e) => ({ ...e, text: texts.text(e["source_id"] as number, e["line"] as number) }));
  db.close();

  const old = `${path}.v2`;
  const raw = new Database(old);
  raw.exec(MIGRATIONS[0] as string);
  raw.exec(MIGRATIONS[1] as string);
  raw.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '2')").run();
  for (const m of meta) raw.prepare("INSERT INTO meta (key, value) VALUES (?, ?)").run(m.key, m.value);
  const insertAll = (table: string, rows: Record<string, unknown>[]): void => {
    if (rows.length === 0) return;
    const known = new Set(raw.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]);
    const cols = Object.keys(rows[0]!).filter((c) => known.has(c));
    const stmt = raw.prepare(`INSERT INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => `@${c}`).join(", ")})`);
    raw.transaction(() => rows.forEach((r) => stmt.run(r)))();
  };
  insertAll("sources", sources);
  insertAll("events", withText);
  raw.close();
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  renameSync(old, path);
}

test("a server over a data directory of schema-2 incidents migrates each and serves it as before", async () => {
  const first = await startTestServer();
  const up = await uploadFiles(first, [{ name: `${ID}.tar.gz`, content: await fixtureTarGz(ID) }]);
  assert.equal(up.status, 202, JSON.stringify(up.body));
  assert.equal((await waitForIncident(first, ID))["status"], "ready");
  const before = await getJson(first, `/api/incidents/${ID}/events/5`);
  assert.equal(before.status, 200, before.text);
  await first.close();

  const dbPath = join(first.dataDir, "incidents", ID, "incident.db");
  downgradeToSchema2(dbPath);
  rmSync(join(first.dataDir, "incidents", ID, "timeline.idx"), { force: true });
  const check = new Database(dbPath, { readonly: true });
  assert.equal(schemaVersion(check), 2);
  check.close();

  const second = await startTestServer({ dataDir: first.dataDir });
  try {
    assert.equal((await waitForIncident(second, ID))["status"], "ready");
    const after = await getJson(second, `/api/incidents/${ID}/events/5`);
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(after.body["event"], before.body["event"], "the same event with the same raw text");
    const lanes = await getJson(second, `/api/incidents/${ID}/lanes`);
    assert.equal(lanes.status, 200, lanes.text);
    assert.deepEqual(second.logs.filter((l) => l.includes(ID) && /schema|error|fail/i.test(l)), []);
  } finally {
    await second.close();
  }
  const migrated = new Database(dbPath, { readonly: true });
  assert.equal(schemaVersion(migrated), SCHEMA_VERSION);
  migrated.close();
});
