// The incident database: one SQLite file per incident (DESIGN.md "Canonical
// store"). Migrations only move forward; `meta.schema_version` says where a
// file stands.

import type { IncidentDb } from "./db.js";
import { EVENT_TEXT_TABLE } from "./eventText.js";
import { moveEventsIntoBlocks } from "./blocks/blockMigration.js";
import { moveTextOutOfEvents } from "./textMigration.js";
import { PAGES_TABLE } from "./pages.js";
import { TIMELINE_TABLE } from "./timelineColumns.js";

export const SCHEMA_VERSION = 8;

/** Each entry upgrades a database from version `index` to `index + 1`: SQL, or a step that needs code. */
export const MIGRATIONS: readonly (string | ((db: IncidentDb) => void))[] = [
  `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  -- One row per input file. status: 'ingesting' until the last event of the
  -- file is written, then 'complete'. An ingest is one transaction, so a
  -- crash rolls the whole ingest back; readers still list only 'complete'.
  CREATE TABLE sources (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL,
    format        TEXT NOT NULL,
    host          TEXT,
    role          TEXT,
    ranks         TEXT NOT NULL DEFAULT '[]',   -- JSON array like ["decode/tp3"]
    sha256        TEXT NOT NULL,
    bytes         INTEGER NOT NULL,
    lines         INTEGER NOT NULL DEFAULT 0,
    events        INTEGER NOT NULL DEFAULT 0,
    unparsed      INTEGER NOT NULL DEFAULT 0,
    errors        TEXT NOT NULL DEFAULT '[]',   -- JSON array of {line, message}
    first_ts_us   INTEGER,
    last_ts_us    INTEGER,
    status        TEXT NOT NULL DEFAULT 'ingesting',
    ingested_at   TEXT NOT NULL
  );
  CREATE UNIQUE INDEX sources_sha256 ON sources(sha256) WHERE status = 'complete';

  CREATE TABLE events (
    seq INTEGER PRIMARY KEY, ts_us INTEGER NOT NULL, source_id INTEGER NOT NULL, line INTEGER NOT NULL,
    host TEXT, role TEXT, dp INTEGER, pp INTEGER, tp INTEGER, kind TEXT NOT NULL, room TEXT, rid TEXT,
    chunk INTEGER, layer INTEGER, page_lo INTEGER, page_hi INTEGER, state INTEGER, attrs TEXT,
    text TEXT NOT NULL
  );

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
  `,
  `
  -- Causal anchors for clock alignment (ingest/scan/clock.ts), aggregated per key
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
  `,
  (db) => {
    db.exec(EVENT_TEXT_TABLE);
    moveTextOutOfEvents(db);
  },
  `
  ALTER TABLE events ADD COLUMN ts_inferred INTEGER;
  -- Every input of an ingest has a row: status 'complete' (ingested), 'skipped' or 'refused' (with
  -- reason). error_count is exact; errors keeps a sample. unparsed_shapes: JSON array of
  -- {shape, count, line, example} for the lines kept as log.unparsed. time_origin says where the
  -- times of undated lines (and the year of glog lines) came from.
  ALTER TABLE sources ADD COLUMN reason TEXT;
  ALTER TABLE sources ADD COLUMN wrapper TEXT;
  ALTER TABLE sources ADD COLUMN error_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sources ADD COLUMN unparsed_shapes TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE sources ADD COLUMN inferred INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sources ADD COLUMN time_origin TEXT;
  UPDATE sources SET error_count = json_array_length(errors);
  `,
  // The events leave their table for column blocks (store/blocks/).
  moveEventsIntoBlocks,
  PAGES_TABLE,
  // A file of page bytes (ingest/inputs/pageDumps.ts) is a source too: pages counts what was read from it.
  "ALTER TABLE sources ADD COLUMN pages INTEGER NOT NULL DEFAULT 0;",
  // The web UI's timeline, built once into the incident (ui/server/timeline-store.ts).
  TIMELINE_TABLE,
];
