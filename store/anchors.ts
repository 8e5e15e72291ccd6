// Clock anchors kept in SQLite rather than in memory: their number grows with
// the rooms and collectives of an incident, and the ingest's memory must not.
// Each scan worker appends its sources' anchors to a scratch database of its
// own (rows tagged with the scanned file, so that duplicates and refused files
// can be left out); the store folds the new sources' rows into the incident's
// `clock_anchors` and derives the bounds between hosts there (ingest/scan/clock.ts).

import Database from "better-sqlite3";
import type { AnchorAgg, UpperBound } from "../domain/clockAnchors.js";
import type { IncidentDb } from "./db.js";

const SCAN_TABLE = `CREATE TABLE IF NOT EXISTS scan_anchors (
  file        INTEGER NOT NULL,
  key         TEXT NOT NULL,
  domain      TEXT NOT NULL,
  rel         TEXT NOT NULL,
  min_before  INTEGER,
  max_before  INTEGER,
  min_after   INTEGER
)`;

const ROWS_PER_INSERT = 128;
/** Values of a scan_anchors row. */
const COLUMNS = 7;

/** A row's values, in SCAN_TABLE's column order, at `at` of a statement's parameters. */
function putRow(params: unknown[], at: number, file: number, a: AnchorAgg): void {
  params[at] = file;
  params[at + 1] = a.key;
  params[at + 2] = a.domain;
  params[at + 3] = a.rel;
  params[at + 4] = a.minBefore;
  params[at + 5] = a.maxBefore;
  params[at + 6] = a.minAfter;
}

/** A scan worker's scratch store of anchors: partial aggregates, appended as they come. */
export class ScanAnchors {
  private readonly db: Database.Database;
  private readonly insertMany: Database.Statement;
  private readonly insertOne: Database.Statement;

  constructor(readonly path: string) {
    this.db = new Database(path);
    this.db.pragma("journal_mode = OFF");
    this.db.pragma("synchronous = OFF");
    this.db.exec(SCAN_TABLE);
    const row = `(${Array(COLUMNS).fill("?").join(", ")})`;
    const insert = "INSERT INTO scan_anchors (file, key, domain, rel, min_before, max_before, min_after) VALUES ";
    this.insertMany = this.db.prepare(insert + Array(ROWS_PER_INSERT).fill(row).join(","));
    this.insertOne = this.db.prepare(insert + row);
  }

  add(file: number, aggs: readonly AnchorAgg[]): void {
    // One parameter array per statement, refilled: a row array per anchor and their flattening
    // would be a large share of the inserts' CPU on a log with hundreds of thousands of anchors.
    const many: unknown[] = new Array(ROWS_PER_INSERT * COLUMNS);
    const one: unknown[] = new Array(COLUMNS);
    this.db.transaction(() => {
      let i = 0;
      for (; i + ROWS_PER_INSERT <= aggs.length; i += ROWS_PER_INSERT) {
        for (let k = 0; k < ROWS_PER_INSERT; k++) putRow(many, k * COLUMNS, file, aggs[i + k]!);
        this.insertMany.run(many);
      }
      for (; i < aggs.length; i++) {
        putRow(one, 0, file, aggs[i]!);
        this.insertOne.run(one);
      }
    })();
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Folds the scanned anchors of `files` into the incident's clock_anchors.
 * `db` has the scan stores attached under the names in `schemas`. `renames`
 * moves a domain the scan gave a source (`src:<path>`) to the host it was
 * given later (ingest/pipeline.ts: a file takes the host of the files beside it).
 */
export function mergeScanAnchors(db: IncidentDb, schemas: readonly string[], files: readonly number[], renames: Record<string, string> = {}): void {
  if (schemas.length === 0) return;
  const rows = schemas.map((s) => `SELECT * FROM ${s}.scan_anchors`).join(" UNION ALL ");
  const domain = "coalesce((SELECT r.value FROM json_each(@renames) r WHERE r.key = domain), domain)";
  db.prepare(
    `INSERT INTO clock_anchors (key, domain, rel, min_before, max_before, min_after)
     SELECT key, ${domain}, rel, MIN(min_before), MAX(max_before), MIN(min_after)
       FROM (${rows}) WHERE file IN (SELECT value FROM json_each(@files)) GROUP BY key, ${domain}
     ON CONFLICT (key, domain) DO UPDATE SET
       min_before = coalesce(min(min_before, excluded.min_before), min_before, excluded.min_before),
       max_before = coalesce(max(max_before, excluded.max_before), max_before, excluded.max_before),
       min_after  = coalesce(min(min_after, excluded.min_after), min_after, excluded.min_after)`,
  ).run({ files: JSON.stringify(files), renames: JSON.stringify(renames) });
}

/** Clock domains named by the incident's anchors. */
export function anchorDomains(db: IncidentDb): string[] {
  return db.prepare("SELECT DISTINCT domain FROM clock_anchors").pluck().all() as string[];
}

/**
 * The tightest upper bound on o[from] - o[to] for every ordered pair of
 * domains, from every key seen on both (ingest/scan/clock.ts gives the rules: an
 * "all" key bounds by its latest before, an "earliest" key by its earliest,
 * and only while its befores are on one host). A cause comes at least 1 us
 * before its effect, so that aligned times never tie a pair the wrong way.
 */
export function anchorBounds(db: IncidentDb): UpperBound[] {
  return db
    .prepare(
      `WITH befores AS (
         SELECT key, rel, domain, min_before, max_before, COUNT(*) OVER (PARTITION BY key) AS hosts
           FROM clock_anchors WHERE min_before IS NOT NULL
       )
       SELECT b.domain AS "from", a.domain AS "to",
              MIN(a.min_after - CASE b.rel WHEN 'all' THEN b.max_before ELSE b.min_before END) - 1 AS c,
              COUNT(*) AS n
         FROM befores b JOIN clock_anchors a ON a.key = b.key AND a.domain <> b.domain AND a.min_after IS NOT NULL
        WHERE b.rel = 'all' OR b.hosts = 1
        GROUP BY b.domain, a.domain`,
    )
    .all() as UpperBound[];
}
