// The rules that rest on the reference model: the replay's raw violations of
// one check become findings (one per room, the room's first violation as the
// witness), its coverage says how much was checked, and without a replay the
// rule is undetermined.

import type { StoredEvent } from "../../ingest/store/queries.js";
import type { CheckId, Profile, Violation } from "../model/api.js";
import type { Evidence } from "./evidence.js";
import type { RuleId, Severity } from "./finding.js";
import { coverageOf, violationsOf, type ReplayEvidence } from "./replayEvidence.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

export interface ModelRuleSpec {
  id: RuleId & CheckId;
  needs: readonly string[];
  severity: Severity;
  title(v: Violation, more: number): string;
  /** "Let … Then … but …" from the violation and its witness events (in the violation's order). */
  explain(v: Violation, witness: (StoredEvent | undefined)[], evidence: Evidence): string;
  falsify: string;
  facts?(v: Violation): Record<string, unknown>;
  /** Profile fields whose stating records witness a violation the model raised from the profile alone. */
  profileFields?: (keyof Profile)[];
}

const NO_REPLAY = "a replay of the reference model over probe records (kv.*, kernel.*, hicache.*)";

export function modelRule(spec: ModelRuleSpec): Rule {
  return {
    id: spec.id,
    needs: spec.needs,
    run({ evidence, replay }): RuleResult {
      if (!replay) {
        return undetermined(spec.id, `No replay: ${spec.id} cannot be checked`, [NO_REPLAY], `This rule is decided by the reference model's checks, which did not run.`);
      }
      const violations = violationsOf(replay, spec.id);
      const coverage = coverageOf(replay, spec.id);
      const checked = coverage?.checked ?? 0;
      if (violations.length === 0) {
        if (coverage?.undetermined) {
          return undetermined(spec.id, `${spec.id}: not enough evidence`, [coverage.undetermined],
            `The model could check ${checked} case(s); ${coverage.undetermined}.`, checked);
        }
        return consistent(spec.id, `${spec.id}: no violation in ${checked} checked case(s)`,
          `The model replayed the incident under the ${replay.profile.backend} v${replay.profile.version} profile and checked ${checked} case(s) without a violation.`, checked);
      }
      return { checked, findings: byRoom(violations).map(([v, more]) => toFinding(spec, v, more, evidence, replay)) };
    },
  };
}

/** The first violation of each room (rooms in order of their first violation), with how many more the room had. */
function byRoom(violations: Violation[]): [Violation, number][] {
  const rooms = new Map<string, [Violation, number]>();
  for (const v of violations) {
    const key = v.room ?? `seq${v.seq}`;
    const seen = rooms.get(key);
    if (seen) seen[1]++;
    else rooms.set(key, [v, 0]);
  }
  return [...rooms.values()];
}

function toFinding(spec: ModelRuleSpec, v: Violation, more: number, evidence: Evidence, replay: ReplayEvidence): DraftFinding {
  const seqs = v.witness.length > 0 ? v.witness : [...new Set((spec.profileFields ?? []).flatMap((f) => replay.profileEvidence[f] ?? []))].sort((a, b) => a - b);
  const events = seqs.map((seq) => (seq >= 0 ? evidence.event(seq) : undefined));
  const witness = events.filter((e): e is StoredEvent => e !== undefined);
  return {
    rule: spec.id,
    severity: spec.severity,
    verdict: "violated",
    title: spec.title(v, more),
    ...(v.room !== undefined && { room: v.room }),
    ranks: v.rank ? [v.rank] : [],
    tsUs: v.tsUs,
    witness,
    explanation: spec.explain(v, events, evidence),
    falsify: spec.falsify,
    facts: { ...v.detail, ...(spec.facts?.(v) ?? {}), violations: more + 1 },
  };
}

/** "file:line" of a witness event, or a note that the model named none. */
export function at(evidence: Evidence, ev: StoredEvent | undefined): string {
  return ev ? evidence.where(ev) : "no recorded line";
}

export function detailOf(v: Violation, key: string): string {
  const x = v.detail[key];
  return x === undefined || x === null ? "?" : String(x);
}
