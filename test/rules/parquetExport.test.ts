// `kvrewind export --format parquet` of a fixture incident and of a
// hand-written bundle, read back with DuckDB and compared with what
// `kvrewind query` says of the incident: the events per kind, the rooms
// (19-digit ones exact), the time range of each time quality, every column
// of every event, a row group per stored block, the sources and the
// findings. Then two incidents' exports queried together through a glob,
// with the SQL docs/scale.md shows, run as written there.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EVENTS_TABLE_COLUMNS } from "../../store/eventsTable.js";
import { analysisSchema } from "../../analyzer/rules/analysis.js";
import { storeAnalysis } from "../../analyzer/rules/index.js";
import { openIncident } from "../../store/db.js";
import { bundleInputs, fixtureInputs, incidentCopy, type IncidentInputs } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";
import { Duck, kvrewind, queryRows } from "./parquetRead.js";

const SCALE_DOC = fileURLToPath(new URL("../../../docs/scale.md", import.meta.url));
const INCIDENTS: [string, IncidentInputs][] = [
  ["nixl-abort-wedge", fixtureInputs("nixl-abort-wedge")],
  ["traces-wedge", bundleInputs("traces-wedge")],
];
const ALL_COLUMNS = EVENTS_TABLE_COLUMNS.join(", ");

const duck = await Duck.open();
after(() => duck.close());

/** A copy of the shared incident with its analysis stored (as `kvrewind analyze` leaves it), exported into `out`. */
async function exported(inputs: IncidentInputs, out: string): Promise<string> {
  const { path, report } = await incidentCopy(inputs);
  const db = openIncident(path);
  storeAnalysis(db, analysisSchema.parse(report));
  db.close();
  const r = kvrewind("export", path, "--format", "parquet", "--out", out);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /events\.parquet +[\d,]+ rows in [\d,]+ row groups?, /);
  return path;
}

for (const [name, inputs] of INCIDENTS) {
  test(`${name}: the Parquet export holds what kvrewind query reads of the incident`, async () => {
    const out = scratchDir("kvrewind-parquet-");
    const path = await exported(inputs, out);
    const events = `read_parquet('${out}/events.parquet')`;
    const same = async (parquet: string, sqlite: string, what: string): Promise<unknown[][]> => {
      const rows = await duck.rows(parquet);
      assert.deepEqual(rows, queryRows(path, sqlite), what);
      return rows;
    };

    await same(`SELECT kind, count(*) FROM ${events} GROUP BY kind ORDER BY kind`, "SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind", "events per kind");
    const rooms = await same(
      `SELECT DISTINCT room FROM ${events} WHERE room IS NOT NULL ORDER BY room`,
      "SELECT DISTINCT room FROM events WHERE room IS NOT NULL ORDER BY room",
      "distinct rooms",
    );
    assert.ok(rooms.length > 0, "the incident names rooms");
    const timeRanges = "SELECT ts_inferred, count(*), min(ts_us), max(ts_us) FROM %s GROUP BY ts_inferred ORDER BY ts_inferred NULLS FIRST";
    await same(timeRanges.replace("%s", events), timeRanges.replace("%s", "events"), "the time range of each time quality");
    await same(`SELECT ${ALL_COLUMNS} FROM ${events} ORDER BY seq`, `SELECT ${ALL_COLUMNS} FROM events ORDER BY seq`, "every column of every event");
    await same(
      `SELECT row_group_num_rows FROM parquet_metadata('${out}/events.parquet') GROUP BY row_group_id, row_group_num_rows ORDER BY row_group_id`,
      "SELECT count FROM event_blocks ORDER BY first_seq",
      "a row group per stored block, of its events",
    );
    const sources = queryRows(path, "SELECT id, path, format, status, ranks, events, error_count FROM sources WHERE status != 'ingesting' ORDER BY id");
    assert.deepEqual(
      await duck.rows(`SELECT source_id, path, format, status, ranks, events, error_count FROM read_parquet('${out}/sources.parquet') ORDER BY source_id`),
      sources.map((row) => row.map((v, i) => (i === 4 ? JSON.parse(v as string) : v))),
      "the sources, their ranks a list",
    );
    const findings = await duck.rows(`SELECT id, rule, severity, verdict, witness_seqs FROM read_parquet('${out}/findings.parquet') ORDER BY id`);
    const stored = queryRows(path, "SELECT id, rule, severity, verdict, witness FROM findings ORDER BY id");
    assert.deepEqual(findings, stored.map(([id, rule, severity, verdict, witness]) => [id, rule, severity, verdict, (JSON.parse(witness as string) as number[]).map(String)]));
    assert.ok(findings.length > 0, "the analysis was stored");
    assert.deepEqual(await duck.rows(`SELECT DISTINCT incident FROM ${events}`), [[name]], "the incident column holds the analysis's name");
  });
}

test("a bundle's 19-digit rooms keep every digit, in the events and in the findings", async () => {
  const out = scratchDir("kvrewind-parquet-rooms-");
  await exported(bundleInputs("traces-wedge"), out);
  const room = "8972542885242963296";
  assert.deepEqual(await duck.rows(`SELECT count(*) > 0 FROM read_parquet('${out}/events.parquet') WHERE room = '${room}'`), [[true]]);
  const named = await duck.rows(`SELECT count(*) FROM read_parquet('${out}/findings.parquet') WHERE list_contains(rooms, '${room}')`);
  assert.ok(Number(named[0]![0]) > 0, "a finding lists the room");
});

/** The ```sql blocks of docs/scale.md, reading `exports/<incident>/…`. */
function scaleDocQueries(): string[] {
  return [...readFileSync(SCALE_DOC, "utf8").matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test("two incidents' exports are one table through a glob; docs/scale.md's queries run over them as written", async () => {
  const root = scratchDir("kvrewind-parquet-fleet-");
  const totals: unknown[][] = [];
  for (const [name, inputs] of INCIDENTS) {
    const path = await exported(inputs, join(root, name));
    totals.push([name, ...queryRows(path, "SELECT count(*), count(DISTINCT room) FROM events")[0]!]);
  }
  assert.deepEqual(
    await duck.rows(`SELECT incident, count(*), count(DISTINCT room) FROM read_parquet('${root}/*/events.parquet') GROUP BY incident ORDER BY incident`),
    totals,
  );
  const queries = scaleDocQueries();
  assert.ok(queries.length >= 4, "docs/scale.md shows its questions as SQL");
  for (const sql of queries) {
    assert.ok(sql.includes("'exports/*/"), `reads the exports by a glob: ${sql}`);
    const rows = await duck.rows(sql.replaceAll("'exports/", `'${root}/`));
    assert.ok(rows.length > 0, `rows from: ${sql}`);
  }
});
