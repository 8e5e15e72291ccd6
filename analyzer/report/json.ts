// `kvrewind analyze --json`: the DESIGN.md contract, validated on the way out
// so a report that breaks the contract fails loudly instead of reaching a script.
// Beside the rules' report it carries the ledger (docs/hypotheses.md "The
// ledger"): every library hypothesis's verdict on the incident.

import type { HypothesisVerdict } from "../hypotheses/verdict.js";
import { analysisSchema } from "../rules/analysis.js";
import type { AnalysisReport } from "../rules/finding.js";

export function renderJson(report: AnalysisReport, hypotheses: readonly HypothesisVerdict[]): string {
  return JSON.stringify(analysisSchema.parse({ ...report, hypotheses }), null, 2) + "\n";
}
