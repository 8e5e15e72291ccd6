// The A/B over hypotheses that `diff` weighs causes with: each suspect cause
// whose mechanism a library hypothesis states (docs/hypotheses/), checked on
// both incidents. Where both sides are determined, the violation rates decide
// what the comparison says about the cause of B: its mechanism happened in B
// and not (or less) in A, happened in both, or did not happen in B at all.

import { z } from "zod";
import type { IncidentDb } from "../../store/db.js";
import type { CauseId } from "../../domain/vocabulary.js";
import { VERDICTS } from "../../domain/vocabulary.js";
import { CAUSE_CHECKS } from "../rules/checks.js";
import { libraryHypothesis } from "./library.js";
import { checkHypotheses } from "./run.js";
import type { HypothesisVerdict } from "./verdict.js";

const sideSchema = z.object({ verdict: z.enum(VERDICTS), violated: z.number().int().nonnegative(), checked: z.number().int().nonnegative(), rate: z.number().nullable() });
export const causeHypothesisSchema = z.object({ name: z.string(), a: sideSchema, b: sideSchema });
export type CauseHypothesis = z.infer<typeof causeHypothesisSchema>;
type Side = z.infer<typeof sideSchema>;

/** The causes' hypotheses checked on both incidents, one pass over each. */
export function causeHypotheses(a: IncidentDb, b: IncidentDb): Map<CauseId, CauseHypothesis> {
  const causes = (Object.entries(CAUSE_CHECKS) as [CauseId, (typeof CAUSE_CHECKS)[CauseId]][]).flatMap(([cause, c]) => (c.mechanism ? [[cause, c.mechanism] as const] : []));
  const hypotheses = causes.map(([, name]) => libraryHypothesis(name)!);
  const [va, vb] = [a, b].map((db) => checkHypotheses(db, hypotheses).verdicts);
  return new Map(causes.map(([cause, name], i) => [cause, { name, a: side(va![i]!), b: side(vb![i]!) }]));
}

function side(v: HypothesisVerdict): Side {
  return { verdict: v.verdict, violated: v.violated, checked: v.checked, rate: v.rate };
}

/** What the hypothesis says about the cause of B, or undefined when a side could not tell. */
export function hypothesisEffect(h: CauseHypothesis): { effect: "supports" | "refutes" | "neutral"; reason: string } | undefined {
  if (h.a.verdict === "undetermined" || h.b.verdict === "undetermined") return undefined;
  const shown = `${h.name} ${sideText(h.a)} → ${sideText(h.b)}`;
  if (h.b.violated === 0) return { effect: "refutes", reason: `${shown}: the mechanism did not happen in B` };
  if ((h.a.rate ?? 0) < (h.b.rate ?? 0)) return { effect: "supports", reason: `${shown}: the mechanism happened in B more often than in A` };
  return { effect: "neutral", reason: `${shown}: the mechanism happened in A as often, so the difference does not explain it` };
}

export function sideText(s: Side): string {
  return s.verdict === "undetermined" ? "undetermined" : `${s.violated}/${s.checked} (${((s.rate ?? 0) * 100).toFixed(1)}%)`;
}
