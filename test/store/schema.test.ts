import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openIncident, getMeta, schemaVersion } from "../../store/db.js";
import { eventTexts, TextBlockBuilder, TextBlockWriter } from "../../store/eventText.js";
import { registerEventsTable } from "../../store/eventsTable.js";
import { eventsOfRoom, iterateEvents } from "../../store/queries.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../store/schema.js";
import { scratchDir } from "../scratchDir.js";

test("a new incident database is migrated to the current schema and reopens read-only", () => {
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

test("a schema-2 incident (texts in the events rows) migrates: texts move to text blocks, rows and seqs stay", () => {
  const path = join(scratchDir("kvrewind-"), "old.db");
  const raw = new Database(path);
  raw.exec(MIGRATIONS[0] as string);
  raw.exec(MIGRATIONS[1] as string);
  raw.exec("INSERT INTO meta (key, value) VALUES ('schema_version', '2')");
  raw.exec("INSERT INTO sources (id, path, format, sha256, bytes, status, ingested_at) VALUES (1, 'p0/prefill-tp0.log', 'sglang-log', 'a', 1, 'complete', 'x'), (2, 'fr/rank1', 'flight-recorder', 'b', 1, 'complete', 'x')");
  const insert = raw.prepare("INSERT INTO events (seq, ts_us, source_id, line, kind, room, text) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const traceback = "[2026-08-20 10:15:32 TP0] Exception in thread Thread-3 (bootstrap_thread):\nTraceback (most recent call last):\nAssertionError: GUARD";
  // A Flight Recorder dump's events come in time order, not line order, and share lines.
  const rows: [number, number, string, string | null, string][] = [
    [1, 10, "log.unparsed", null, "[2026-08-20 10:15:31 TP0] Load weight begin. avail mem=75.02 GB"],
    [2, 7, "coll.enter", null, '{"record_id": 7}'],
    [1, 11, "boot.thread_died", "8972542885242963296", traceback],
    [2, 3, "coll.enter", null, '{"record_id": 3}'],
    [2, 7, "coll.exit", null, '{"record_id": 7}'],
    [1, 14, "log.unparsed", null, "[2026-08-20 10:15:33 TP0] décodé ✓"],
  ];
  rows.forEach(([source, line, kind, room, text], i) => insert.run(i + 1, 1000 + i, source, line, kind, room, text));
  raw.close();

  const db = openIncident(path);
  assert.equal(schemaVersion(db), SCHEMA_VERSION);
  // Read through the SQL view of the blocks (what `kvrewind query` sees).
  registerEventsTable(db);
  const columns = (db.prepare("PRAGMA table_info(events)").all() as { name: string }[]).map((c) => c.name);
  assert.equal(columns.includes("text"), false);
  const texts = eventTexts(db);
  const read = db.prepare("SELECT seq, source_id AS sourceId, line, kind, room FROM events ORDER BY seq").all() as { seq: number; sourceId: number; line: number; kind: string; room: string | null }[];
  assert.deepEqual(
    read.map((r) => [r.seq, r.kind, r.room, texts.text(r.sourceId, r.line)]),
    rows.map(([, , kind, room, text], i) => [i + 1, kind, room, text]),
  );
  assert.equal(texts.text(1, 12), "", "a line that started no record has no text");
  db.close();
});

test("a schema-3 incident migrates: sources gain their status fields with an exact error count, events their ts_inferred", () => {
  const path = join(scratchDir("kvrewind-"), "v3.db");
  const raw = new Database(path);
  raw.exec(MIGRATIONS[0] as string);
  raw.exec(MIGRATIONS[1] as string);
  raw.exec("INSERT INTO meta (key, value) VALUES ('schema_version', '2')");
  raw.close();
  // Schema 3 is what the third migration makes of schema 2.
  const v3 = new Database(path);
  (MIGRATIONS[2] as (db: Database.Database) => void)(v3);
  v3.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  const errors = JSON.stringify([{ line: 3, message: "not JSON" }, { line: 9, message: "not JSON" }]);
  v3.prepare("INSERT INTO sources (id, path, format, sha256, bytes, errors, status, ingested_at) VALUES (1, 'd0/probe.jsonl', 'probe-jsonl', 'a', 1, ?, 'complete', 'x')").run(errors);
  v3.exec("INSERT INTO events (seq, ts_us, source_id, line, kind) VALUES (1, 1000, 1, 1, 'kv.alloc')");
  v3.close();

  const db = openIncident(path);
  assert.equal(schemaVersion(db), SCHEMA_VERSION);
  const source = db.prepare("SELECT error_count, unparsed_shapes, reason, wrapper, inferred FROM sources WHERE id = 1").get();
  assert.deepEqual(source, { error_count: 2, unparsed_shapes: "[]", reason: null, wrapper: null, inferred: 0 });
  registerEventsTable(db);
  assert.equal(db.prepare("SELECT ts_inferred FROM events WHERE seq = 1").pluck().get(), null);
  db.close();
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

test("a schema-4 incident migrates: its event rows become column blocks, rooms exact, attrs, times and texts kept, the old row cache dropped", () => {
  const path = join(scratchDir("kvrewind-"), "v4.db");
  const raw = new Database(path);
  raw.exec(MIGRATIONS[0] as string);
  raw.exec(MIGRATIONS[1] as string);
  (MIGRATIONS[2] as (db: Database.Database) => void)(raw);
  raw.exec(MIGRATIONS[3] as string);
  raw.exec("INSERT INTO meta (key, value) VALUES ('schema_version', '4'), ('event_columns', '{\"format\":3}')");
  raw.exec("CREATE TABLE event_columns (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL)");
  raw.exec("CREATE INDEX events_room ON events(room, seq) WHERE room IS NOT NULL");
  raw.exec("INSERT INTO sources (id, path, format, sha256, bytes, status, ingested_at) VALUES (1, 'd0/probe.jsonl', 'probe-jsonl', 'a', 1, 'complete', 'x')");
  const room = "8972542885242963296";
  const insert = raw.prepare(
    "INSERT INTO events (seq, ts_us, source_id, line, host, role, tp, kind, room, chunk, page_lo, page_hi, attrs, ts_inferred) VALUES (?, ?, 1, ?, 'd0', 'decode', ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  // More than one block's worth, so that the rows are split between blocks in seq order.
  const n = 5000;
  for (let i = 1; i <= n; i++) {
    const attrs = i % 3 === 0 ? JSON.stringify({ pages: [[i, i + 2], [i + 9, i + 10]], tag: `${room}_kv_0_1_0`, last: i % 2 === 0 }) : null;
    insert.run(i, 1_000_000 + i * 10, i, i % 4, i % 5 === 0 ? "kv.post" : "kv.alloc", i % 5 === 0 ? room : null, i % 5 === 0 ? 1 : null, i, i + 2, attrs, i === 7 ? 1 : null);
  }
  const textWriter = new TextBlockWriter(raw);
  const builder = new TextBlockBuilder(1);
  for (let i = 1; i <= n; i++) {
    const block = builder.add(i, `{"ev": "line ${i}"}`);
    if (block) textWriter.write(block);
  }
  textWriter.write(builder.close()!);
  raw.close();
  // The fourth migration's texts were stored plain: make them so, as a schema-4 kvrewind wrote them.
  const plain = new Database(path);
  const ids = plain.prepare("SELECT id FROM event_text").pluck().all() as number[];
  for (const id of ids) {
    const lines = plain.prepare("SELECT lines FROM event_text WHERE id = ?").pluck().get(id) as Buffer;
    const count = lines.length / 4;
    const text = Array.from({ length: count }, (_, k) => `{"ev": "line ${lines.readUInt32LE(k * 4)}"}`).join("");
    plain.prepare("UPDATE event_text SET text = ? WHERE id = ?").run(Buffer.from(text), id);
  }
  plain.close();

  const db = openIncident(path);
  assert.equal(schemaVersion(db), SCHEMA_VERSION);
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  assert.equal(tables.includes("events"), false);
  assert.equal(tables.includes("event_columns"), false);
  assert.equal(getMeta(db, "event_columns"), undefined);
  assert.deepEqual(db.prepare("SELECT first_seq, last_seq FROM event_blocks ORDER BY first_seq").raw().all(), [[1, 4096], [4097, 5000]]);
  const all = [...iterateEvents(db)];
  assert.equal(all.length, n);
  for (const ev of all) {
    const i = ev.seq;
    assert.equal(ev.tsUs, 1_000_000 + i * 10);
    assert.equal(ev.line, i);
    assert.equal(ev.tp, i % 4);
    assert.equal(ev.room, i % 5 === 0 ? room : null);
    assert.equal(ev.tsInferred, i === 7);
    assert.deepEqual(ev.attrs, i % 3 === 0 ? { pages: [[i, i + 2], [i + 9, i + 10]], tag: `${room}_kv_0_1_0`, last: i % 2 === 0 } : null);
    assert.equal(ev.text, `{"ev": "line ${i}"}`);
  }
  assert.deepEqual(eventsOfRoom(db, room).map((e) => e.seq), all.filter((e) => e.seq % 5 === 0).map((e) => e.seq));
  db.close();
});
