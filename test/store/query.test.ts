// `kvrewind query` and GET /api/incidents/:id/query on a real fixture
// incident: the events virtual table agrees with what the ingest recorded and
// with the store's own readers, a 19-digit room stays exact as text and as an
// integer, the output formats, refusal of anything that writes, and the time
// limit that stops a runaway query.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { openIncident } from "../../store/db.js";
import { formatJson } from "../../store/query/queryFormat.js";
import { runUserQuery } from "../../store/query/userQuery.js";
import { eventsOfRoom } from "../../store/read/events.js";
import { countsByKind, kindsPresent } from "../../store/read/incident.js";
import { listIngestedSources } from "../../store/read/sources.js";
import { scratchDir } from "../scratchDir.js";
import { FIXTURES, fixtureTarGz, getJson, startTestServer, uploadFiles, waitForIncident, type TestServer } from "../ui/serverHarness.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const CLI = KVREWIND_CLI;
/** A room of the healthy fixture (its probe checksum records), beyond a float's 53 bits. */
const ROOM = "3305279000723827798";

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let db: string;
let eventsTotal: number;

before(() => {
  db = join(scratchDir("kvrewind-query-"), "healthy.db");
  const ingested = run(["ingest", join(FIXTURES, "healthy"), "--db", db, "--json"]);
  assert.equal(ingested.status, 0, ingested.stderr);
  eventsTotal = (JSON.parse(ingested.stdout) as { eventsTotal: number }).eventsTotal;
});

/**
 * What `query --json` prints for `sql`, from the command's own query and
 * formatter run in this process: the output of the command itself (a
 * process of its own, then the query's) is tested below, once per form.
 */
function queryJson(sql: string): { columns: string[]; rows: unknown[][]; truncated: boolean; text: string } {
  const text = formatJson(runUserQuery(db, sql, 10_000));
  return { ...(JSON.parse(text) as { columns: string[]; rows: unknown[][]; truncated: boolean }), text };
}

test("the events table holds every event the ingest wrote, by kind and by source", () => {
  assert.deepEqual(queryJson("SELECT COUNT(*) AS n FROM events").rows, [[eventsTotal]]);
  const h = openIncident(db, { readonly: true });
  try {
    const byKind = queryJson("SELECT kind, COUNT(*) AS count FROM events GROUP BY kind ORDER BY count DESC, kind");
    const expected = countsByKind(h).sort((a, b) => b.count - a.count || (a.kind < b.kind ? -1 : 1));
    assert.deepEqual(byKind.rows, expected.map((k) => [k.kind, k.count]));
    // The kinds the blocks' side table names (what `check` reads instead of counting) are exactly the kinds counted.
    assert.deepEqual([...kindsPresent(h)].sort(), expected.map((k) => k.kind).sort());
    // Joined with sources: each source's events as the writer counted them at ingest.
    const bySource = queryJson("SELECT s.path, COUNT(*) FROM events e JOIN sources s ON s.id = e.source_id GROUP BY s.path ORDER BY s.path");
    const sources = listIngestedSources(h).filter((s) => s.events > 0).sort((a, b) => (a.path < b.path ? -1 : 1));
    assert.deepEqual(bySource.rows, sources.map((s) => [s.path, s.events]));
  } finally {
    h.close();
  }
});

test("a 19-digit room stays exact: as text, as an integer in the JSON, and in the table and CSV", () => {
  const r = queryJson(`SELECT room, CAST(room AS INTEGER) AS exact, COUNT(*) AS n FROM events WHERE room = '${ROOM}' GROUP BY room`);
  assert.equal(r.rows.length, 1);
  assert.equal(r.rows[0]![0], ROOM);
  // The integer is written with all its digits (a float would print 3305279000723827700).
  assert.match(r.text, new RegExp(`\\b${ROOM}\\b(?!")`));
  const h = openIncident(db, { readonly: true });
  try {
    assert.equal(r.rows[0]![2], eventsOfRoom(h, ROOM).length);
  } finally {
    h.close();
  }
  const table = run(["query", db, `SELECT CAST(room AS INTEGER) AS exact FROM events WHERE room = '${ROOM}' LIMIT 2`]);
  assert.equal(table.status, 0, table.stderr);
  assert.deepEqual(table.stdout.trimEnd().split("\n"), ["              exact", "-------------------", ROOM, ROOM, "(2 rows)"]);
  const csv = run(["query", db, `SELECT room, kind FROM events WHERE room = '${ROOM}' ORDER BY seq LIMIT 1`, "--csv"]);
  assert.equal(csv.status, 0, csv.stderr);
  assert.match(csv.stdout, new RegExp(`^room,kind\\r\\n${ROOM},[a-z._]+\\r\\n$`));
});

test("statements that write are refused (exit 2) and change nothing; a bad statement names SQLite's complaint", () => {
  for (const sql of ["DELETE FROM sources", "CREATE TABLE t (x)", "INSERT INTO meta (key, value) VALUES ('a', 'b')", "DROP TABLE findings"]) {
    const r = run(["query", db, sql]);
    assert.equal(r.status, 2, sql);
    assert.match(r.stderr, /only a read-only statement|readonly|read-only/, sql);
  }
  assert.deepEqual(queryJson("SELECT COUNT(*) FROM meta WHERE key = 'a'").rows, [[0]]);
  assert.ok((queryJson("SELECT COUNT(*) FROM sources").rows[0]![0] as number) > 0);
  const bad = run(["query", db, "SELEC kind FROM events"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /syntax error/);
});

test("a runaway query is stopped at its time limit", () => {
  const r = run(["query", db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c", "--timeout-ms", "300"]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /stopped after 300 ms/);
});

test("--max-rows keeps the first rows and says more matched", () => {
  const r = run(["query", db, "SELECT seq FROM events ORDER BY seq", "--json", "--max-rows", "3"]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { columns: ["seq"], rows: [[1], [2], [3]], truncated: true });
});

let server: TestServer | undefined;
after(async () => {
  await server?.close();
});

test("the server runs the same read-only query, with the room exact, and refuses a write with 400", async () => {
  const sql = `SELECT room, CAST(room AS INTEGER) AS exact, COUNT(*) AS n FROM events WHERE room = '${ROOM}' GROUP BY room`;
  // Run before the server starts: the CLI blocks this process, which would let the server's idle
  // keep-alive timer close the fetch's socket under it.
  const expected = queryJson(sql).rows[0]![2];
  server = await startTestServer();
  const up = await uploadFiles(server, [{ name: "healthy.tar.gz", content: await fixtureTarGz("healthy") }]);
  assert.equal(up.status, 202);
  assert.equal((await waitForIncident(server, "healthy"))["status"], "ready");
  const ok = await getJson(server, `/api/incidents/healthy/query?sql=${encodeURIComponent(sql)}`);
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.body["columns"], ["room", "exact", "n"]);
  assert.equal((ok.body["rows"] as unknown[][])[0]![0], ROOM);
  assert.match(ok.text, new RegExp(`\\b${ROOM}\\b(?!")`));
  assert.deepEqual((ok.body["rows"] as unknown[][])[0]![2], expected);
  const refused = await getJson(server, `/api/incidents/healthy/query?sql=${encodeURIComponent("DELETE FROM findings")}`);
  assert.equal(refused.status, 400);
  assert.match(String(refused.body["error"]), /read-only/);
  const stopped = await getJson(server, `/api/incidents/healthy/query?timeoutMs=300&sql=${encodeURIComponent("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c")}`);
  assert.equal(stopped.status, 400);
  assert.match(String(stopped.body["error"]), /stopped after 300 ms/);
});
