// The events table builds only the columns a statement names
// (query/columnsRead.ts). What a statement can read is decided from its text,
// so the test is that no statement's result changes: each one is run both on
// a connection that builds every column and through `runUserQuery`, over
// incidents whose attributes cover every value kind (numbers, strings, page
// hulls, nested lists, booleans, nulls). The attributes' JSON text is written
// straight from the blocks' value stream: it must equal JSON.stringify of the
// attributes for every event.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { openIncident } from "../../store/db.js";
import { EventReader } from "../../store/blocks/eventCursor.js";
import { EVENTS_TABLE_COLUMNS, registerEventsTable } from "../../store/eventsTable.js";
import { eventsColumnsRead } from "../../store/query/columnsRead.js";
import { runUserQuery } from "../../store/query/userQuery.js";
import { bundleInputs, fixtureInputs, ingestedIncident } from "../sharedIncident.js";

const INPUTS = [...["hicache-indexk-race", "checksum-evidence", "nixl-abort-wedge"].map(fixtureInputs), bundleInputs("k8s-mooncake-pod-logs")];

const dbs: string[] = [];

before(async () => {
  for (const inputs of INPUTS) dbs.push(await ingestedIncident(inputs));
});

test("a statement reads the columns it names, in any case or quoting; literals and comments name none", () => {
  const read = (sql: string): string[] => [...eventsColumnsRead(sql)].sort();
  assert.deepEqual(read("SELECT count(*) FROM events"), []);
  assert.deepEqual(read("SELECT COUNT( * ) AS n FROM events"), []);
  assert.deepEqual(read("SELECT kind, COUNT(*) AS n FROM events GROUP BY kind ORDER BY n DESC"), ["kind"]);
  assert.deepEqual(read(`SELECT "Room", [TS_US], \`page_lo\` FROM events WHERE Seq > 10`), ["page_lo", "room", "seq", "ts_us"]);
  assert.deepEqual(read("SELECT seq FROM events WHERE kind = 'attrs' -- attrs\n/* host, rid */"), ["kind", "seq"]);
  assert.deepEqual(read("SELECT s.path, COUNT(*) FROM events e JOIN sources s ON s.id = e.source_id GROUP BY s.path"), ["source_id"]);
  assert.deepEqual(read("SELECT json_extract(attrs, '$.error') FROM events WHERE state IS NOT NULL"), ["attrs", "state"]);
  const all = [...EVENTS_TABLE_COLUMNS].sort();
  assert.deepEqual(read("SELECT * FROM events WHERE seq = 5"), all);
  assert.deepEqual(read("SELECT e.* FROM events e LIMIT 1"), all);
  assert.deepEqual(read("SELECT count(*) FROM events NATURAL JOIN sources"), all);
  assert.deepEqual(read("SELECT seq * 2 FROM events"), all, "a * it cannot tell from a column list reads them all");
});

test("every statement gives the same rows whether the table builds every column or only those named", () => {
  const statements = [
    "SELECT count(*) FROM events",
    "SELECT kind, COUNT(*) AS n FROM events GROUP BY kind ORDER BY n DESC, kind",
    "SELECT * FROM events ORDER BY seq",
    "SELECT seq, attrs FROM events WHERE attrs IS NOT NULL ORDER BY seq",
    "SELECT json_extract(attrs, '$.pages') AS pages, page_lo, page_hi FROM events WHERE page_lo IS NOT NULL ORDER BY seq LIMIT 200",
    "SELECT s.path, COUNT(*) FROM events e JOIN sources s ON s.id = e.source_id GROUP BY s.path ORDER BY s.path",
    "WITH r AS (SELECT * FROM events WHERE room IS NOT NULL) SELECT room, min(seq), max(ts_us) FROM r GROUP BY room ORDER BY room",
    "SELECT host, role, dp, pp, tp, count(*) FROM events GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5",
    "SELECT line, \"SOURCE_ID\", ts_inferred FROM events WHERE rid IS NOT NULL OR chunk IS NOT NULL OR layer IS NOT NULL ORDER BY seq",
  ];
  for (const path of dbs) {
    const full = openIncident(path, { readonly: true });
    registerEventsTable(full);
    try {
      for (const sql of statements) {
        const expected = full.prepare(sql).safeIntegers(true).raw(true).all();
        const got = runUserQuery(path, sql, 1_000_000);
        assert.equal(got.truncated, false);
        assert.deepEqual(got.rows, expected, `${path}: ${sql}`);
      }
      const events = Number(full.prepare("SELECT count(seq) FROM events").pluck().get());
      assert.ok(events > 20, `${path} holds events`);
    } finally {
      full.close();
    }
  }
});

test("each event's attributes as JSON text are exactly JSON.stringify of its attributes", () => {
  let withAttrs = 0;
  for (const path of dbs) {
    const db = openIncident(path, { readonly: true });
    try {
      const reader = new EventReader(db);
      reader.forEach(0, Number.MAX_SAFE_INTEGER, (ev) => {
        const text = ev.attrsJson;
        const attrs = ev.attrs;
        assert.equal(text, attrs === null ? null : JSON.stringify(attrs), `${path} seq ${ev.seq}`);
        if (attrs !== null) withAttrs++;
      });
    } finally {
      db.close();
    }
  }
  assert.ok(withAttrs > 1000, `${withAttrs} events with attributes compared`);
});
