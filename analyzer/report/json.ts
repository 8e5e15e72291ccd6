// `kvrewind analyze --json`: the DESIGN.md contract, validated on the way out
// so a report that breaks the contract fails loudly instead of reaching a script.
// Beside the rules' report it carries the ledger (docs/hypotheses.md "The
// ledger"): every library hypothesis's verdict on the incident.

import { z } from "zod";
import { hypothesisVerdictSchema, type HypothesisVerdict } from "../hypotheses/verdict.js";
import { analysisReportSchema, type AnalysisReport } from "../rules/finding.js";

/** What `analyze --json` prints: the findings contract and the hypotheses tested. */
export const analyzeOutputSchema = analysisReportSchema.extend({ hypotheses: z.array(hypothesisVerdictSchema) });
export type AnalyzeOutput = z.infer<typeof analyzeOutputSchema>;

export function renderJson(report: AnalysisReport, hypotheses: readonly HypothesisVerdict[]): string {
  return JSON.stringify(analyzeOutputSchema.parse({ ...report, hypotheses }), null, 2) + "\n";
}
