// What happens to an uploaded incident in the background: ingest every file
// of its input folder, then analyze (replay + rules) and store the findings.
// Runs in a child process (pipeline-main.ts) whose working directory is the
// input folder, so sources are named by their path inside the upload
// ("p0/prefill-tp0.log"), which is also where host and role are read from.

import { basename } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { InputError } from "../../ingest/identity.js";
import { openIncident } from "../../ingest/store/db.js";
import { analyzeIncident, storeAnalysis } from "../../analyzer/rules/index.js";
import { writeTimelineIndex } from "./timeline-index.js";

export interface PipelineInput {
  /** Absolute path of the incident database. */
  dbPath: string;
  /** Where the timeline index is cached (see Registry.timeline). */
  indexPath: string;
  /** The incident's name in reports. */
  name: string;
}

export type PipelineMessage =
  | { type: "progress"; phase: "ingest" | "analyze" | "index"; done: number; total: number }
  | { type: "done"; warnings: string[] }
  | { type: "error"; message: string };

/** Ingests the current directory into the database and analyzes it; throws when nothing could be ingested. */
export async function runPipeline(input: PipelineInput, report: (msg: PipelineMessage) => void): Promise<string[]> {
  const summary = await ingest({
    db: input.dbPath,
    paths: ["."],
    onProgress: (p) => report({ type: "progress", phase: "ingest", done: p.done, total: p.total }),
  }).catch((e: unknown) => {
    throw e instanceof InputError ? new Error(`no events could be read from the upload: ${e.message}`) : e;
  });
  const notIngested = summary.sources.filter((s) => s.status === "refused" || s.status === "skipped");
  const warnings = notIngested.map((s) => `${s.path}: ${s.reason ?? s.status}`);
  if (summary.eventsTotal === 0) {
    throw new Error(`no events could be read from the upload${warnings.length ? ` (${warnings.join("; ")})` : ""}`);
  }
  report({ type: "progress", phase: "analyze", done: 0, total: 0 });
  const db = openIncident(input.dbPath);
  try {
    storeAnalysis(db, analyzeIncident(db, { name: input.name || basename(input.dbPath) }));
    // The timeline index too, so that a ready incident opens at once.
    report({ type: "progress", phase: "index", done: 0, total: 0 });
    writeTimelineIndex(db, input.indexPath);
  } finally {
    db.close();
  }
  return warnings;
}
