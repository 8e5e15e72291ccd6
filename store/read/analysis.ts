// The findings and suspects of an incident's last analysis (DESIGN.md
// "Canonical store": tables findings, suspects, meta 'analysis'), read back
// as rows whose shape zod checks at this boundary (store/writeAnalysis.ts
// writes them). The bodies are the JSON contract the analyzer validates
// (analyzer/rules/finding.ts); the store keeps them whole.

import { z } from "zod";
import { getMetaJson, type IncidentDb } from "../db.js";

export const ANALYSIS_META = "analysis";

export const findingRowSchema = z.object({
  id: z.string(),
  rule: z.string(),
  severity: z.string(),
  verdict: z.string(),
  title: z.string(),
  room: z.string().nullable(),
  ranks: z.array(z.string()),
  tsUs: z.number().int().nullable(),
  /** The seqs of the finding's witness lines, in order. */
  witnessSeqs: z.array(z.number().int()),
  /** The whole finding (the JSON contract), kept as given. */
  body: z.unknown(),
});
export type FindingRow = z.infer<typeof findingRowSchema>;

export const suspectRowSchema = z.object({
  rank: z.number().int(),
  cause: z.string(),
  confidence: z.number(),
  body: z.unknown(),
});
export type SuspectRow = z.infer<typeof suspectRowSchema>;

export interface AnalysisRows {
  /** What the analysis said of the incident as a whole (its header: incident, coverage). */
  header: unknown;
  findings: FindingRow[];
  suspects: SuspectRow[];
}

/** A findings row as SQLite holds it: the lists and the body as JSON text. */
const storedFindingSchema = findingRowSchema.omit({ witnessSeqs: true }).extend({ ranks: z.string(), witness: z.string(), body: z.string() });

const storedSuspectSchema = z.object({ rank: z.number().int(), cause: z.string(), confidence: z.number(), body: z.string() });

function findingRow(raw: unknown): FindingRow {
  const r = storedFindingSchema.parse(raw);
  return findingRowSchema.parse({ ...r, ranks: JSON.parse(r.ranks), witnessSeqs: JSON.parse(r.witness), body: JSON.parse(r.body) });
}

/** The stored findings in id order (F1, F2, … F10), or undefined when no analysis was stored. */
export function readAnalysisRows(db: IncidentDb): AnalysisRows | undefined {
  const header = getMetaJson<unknown>(db, ANALYSIS_META);
  if (header === undefined) return undefined;
  const findings = db
    .prepare("SELECT id, rule, severity, verdict, title, room, ranks, ts_us AS tsUs, witness, body FROM findings ORDER BY CAST(SUBSTR(id, 2) AS INTEGER)")
    .all()
    .map(findingRow);
  const suspects = db
    .prepare("SELECT rank, cause, confidence, body FROM suspects ORDER BY rank")
    .all()
    .map((raw) => {
      const s = storedSuspectSchema.parse(raw);
      return { ...s, body: JSON.parse(s.body) as unknown };
    });
  return { header, findings, suspects };
}
