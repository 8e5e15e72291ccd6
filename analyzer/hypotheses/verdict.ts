// What `kvrewind check` answers for one hypothesis (docs/hypotheses.md
// "Verdicts"), under the verdict discipline of DESIGN.md "Findings":
// `violated` always with a witness, `consistent` only after checking at least
// one instance with every event kind it needs present, `undetermined`
// otherwise, naming what was absent.

import { z } from "zod";
import { witnessLineSchema } from "../rules/finding.js";
import { VERDICTS } from "../../domain/vocabulary.js";

const witnessSchema = witnessLineSchema.extend({ rank: z.string(), ts: z.string() });

export const hypothesisVerdictSchema = z.object({
  name: z.string().optional(),
  statement: z.string().optional(),
  /** The property as text (docs/hypotheses.md "Syntax"), whatever form it was given in. */
  property: z.string(),
  verdict: z.enum(VERDICTS),
  /** Events matching the subject pattern (an agreement: keys seen on two events or more). */
  instances: z.number().int().nonnegative(),
  /** Instances every clause could be checked for (the subject carries each correlation field). */
  checked: z.number().int().nonnegative(),
  violated: z.number().int().nonnegative(),
  /** violated / checked; null when nothing was checked. */
  rate: z.number().min(0).max(1).nullable(),
  clauses: z.array(
    z.object({
      text: z.string(),
      violations: z.number().int().nonnegative(),
      uncorrelated: z.number().int().nonnegative(),
      /** The clause names a kind the incident has no event of: it could not be checked. */
      blind: z.boolean(),
    }),
  ),
  /** The first violations: the subject and the event in conflict with it (absent when one is missing). */
  witnesses: z.array(z.object({ clause: z.number().int().nonnegative(), why: z.string(), subject: witnessSchema, other: witnessSchema.optional() })),
  missing: z.array(z.string()),
  explanation: z.string(),
});
export type HypothesisVerdict = z.infer<typeof hypothesisVerdictSchema>;
export type HypothesisWitness = HypothesisVerdict["witnesses"][number];
