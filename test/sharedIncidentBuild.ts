// Builds one shared incident (test/sharedIncident.ts) in a process of its own,
// so that what it holds follows from the built code and the inputs alone,
// never from what a test process changed in memory (one test edits the
// profile's release list, ingests change the working directory).
// Arguments: one JSON object, IncidentBuild.

import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { analyzeIncident } from "../analyzer/rules/index.js";
import { ingest } from "../ingest/pipeline.js";
import { openIncident } from "../store/db.js";

export interface IncidentBuild {
  /** The folder to write: ingested.db, incident.db (ingested, then analyzed) and report.json. */
  dir: string;
  cwd: string;
  paths: string[];
  name: string;
}

export const ANALYZED_DB = "incident.db";
export const INGESTED_DB = "ingested.db";
export const REPORT = "report.json";

async function build({ dir, cwd, paths, name }: IncidentBuild): Promise<void> {
  const ingested = join(dir, INGESTED_DB);
  process.chdir(cwd);
  await ingest({ db: ingested, paths });
  checkpoint(ingested);
  const path = join(dir, ANALYZED_DB);
  copyFileSync(ingested, path);
  const db = openIncident(path);
  try {
    writeFileSync(join(dir, REPORT), JSON.stringify(analyzeIncident(db, { name })));
  } finally {
    db.close();
  }
  checkpoint(path);
}

/** Everything into the database file itself, so that a copy of that one file is the whole incident. */
function checkpoint(path: string): void {
  const db = openIncident(path);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

// Run as a program with its argument; imported, or run by node --test (which runs every file under test/), it does nothing.
const arg = process.argv[2];
if (process.argv[1] === fileURLToPath(import.meta.url) && arg !== undefined) await build(JSON.parse(arg) as IncidentBuild);
