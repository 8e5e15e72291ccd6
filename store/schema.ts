// The incident database: one SQLite file per incident (DESIGN.md "Canonical
// store"). Before 1.0 there is one current schema: a file written under
// another is not migrated but refused (store/db.ts), and rebuilt from its
// original logs. Bump SCHEMA_VERSION whenever the tables or the meaning of
// what they hold change.

import { EVENT_TEXT_TABLE } from "./eventText.js";
import { createBlockTables, LIVE_TABLES } from "./blocks/blockTables.js";
import { PAGES_TABLE } from "./pages.js";
import { TIMELINE_TABLE } from "./writeDerived.js";

export const SCHEMA_VERSION = 10;

const CORE_TABLES = `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  -- Every input of an ingest has a row. status: 'ingesting' until the last
  -- event of the file is written, then 'complete'; or 'skipped' / 'refused'
  -- with the reason. An ingest is one transaction, so a crash rolls the whole
  -- ingest back; readers list only 'complete'. error_count is exact, errors
  -- keeps a sample (JSON array of {line, message}); unparsed_shapes is a JSON
  -- array of {shape, count, line, example} for the lines kept as log.unparsed;
  -- time_origin says where the times of undated lines (and the year of glog
  -- lines) came from; pages counts what was read from a file of page bytes.
  -- stream is the live file a rotated part was cut from (its own path for a
  -- file that is no rotated part): the parts of one stream are one writer's
  -- record. The same content again under the same path is the same source;
  -- under another path (identical per-rank files) it is a source of its own.
  CREATE TABLE sources (
    id              INTEGER PRIMARY KEY,
    path            TEXT NOT NULL,
    format          TEXT NOT NULL,
    host            TEXT,
    role            TEXT,
    ranks           TEXT NOT NULL DEFAULT '[]',   -- JSON array like ["decode/tp3"]
    sha256          TEXT NOT NULL,
    bytes           INTEGER NOT NULL,
    lines           INTEGER NOT NULL DEFAULT 0,
    events          INTEGER NOT NULL DEFAULT 0,
    unparsed        INTEGER NOT NULL DEFAULT 0,
    errors          TEXT NOT NULL DEFAULT '[]',
    first_ts_us     INTEGER,
    last_ts_us      INTEGER,
    status          TEXT NOT NULL DEFAULT 'ingesting',
    ingested_at     TEXT NOT NULL,
    reason          TEXT,
    wrapper         TEXT,
    error_count     INTEGER NOT NULL DEFAULT 0,
    unparsed_shapes TEXT NOT NULL DEFAULT '[]',
    inferred        INTEGER NOT NULL DEFAULT 0,
    time_origin     TEXT,
    pages           INTEGER NOT NULL DEFAULT 0,
    stream          TEXT NOT NULL
  );
  CREATE UNIQUE INDEX sources_path_sha256 ON sources(path, sha256) WHERE status = 'complete';

  CREATE TABLE findings (
    id           TEXT PRIMARY KEY,
    rule         TEXT NOT NULL,
    severity     TEXT NOT NULL,
    verdict      TEXT NOT NULL,
    title        TEXT NOT NULL,
    room         TEXT,
    ranks        TEXT NOT NULL DEFAULT '[]',
    ts_us        INTEGER,
    witness      TEXT NOT NULL DEFAULT '[]',  -- JSON array of event seqs
    body         TEXT NOT NULL                -- the whole finding as JSON (DESIGN.md contract)
  );

  CREATE TABLE suspects (
    rank        INTEGER PRIMARY KEY,
    cause       TEXT NOT NULL,
    confidence  REAL NOT NULL,
    body        TEXT NOT NULL
  );

  -- Serialized model state after the event 'seq' has been applied.
  CREATE TABLE snapshots (
    seq    INTEGER PRIMARY KEY,
    state  BLOB NOT NULL
  );

  -- Causal anchors for clock alignment (ingest/sources/clock.ts), aggregated per key
  -- and clock domain, kept so that a later ingest into the same incident
  -- re-estimates the offsets from all its sources.
  CREATE TABLE clock_anchors (
    key         TEXT NOT NULL,
    domain      TEXT NOT NULL,
    rel         TEXT NOT NULL,
    min_before  INTEGER,
    max_before  INTEGER,
    min_after   INTEGER,
    PRIMARY KEY (key, domain)
  ) WITHOUT ROWID;
`;

/** The whole current schema, as one script for an empty file. */
export const CURRENT_SCHEMA = [CORE_TABLES, EVENT_TEXT_TABLE, createBlockTables(LIVE_TABLES), PAGES_TABLE, TIMELINE_TABLE].join("\n");
