// Verdict discipline (DESIGN.md "Findings"), applied to every rule's result
// in one place so that no rule can answer stronger than its evidence:
// - `violated` needs a witness line; without one the finding is undetermined;
// - a rule that examined nothing is never `consistent`: it is undetermined,
//   naming what it would have needed;
// - a `consistent` of a rule that a gap blinds (a PD side with no source, TP
//   ranks missing against the stated size, an input skipped at ingest: the
//   gap's own `blinds`, gaps/gap.ts) is undetermined, naming the gap;
// - so is a `consistent` beside a violated library hypothesis that restates
//   the rule's check (ledger.ts): one check, one decision;
// - `violated` never rests on 0 checked: each violated instance was examined;
// - every verdict lists the settings it rests on that the incident does not
//   state (defaults, and rules derived from a defaulted backend or version).

import type { Profile } from "../model/api.js";
import { flagKey } from "../replay/profileFlag.js";
import type { AnalysisReport } from "./finding.js";
import { blindingGaps, type Gap } from "./gaps/gap.js";
import type { ReplayEvidence } from "./replayEvidence.js";
import type { DraftFinding, Rule, RuleResult } from "./rule.js";

export type AssumedSetting = NonNullable<AnalysisReport["incident"]["assumed"]>[number];

export interface DisciplinedResult {
  findings: DraftFinding[];
  checked: number;
  /** The assumed settings the rule's verdict rests on, as `key=value (origin)`. */
  assumed: string[];
}

/** Fields that follow from backend and version (model/profile.ts): assumed whenever either of those is. */
const FOLLOWS_VERSION = new Set<keyof Profile>(["abortHandling", "queueRouting", "transferQueues", "decodeSendsAbort", "prefillBootstrapTimeout", "drainsBeforeTimeout", "indexKRaggedAccessorsWait"]);

/** The profile settings no flag, config record or log line states. */
export function assumedSettings(replay: ReplayEvidence | undefined): AssumedSetting[] {
  if (!replay) return [];
  const versionAssumed = replay.origins.backend?.origin === "default" || replay.origins.version?.origin === "default";
  const out: AssumedSetting[] = [];
  for (const [field, o] of Object.entries(replay.origins) as [keyof Profile, NonNullable<ReplayEvidence["origins"][keyof Profile]>][]) {
    if (o.origin === "default" || (o.origin === "derived" && (versionAssumed || !FOLLOWS_VERSION.has(field)))) {
      out.push({ setting: flagKey(field), value: replay.profile[field], origin: o.origin, why: o.why });
    }
  }
  return out;
}

/** `contradicted`: why a consistent verdict of this rule cannot stand, besides gaps (ledger.ts contradictions). */
export function discipline(rule: Rule<unknown>, result: RuleResult, gaps: readonly Gap[], assumed: readonly AssumedSetting[], contradicted: readonly string[] = []): DisciplinedResult {
  const fields = new Set((rule.restsOn ?? []).map((f) => flagKey(f)));
  const rests = assumed.filter((a) => fields.has(a.setting)).map((a) => `${a.setting}=${String(a.value)} (${a.origin}: ${a.why})`);
  const blinding = blindingGaps(gaps, rule.id);
  // evidence-gap reports what is absent: its detail names the sources and lines, and it cites a line where one exists.
  const findings = result.findings.map((f) => withAssumptions(rule.id === "evidence-gap" ? f : witnessed(f), rests));
  const violatedInstances = findings.filter((f) => f.verdict === "violated").reduce((n, f) => n + (f.count ?? 1), 0);
  const checked = Math.max(result.checked, violatedInstances);
  return {
    checked,
    assumed: rests,
    findings: findings.map((f) => {
      if (f.verdict !== "consistent") return f;
      const none = checked === 0 || (f.checked ?? checked) === 0;
      if (!none && blinding.length === 0 && contradicted.length === 0) return f;
      return weakened(rule, f, none, blinding, contradicted);
    }),
  };
}

function withAssumptions(f: DraftFinding, rests: string[]): DraftFinding {
  if (rests.length === 0) return f;
  return { ...f, assumptions: [...new Set([...(f.assumptions ?? []), ...rests])] };
}

/** A violated finding with no line to show it (a setting from a --profile flag alone) cannot be checked by a reader. */
function witnessed(f: DraftFinding): DraftFinding {
  if (f.verdict !== "violated" || f.witness.length > 0) return f;
  return {
    ...f,
    severity: "info",
    verdict: "undetermined",
    title: `${f.title} (no record shows it)`,
    explanation: `${f.explanation} No log line or record of the incident shows this; it rests on settings alone.`,
    missing: [...(f.missing ?? []), "a log line or record that shows it (the verdict rests on settings, not on the incident's records)"],
  };
}

/** A consistent verdict the evidence cannot carry: nothing was examined, or a gap hides what the rule needs, or another judge of the check saw a violation. */
function weakened(rule: Rule, f: DraftFinding, nothingChecked: boolean, gaps: readonly string[], contradicted: readonly string[]): DraftFinding {
  const reasons = [...gaps, ...contradicted];
  const why = [
    ...(nothingChecked ? ["the rule examined no instance of what it checks, so the incident neither shows nor rules out a violation"] : []),
    ...reasons,
  ];
  const but = gaps.length ? "the evidence has gaps that hide what it checks" : "a hypothesis of the same check is violated";
  return {
    ...f,
    verdict: "undetermined",
    title: nothingChecked ? `${rule.id}: nothing to check` : `${f.title}, but ${but}`,
    explanation: `${f.explanation} The verdict cannot stand as consistent: ${why.join("; ")}.`,
    ...(nothingChecked && { checked: 0 }),
    missing: [
      ...(f.missing ?? []),
      ...(nothingChecked ? [`evidence of what the rule checks: ${rule.needs.join("; ")}`] : []),
      ...reasons,
    ],
  };
}
