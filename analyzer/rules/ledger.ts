// The ledger beside the report (docs/hypotheses.md "The ledger"): each
// library hypothesis's own verdict (hypotheses/run.ts), joined to the rule
// whose check it restates (checks.ts HYPOTHESIS_CHECKS), so that one check
// has one decision (DESIGN.md "A report agrees with itself"):
// - a rule's `consistent` does not stand beside a violated hypothesis of its
//   check: the hypothesis saw what the rule's evidence did not show
//   (`contradictions`, read by the verdict discipline);
// - a hypothesis is neither ruled out nor left undetermined beside a violated
//   finding of its check: it reads the finding's decision and cites its lines
//   (`readDecisions`);
// - nor is it `consistent` where a gap blinds its rule (a rank or a PD side
//   missing): what the missing records would show is unknown to both
//   (`readDecisions`, as the verdict discipline does for the rule).

import type { HypothesisVerdict, HypothesisWitness } from "../hypotheses/verdict.js";
import { SHOWN_WITNESSES } from "../hypotheses/run.js";
import type { RuleId } from "../../domain/vocabulary.js";
import { findingsOfCheck, HYPOTHESIS_CHECKS } from "./checks.js";
import { isoTime, type Evidence } from "./evidence.js";
import { blindingGaps, type Gap } from "./gaps/gap.js";
import type { NumberedFinding } from "./suspectEvidence.js";

/** Why a `consistent` of this rule cannot stand: each violated hypothesis that restates its check. */
export function contradictions(ledger: readonly HypothesisVerdict[], rule: RuleId): string[] {
  return ledger.flatMap((h) => {
    if (h.verdict !== "violated" || h.name === undefined || HYPOTHESIS_CHECKS[h.name]?.rule !== rule) return [];
    const first = h.witnesses[0]?.subject;
    const at = first ? `, first at ${first.source}:${first.line}` : "";
    return [`hypothesis ${h.name}, the same check in the hypothesis language, is violated ${h.violated} of ${h.checked} time(s)${at}: the rule's evidence does not show what it saw`];
  });
}

/**
 * The ledger with each hypothesis that a violated finding of its check
 * contradicts (a consistent one) or decides (an undetermined one) reading
 * that finding's decision, and each `consistent` one whose rule a gap blinds
 * undetermined.
 */
export function readDecisions(ledger: readonly HypothesisVerdict[], findings: readonly NumberedFinding[], evidence: Evidence, gaps: readonly Gap[]): HypothesisVerdict[] {
  return ledger.map((h) => {
    const check = h.name === undefined ? undefined : HYPOTHESIS_CHECKS[h.name];
    // A violated hypothesis stands; a consistent or undetermined one reads the decision of the rule that decides its check.
    if (!check || h.verdict === "violated") return h;
    const violated = findingsOfCheck(check, findings).filter((f) => f.draft.verdict === "violated");
    if (violated.length === 0) return h.verdict === "consistent" ? blinded(h, check.rule, blindingGaps(gaps, check.rule)) : h;
    const named = violated.map((f) => `${f.id} (${f.draft.title})`).join("; ");
    return {
      ...h,
      verdict: "violated",
      witnesses: violated.flatMap((f) => findingWitness(evidence, f)).slice(0, SHOWN_WITNESSES),
      explanation:
        `${h.explanation} But the rule ${check.rule} decides this check and finds it violated: ${named}. ` +
        `Those findings rest on records this pattern does not match, so the hypothesis is not ${h.verdict === "consistent" ? "ruled out" : "left undetermined"}.`,
    };
  });
}

/** A consistent hypothesis beside gaps that blind its rule: undetermined, naming them. */
function blinded(h: HypothesisVerdict, rule: RuleId, gaps: readonly string[]): HypothesisVerdict {
  if (gaps.length === 0) return h;
  return {
    ...h,
    verdict: "undetermined",
    missing: [...h.missing, ...gaps],
    explanation: `${h.explanation} But the evidence has a gap that blinds the rule ${rule}, which decides this check (${gaps.join("; ")}): what the missing records would show is unknown.`,
  };
}

/** A finding's witness lines as the hypothesis's witnesses. */
function findingWitness(evidence: Evidence, f: NumberedFinding): HypothesisWitness[] {
  const why = `finding ${f.id} of ${f.draft.rule}: ${f.draft.title}`;
  return f.draft.witness.map((ev) => ({ clause: 0, why, subject: { ...evidence.witness(ev), rank: evidence.rank(ev), ts: isoTime(ev.tsUs) } }));
}
