// What a rule is: an id, the evidence it needs (in words, for the coverage
// report), and a function from the incident's evidence to verdicts. A rule
// that finds nothing still answers: consistent (with how much it checked) or
// undetermined (naming the missing evidence).

import type { Reading } from "../../store/blocks/pass.js";
import type { StoredEvent } from "../../store/read/events.js";
import type { Profile } from "../model/api.js";
import type { Evidence } from "./evidence.js";
import type { RuleId, Severity, Verdict } from "../../domain/vocabulary.js";
import type { Gap } from "./gaps/index.js";
import type { ReplayEvidence } from "./replayEvidence.js";

export interface RuleContext {
  evidence: Evidence;
  /** The replay's violations and coverage, when a replay ran. */
  replay?: ReplayEvidence;
  /** The incident's evidence gaps, found before any rule runs. */
  gaps: Gap[];
}

/** A finding before it is numbered; `facts` feed the suspect ranking and the diff, not the JSON. */
export interface DraftFinding {
  rule: RuleId;
  severity: Severity;
  verdict: Verdict;
  title: string;
  room?: string;
  ranks: string[];
  tsUs?: number;
  /** In the order a reader should check them. */
  witness: StoredEvent[];
  explanation: string;
  falsify: string;
  checked?: number;
  missing?: string[];
  /** A grouped finding's rooms, the first being `room` (finding.ts). */
  rooms?: string[];
  /** Instances grouped: rooms when the finding names rooms, else records. */
  count?: number;
  /** What the verdict rests on that the evidence does not show. */
  assumptions?: string[];
  /** Each "because" of the explanation: the event named as the cause and the one it explains (DESIGN.md "A report agrees with itself"). */
  because?: Because[];
  facts?: Record<string, unknown>;
}

/** A cause precedes its effect in the incident's order, or the explanation says the order is unknown (a timeless record). */
export interface Because {
  cause: StoredEvent;
  effect: StoredEvent;
}

export interface RuleResult {
  findings: DraftFinding[];
  /** How many items the rule examined (rooms, collectives, pages, config keys...). */
  checked: number;
}

/**
 * A rule. One that reads many events of some kinds says so in `reading`: its
 * readers join the one pass over the blocks that every rule, the gaps and the
 * ledger share (store/blocks/pass.ts), and what they read comes to `run`.
 */
export interface Rule<Read = void> {
  id: RuleId;
  needs: readonly string[];
  /** Profile settings its verdicts rest on: when the incident does not state them, the verdict says so. */
  restsOn?: readonly (keyof Profile)[];
  reading?(evidence: Evidence): Reading<Read>;
  run(ctx: RuleContext, read: Read): RuleResult;
}

/** The finding a rule gives when it examined everything and found nothing wrong. */
export function consistent(rule: RuleId, title: string, explanation: string, checked: number): RuleResult {
  return {
    checked,
    findings: [{ rule, severity: "info", verdict: "consistent", title, ranks: [], witness: [], explanation, falsify: "", checked }],
  };
}

/** The finding a rule gives when the evidence it needs is absent. */
export function undetermined(rule: RuleId, title: string, missing: string[], explanation: string, checked = 0): RuleResult {
  return {
    checked,
    findings: [{ rule, severity: "info", verdict: "undetermined", title, ranks: [], witness: [], explanation, falsify: "", checked, missing }],
  };
}

/** Overall verdict of a rule: violated wins, then undetermined, then consistent. */
export function ruleVerdict(findings: readonly DraftFinding[]): Verdict {
  if (findings.some((f) => f.verdict === "violated")) return "violated";
  if (findings.some((f) => f.verdict === "undetermined")) return "undetermined";
  return "consistent";
}
