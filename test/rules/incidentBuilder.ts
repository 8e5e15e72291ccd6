// Builds a real incident database for rule tests: the files are written into
// a temporary bundle directory and ingested by the real pipeline (format
// detection, host and role from content or path, parsing, clock alignment,
// the store writer). Paths are given relative to the bundle, so sources are
// stored as "d0/decode-tp0.log", as a user's bundle would be.

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { scratchDir } from "../scratchDir.js";

export interface SourceFile {
  /** Path inside the bundle, like "d0/decode-tp0.log". */
  path: string;
  text: string;
}

export async function buildIncident(files: readonly SourceFile[]): Promise<IncidentDb> {
  const root = scratchDir("kvrewind-rules-");
  const bundle = join(root, "bundle");
  for (const f of files) {
    mkdirSync(dirname(join(bundle, f.path)), { recursive: true });
    writeFileSync(join(bundle, f.path), f.text);
  }
  const db = join(root, "incident.db");
  const cwd = process.cwd();
  process.chdir(bundle);
  try {
    await ingest({ db, paths: files.map((f) => f.path) });
  } finally {
    process.chdir(cwd);
  }
  return openIncident(db);
}
