// An incident as the data directory records it (incident.json) and as the
// API answers with it: one zod schema, read at the boundary where
// incident.json is loaded (registry.ts), and the type the server and the
// page (ui/web, a type-only import) both use.

import { z } from "zod";

export const IncidentStatus = z.enum(["receiving", "queued", "ingesting", "analyzing", "ready", "failed"]);
export type IncidentStatus = z.infer<typeof IncidentStatus>;

export const IncidentSummary = z.object({
  events: z.number(),
  sources: z.number(),
  ranks: z.array(z.string()),
  firstTsUs: z.number().nullable(),
  lastTsUs: z.number().nullable(),
  findings: z.record(z.string(), z.number()),
  topSuspect: z.object({ cause: z.string(), confidence: z.number(), summary: z.string() }).nullable(),
});
export type IncidentSummary = z.infer<typeof IncidentSummary>;

export const IncidentRecord = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  status: IncidentStatus,
  error: z.string().optional(),
  /** Where a running job stands (pipeline.ts JobProgress). */
  progress: z.object({ phase: z.string(), step: z.string(), percent: z.number().nullable() }).optional().catch(undefined),
  /** The running job has stored its findings and suspects (the timeline may not be indexed yet); false from the job's start until then. */
  findingsReady: z.boolean().optional(),
  inputBytes: z.number(),
  inputFiles: z.number(),
  /** What the upload's archives unpacked to on upload: the job's compressed files may unpack to the rest of the limit. */
  unpackedBytes: z.number().optional(),
  /** A fingerprint of the inputs an incident was built from (the demo skips rebuilding an unchanged one). */
  inputKey: z.string().optional(),
  summary: IncidentSummary.optional(),
  /** What the upload and the ingest could not take as given: renamed duplicates, inputs not ingested, each with the reason. */
  warnings: z.array(z.string()).optional(),
  /** The upload's own part of `warnings`, kept for a re-analysis. */
  uploadWarnings: z.array(z.string()).optional(),
});
export type IncidentRecord = z.infer<typeof IncidentRecord>;
