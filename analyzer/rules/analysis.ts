// What one analysis of an incident says (DESIGN.md "Findings — the JSON
// contract"): the rules' report and the library hypotheses' verdicts, which
// read the report's decision for the checks they share with a rule (ledger.ts).

import { z } from "zod";
import { hypothesisVerdictSchema } from "../hypotheses/verdict.js";
import { analysisReportSchema } from "./finding.js";

export const analysisSchema = analysisReportSchema.extend({ hypotheses: z.array(hypothesisVerdictSchema) });
export type Analysis = z.infer<typeof analysisSchema>;
