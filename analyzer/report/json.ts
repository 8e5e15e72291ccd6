// `kvrewind analyze --json`: the DESIGN.md contract, validated on the way out
// so a report that breaks the contract fails loudly instead of reaching a script.

import { analysisReportSchema, type AnalysisReport } from "../rules/finding.js";

export function renderJson(report: AnalysisReport): string {
  return JSON.stringify(analysisReportSchema.parse(report), null, 2) + "\n";
}
