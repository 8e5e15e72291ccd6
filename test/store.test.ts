import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openIncident, getMeta, schemaVersion } from "../ingest/store/db.js";
import { SCHEMA_VERSION } from "../ingest/store/schema.js";

test("a new incident database is migrated to the current schema and reopens read-only", () => {
  const path = join(mkdtempSync(join(tmpdir(), "kvrewind-")), "incident.db");
  const db = openIncident(path);
  assert.equal(schemaVersion(db), SCHEMA_VERSION);
  assert.equal(getMeta(db, "schema_version"), String(SCHEMA_VERSION));
  assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
  db.close();
  const ro = openIncident(path, { readonly: true });
  assert.equal(schemaVersion(ro), SCHEMA_VERSION);
  ro.close();
});
