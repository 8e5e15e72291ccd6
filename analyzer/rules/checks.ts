// Which rule decides what: the one table that joins suspect causes, rules and
// library hypotheses (docs/hypotheses/). A cause is ranked only on what its
// own rule decides (suspects.ts); a hypothesis that restates a rule's check,
// or one part of it, reads that rule's decision in the report (ledger.ts);
// the A/B comparison weighs each cause by the hypothesis that states its
// mechanism (hypotheses/causes.ts). DESIGN.md "A report agrees with itself".

import type { CauseId, RuleId } from "../../domain/vocabulary.js";
import type { DraftFinding } from "./rule.js";

export interface CauseCheck {
  /** The rule whose check is the cause's mechanism: while it says `consistent`, the cause is not a suspect. */
  rule: RuleId;
  /** The library hypothesis whose violation is the mechanism happening (what an A/B comparison counts). */
  mechanism?: string;
}

export const CAUSE_CHECKS: Readonly<Record<CauseId, CauseCheck>> = {
  "overlap-collective-desync": { rule: "collective-divergence", mechanism: "same-branch-before-collective" },
  "unhandled-abort": { rule: "unhandled-abort", mechanism: "bootstrap-thread-lives" },
  "hicache-indexk-race": { rule: "hicache-ungated-read", mechanism: "hicache-gated-index-k-read" },
  "stale-slot-reuse": { rule: "stale-slot-reuse", mechanism: "page-not-reused-in-flight" },
  "pool-sizing-fp8-hardcoded": { rule: "pool-sizing-mismatch", mechanism: "pool-sized-for-dtype" },
  "transfer-saturation": { rule: "transfer-stall" },
  "indexer-address-overflow": { rule: "address-overflow", mechanism: "indexer-address-fits-int32" },
  "item-len-mismatch": { rule: "pool-sizing-mismatch", mechanism: "index-k-dtype-agrees" },
  "uncounted-state-transfer": { rule: "incomplete-completion", mechanism: "read-after-last-notify" },
  "process-crash": { rule: "process-failure" },
  "transport-failure": { rule: "transport-failure" },
};

export interface HypothesisCheck {
  /** The rule whose check the hypothesis states in the language (its `.hyp` comment says which). */
  rule: RuleId;
  /** The part of the check the hypothesis states: the rule's findings of that part; absent, the whole check. */
  part?: (f: DraftFinding) => boolean;
}

const factList = (f: DraftFinding, key: string): unknown[] => (Array.isArray(f.facts?.[key]) ? (f.facts[key] as unknown[]) : []);

/**
 * Library hypotheses that restate a rule's check, by name. A cause's
 * mechanism hypothesis is not one unless listed here: page-not-reused-in-flight
 * is violated by any write after a free, stale-slot-reuse only when another
 * room was given those pages and read them.
 */
export const HYPOTHESIS_CHECKS: Readonly<Record<string, HypothesisCheck>> = {
  "checksums-agree": { rule: "checksum-mismatch" },
  "hicache-gated-index-k-read": { rule: "hicache-ungated-read" },
  "indexer-address-fits-int32": { rule: "address-overflow" },
  "bootstrap-thread-lives": { rule: "unhandled-abort" },
  "read-after-last-notify": { rule: "incomplete-completion" },
  // An agreement compares what the ranks entered: a rank that never entered the collective is no disagreement.
  "collectives-agree": { rule: "collective-divergence", part: (f) => f.facts?.opMismatch === true },
  "bootstrap-survives-abort": { rule: "unhandled-abort", part: (f) => f.facts?.abortSeen === true },
  "pool-sized-for-dtype": { rule: "pool-sizing-mismatch", part: (f) => f.facts?.kind === "bytes-per-token" },
  "index-k-dtype-agrees": { rule: "pool-sizing-mismatch", part: (f) => f.facts?.kind === "item-len" },
  "transfers-do-not-time-out": { rule: "transfer-stall", part: (f) => Array.isArray(f.facts?.rooms) },
  // Its pattern reads the PD failure lines alone; its statement is the rule's whole check (the transfer engine's own errors, node failures), so the rule decides it whole.
  "transfers-not-failed-by-transport": { rule: "transport-failure" },
  "scheduler-raises-no-exception": {
    rule: "process-failure",
    part: (f) => factList(f, "recordKinds").includes("log.exception") && factList(f, "threads").includes("scheduler"),
  },
};

/**
 * Rules the library states only in part: each of their hypotheses is one of
 * the things the rule checks, and the rule also sees what the language cannot
 * state (frozen queue gauges, probe timeouts, transfer-engine lines). Every
 * other rule with hypotheses here is stated whole by them together: violated
 * exactly where one of them is.
 */
export const RULES_STATED_IN_PART: ReadonlySet<RuleId> = new Set(["transfer-stall", "transport-failure", "process-failure"]);

/** The rule's findings that decide the hypothesis's part of its check. */
export function findingsOfCheck<F extends { draft: DraftFinding }>(check: HypothesisCheck, findings: readonly F[]): F[] {
  return findings.filter((f) => f.draft.rule === check.rule && (check.part?.(f.draft) ?? true));
}
