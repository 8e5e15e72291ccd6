// Builds the shared incidents (test/sharedIncident.ts) in a process of its own,
// so that what they hold follows from the built code and the inputs alone,
// never from what a test process changed in memory (one test edits the
// profile's release list, ingests change the working directory). One such
// process serves every build of a test process, one build at a time, so that
// the built modules load once per test process rather than once per incident.
// Messages: a BuildRequest in, a BuildResult out.

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

export interface BuildRequest {
  id: number;
  build: IncidentBuild;
}

export interface BuildResult {
  id: number;
  /** Absent when the build succeeded. */
  error?: string;
}

/** Answers each request once its build is done; builds run one after another, as they arrive. */
function serve(): void {
  let queue: Promise<void> = Promise.resolve();
  process.on("message", (request: BuildRequest) => {
    queue = queue.then(async () => {
      const result: BuildResult = { id: request.id };
      try {
        await build(request.build);
      } catch (err) {
        result.error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      }
      process.send!(result);
    });
  });
  // The test process that forked it has ended.
  process.on("disconnect", () => process.exit(0));
}

// Forked with an IPC channel it serves; imported, or run by node --test (which runs every file under test/), it does nothing.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) serve();
