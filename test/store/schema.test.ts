// One current schema (store/schema.ts): a new file gets it; a file of any
// other schema, or a SQLite file of something else, is refused with a message
// that names it and says how to rebuild it, and is left byte for byte as it was.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { ingest } from "../../ingest/pipeline.js";
import { getMeta, IncidentSchemaError, openIncident, schemaVersion } from "../../store/db.js";
import { eventTexts, TextBlockBuilder, TextBlockWriter } from "../../store/eventText.js";
import { SCHEMA_VERSION } from "../../store/schema.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const BUNDLE = fileURLToPath(new URL("../../../test/bundles/healthy-no-probe/", import.meta.url));

function kvrewind(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

test("a new incident database gets the current schema and reopens read-only", () => {
  const path = join(scratchDir("kvrewind-"), "incident.db");
  const db = openIncident(path);
  assert.equal(schemaVersion(db), SCHEMA_VERSION);
  assert.equal(getMeta(db, "schema_version"), String(SCHEMA_VERSION));
  assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
  db.close();
  const ro = openIncident(path, { readonly: true });
  assert.equal(schemaVersion(ro), SCHEMA_VERSION);
  ro.close();
});

/** A schema-2 file as kvrewind 0.1.0 wrote it: the events in rows, each with its raw text. */
function schema2File(path: string): void {
  const raw = new Database(path);
  raw.exec(`
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE sources (id INTEGER PRIMARY KEY, path TEXT NOT NULL, format TEXT NOT NULL, host TEXT, role TEXT,
      ranks TEXT NOT NULL DEFAULT '[]', sha256 TEXT NOT NULL, bytes INTEGER NOT NULL, lines INTEGER NOT NULL DEFAULT 0,
      events INTEGER NOT NULL DEFAULT 0, unparsed INTEGER NOT NULL DEFAULT 0, errors TEXT NOT NULL DEFAULT '[]',
      first_ts_us INTEGER, last_ts_us INTEGER, status TEXT NOT NULL DEFAULT 'ingesting', ingested_at TEXT NOT NULL);
    CREATE TABLE events (seq INTEGER PRIMARY KEY, ts_us INTEGER NOT NULL, source_id INTEGER NOT NULL, line INTEGER NOT NULL,
      host TEXT, role TEXT, dp INTEGER, pp INTEGER, tp INTEGER, kind TEXT NOT NULL, room TEXT, rid TEXT, chunk INTEGER,
      layer INTEGER, page_lo INTEGER, page_hi INTEGER, state INTEGER, attrs TEXT, text TEXT NOT NULL);
    INSERT INTO meta (key, value) VALUES ('schema_version', '2');
    INSERT INTO sources (id, path, format, sha256, bytes, status, ingested_at) VALUES (1, 'p0/prefill-tp0.log', 'sglang-log', 'a', 1, 'complete', '2026-06-20T14:00:00Z');
    INSERT INTO events (seq, ts_us, source_id, line, kind, text)
      VALUES (1, 1781964000000000, 1, 1, 'log.unparsed', '[2026-06-20 14:00:00 TP0] Load weight begin. avail mem=75.02 GB');
  `);
  raw.close();
}

/** The last schema before this one: a real ingest, its meta saying 8, left in rollback-journal mode (no -wal or -shm files). */
async function schema8File(path: string): Promise<void> {
  await ingest({ db: path, paths: [BUNDLE] });
  const raw = new Database(path);
  raw.exec("UPDATE meta SET value = '8' WHERE key = 'schema_version'");
  raw.pragma("journal_mode = DELETE");
  raw.close();
}

test("an incident file of an older schema is refused, not migrated: the message names it and says to re-ingest, the file is unchanged", async () => {
  const dir = scratchDir("kvrewind-old-");
  const v2 = join(dir, "v2.db");
  const v8 = join(dir, "v8.db");
  schema2File(v2);
  await schema8File(v8);
  for (const [path, found] of [[v2, 2], [v8, 8]] as const) {
    const before = sha256(path);
    for (const readonly of [true, false]) {
      assert.throws(
        () => openIncident(path, { readonly }),
        (e: unknown) => e instanceof IncidentSchemaError && e.found === found && e.message.startsWith(`${path}: written by an older kvrewind (incident schema ${found}; this kvrewind reads schema ${SCHEMA_VERSION})`),
      );
    }
    const commands = [
      ["analyze", path, "--json"],
      ["replay", path, "--at", "1"],
      ["query", path, "SELECT COUNT(*) FROM sources"],
      ["export", path, "--format", "chrome-json"],
      ["ingest", BUNDLE, "--db", path],
    ];
    for (const args of commands) {
      const run = kvrewind(...args);
      assert.equal(run.code, 2, `${args[0]}: ${run.err}`);
      assert.equal(run.out, "", args[0]);
      assert.ok(run.err.startsWith(`kvrewind: ${path}: written by an older kvrewind (incident schema ${found};`), `${args[0]}: ${run.err}`);
      assert.match(run.err, /not migrated before 1\.0.*Rebuild it by ingesting the original logs again: kvrewind ingest <logs\.\.\.> --db <new file>$/m, args[0]);
    }
    assert.equal(sha256(path), before, "the file is left byte for byte as it was");
  }
  assert.deepEqual(readdirSync(dir).sort(), ["v2.db", "v8.db"], "no journal or WAL file was made beside them");
});

test("a file of a newer schema and a SQLite file of something else are refused the same way", async () => {
  const dir = scratchDir("kvrewind-other-");
  const newer = join(dir, "newer.db");
  await schema8File(newer);
  const raw = new Database(newer);
  raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1));
  raw.close();
  const foreign = join(dir, "foreign.db");
  const other = new Database(foreign);
  other.exec("CREATE TABLE recipes (name TEXT)");
  other.close();
  const copy = join(dir, "foreign-before.db");
  copyFileSync(foreign, copy);

  assert.throws(() => openIncident(newer, { readonly: true }), /newer\.db: written by a newer kvrewind \(incident schema \d+;/);
  const analyzed = kvrewind("analyze", newer);
  assert.equal(analyzed.code, 2);
  assert.match(analyzed.err, /written by a newer kvrewind/);
  assert.throws(() => openIncident(foreign), /foreign\.db: not a kvrewind incident file/);
  assert.equal(sha256(foreign), sha256(copy));
});

test("text blocks: many blocks per source, lines out of order, shared lines, multi-byte text", () => {
  const path = join(scratchDir("kvrewind-"), "texts.db");
  const db = openIncident(path);
  const writer = new TextBlockWriter(db);
  const builder = new TextBlockBuilder(5);
  const expected = new Map<number, string>();
  // Out of order within blocks (a time-ordered dump), each line seen twice in a row.
  const lines = Array.from({ length: 3000 }, (_, i) => (i * 7919) % 3001 + 1);
  for (const line of lines) {
    const text = `entry ${line} ${"é".repeat(line % 40)}${"x".repeat(line % 90)}`;
    expected.set(line, text);
    for (const block of [builder.add(line, text), builder.add(line, text)]) if (block) writer.write(block);
  }
  const last = builder.close();
  if (last) writer.write(last);
  const blocks = db.prepare("SELECT COUNT(*) FROM event_text WHERE source_id = 5").pluck().get() as number;
  assert.ok(blocks > 3, `${blocks} blocks`);
  const texts = eventTexts(db);
  for (const [line, text] of expected) assert.equal(texts.text(5, line), text);
  assert.equal(texts.text(5, 99_999), "");
  assert.equal(texts.text(6, 1), "");
  db.close();
});
