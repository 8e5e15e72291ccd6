// What happens to an uploaded incident in the background: ingest every file
// of its input folder, derive what readers read (analyzer/derive.ts: signs and
// snapshots), analyze (the derive step's replay + rules) and store the
// findings — the job says so ("analyzed"), and the page shows the suspects
// from then on — and last store the timeline, which a big incident's job has
// read on a second thread meanwhile (docs/usage.md "While an incident is
// analyzed").
// Runs in a child process (pipeline-main.ts) whose working directory is the
// input folder, so sources are named by their path inside the upload
// ("p0/prefill-tp0.log"), which is also where host and role are read from.

import { basename } from "node:path";
import { ingest, type IngestProgress } from "../../ingest/pipeline.js";
import { InputError } from "../../ingest/inputs/pathIdentity.js";
import { openIncident } from "../../store/db.js";
import { analyzeIncident, storeAnalysis } from "../../analyzer/rules/index.js";
import { beginTimeline, deriveReplay, replayFor } from "../../analyzer/derive.js";

export interface PipelineInput {
  /** Absolute path of the incident database. */
  dbPath: string;
  /** The incident's name in reports. */
  name: string;
  /** Most bytes the upload may unpack to: its archives, which the server unpacked on upload, and its compressed files, which the ingest unpacks. */
  maxUnpackedBytes?: number;
  /** What the upload's archives unpacked to on upload, counted against `maxUnpackedBytes`. */
  unpackedBefore?: number;
}

/**
 * Where a job stands, as the incident list shows it: the phase, what it is
 * doing, and for the ingest one percentage over its two steps (the load
 * counts bytes parsed, the store rows written), so the figure only grows.
 */
export interface JobProgress {
  phase: "ingest" | "analyze";
  step: string;
  /** 0..100, or null where the step has no measure. */
  percent: number | null;
}

/** The share of the ingest each step takes (the load reads and parses everything; the store merges and writes the rows). */
const INGEST_STEPS: Record<IngestProgress["phase"], { from: number; to: number; label: string }> = {
  load: { from: 0, to: 60, label: "loading" },
  store: { from: 60, to: 100, label: "storing" },
};

export function ingestProgress(p: IngestProgress): JobProgress {
  const step = INGEST_STEPS[p.phase];
  const part = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  return { phase: "ingest", step: step.label, percent: Math.floor(step.from + (step.to - step.from) * part) };
}

export type PipelineMessage =
  | { type: "progress"; progress: JobProgress }
  /** The findings and suspects are stored; the timeline is not indexed yet. */
  | { type: "analyzed" }
  | { type: "done"; warnings: string[] }
  | { type: "error"; message: string };

/** Ingests the current directory into the database and analyzes it; throws when nothing could be ingested. */
export async function runPipeline(input: PipelineInput, report: (msg: PipelineMessage) => void): Promise<string[]> {
  const summary = await ingest({
    db: input.dbPath,
    paths: ["."],
    ...(input.maxUnpackedBytes !== undefined && { maxUnpackedBytes: input.maxUnpackedBytes }),
    ...(input.unpackedBefore !== undefined && { unpackedBefore: input.unpackedBefore }),
    onProgress: (p) => report({ type: "progress", progress: ingestProgress(p) }),
  }).catch((e: unknown) => {
    throw e instanceof InputError ? new Error(`no events could be read from the upload: ${e.message}`) : e;
  });
  const notIngested = summary.sources.filter((s) => s.status === "refused" || s.status === "skipped");
  const warnings = notIngested.map((s) => `${s.path}: ${s.reason ?? s.status}`);
  if (summary.eventsTotal === 0) {
    throw new Error(`no events could be read from the upload${warnings.length ? ` (${warnings.join("; ")})` : ""}`);
  }
  report({ type: "progress", progress: { phase: "analyze", step: "replaying", percent: null } });
  const db = openIncident(input.dbPath);
  try {
    const timeline = beginTimeline(db);
    const replayed = replayFor(timeline, () => deriveReplay(db));
    report({ type: "progress", progress: { phase: "analyze", step: "checking", percent: null } });
    storeAnalysis(db, analyzeIncident(db, { name: input.name || basename(input.dbPath), ...(replayed && { replayed }) }));
    report({ type: "analyzed" });
    report({ type: "progress", progress: { phase: "analyze", step: "indexing the timeline", percent: null } });
    await timeline.storeLater();
  } finally {
    db.close();
  }
  return warnings;
}
