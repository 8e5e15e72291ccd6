// An evidence gap as the rules see it: the coverage entry of the JSON
// contract, the lines that show it, how much it weakens the analysis, and
// which rules it blinds (DESIGN.md "Findings": a missing role, missing ranks,
// skipped sources and silent stretches are evidence gaps). Each gap decides
// once what it does to a rule: a gap that removes every record of a kind
// (a PD side, a rank, a source) `blinds` the rules that need it, which the
// verdict discipline then makes undetermined; one that leaves the records
// incomplete or unordered (unreadable lines, a silence, loose clocks)
// `weakens` them, and they keep their verdicts.

import type { StoredEvent } from "../../../store/read/events.js";
import type { CoverageGap } from "../finding.js";
import type { RuleId, Severity } from "../../../domain/vocabulary.js";

export interface Gap {
  gap: CoverageGap;
  witness: StoredEvent[];
  severity: Severity;
}

/** The details of the gaps that blind `rule`: a `consistent` of its check cannot stand beside them, whoever judges it. */
export function blindingGaps(gaps: readonly Gap[], rule: RuleId): string[] {
  return gaps.filter((g) => (g.gap.blinds ?? []).includes(rule)).map((g) => g.gap.detail);
}

/** What each side's records feed: the rules a side's absence leaves without their evidence. */
export const RULES_OF_ROLE: Record<"prefill" | "decode", RuleId[]> = {
  prefill: [
    "read-before-landed-write", "hicache-ungated-read", "stale-slot-reuse", "unhandled-abort", "transfer-stall", "checksum-mismatch",
    "pool-sizing-mismatch", "collective-divergence", "process-failure", "transport-failure",
  ],
  decode: [
    "read-before-landed-write", "hicache-ungated-read", "stale-slot-reuse", "incomplete-completion", "transfer-stall", "checksum-mismatch",
    "metadata-collision", "pool-sizing-mismatch", "collective-divergence", "process-failure", "transport-failure",
  ],
};

/** Rules that reason rank by rank: a missing rank hides what happened on it. */
export function rulesOfRanks(role: string): RuleId[] {
  return ["collective-divergence", "process-failure", "transport-failure", ...(role === "prefill" ? (["unhandled-abort"] as RuleId[]) : [])];
}

/** Rules that order events across hosts. */
export const CROSS_HOST_RULES: RuleId[] = ["read-before-landed-write", "stale-slot-reuse", "incomplete-completion", "unhandled-abort", "collective-divergence"];

/** The rules a source of this role feeds; a source of no known role feeds every rule that reads records. */
export function rulesOfSource(role: string | null): RuleId[] {
  if (role === "prefill" || role === "decode") return RULES_OF_ROLE[role];
  return [...new Set([...RULES_OF_ROLE.prefill, ...RULES_OF_ROLE.decode])];
}
