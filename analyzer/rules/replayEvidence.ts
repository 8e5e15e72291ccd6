// What the rules take from a replay: the profile it ran with (and the events
// each profile field rests on), the model's raw violations (each with the
// seqs that caused it) and how much each check could examine. Plain data, so
// rules stay testable on their own.

import type { CheckCoverage, CheckId, Profile, Violation } from "../model/api.js";
import type { PageKernels } from "../model/pageKernels.js";
import type { ModelDumpedPage } from "../model/pagePath.js";
import type { ProfileOrigin } from "../replay/profileSelection.js";
import type { ReplaySummary } from "../replay/replay.js";

export interface ReplayEvidence {
  profile: Profile;
  /** Per profile field, the seqs of the records that stated it (config records, log signs). */
  profileEvidence: Partial<Record<keyof Profile, number[]>>;
  /** Fields the incident (or a --profile flag) stated, as opposed to defaults and version-derived rules. */
  stated: (keyof Profile)[];
  /** Where each profile field came from, and why (replay/profileSelection.ts). */
  origins: Partial<Record<keyof Profile, { origin: ProfileOrigin; why: string }>>;
  violations: Violation[];
  coverage: CheckCoverage[];
  /** The page kernels after the replay: every dumped page's verdict and pair (analyzer/model/pageKernels.ts). */
  pages?: PageKernels<ModelDumpedPage>;
}

export function violationsOf(replay: ReplayEvidence | undefined, check: CheckId): Violation[] {
  return replay ? replay.violations.filter((v) => v.check === check) : [];
}

export function coverageOf(replay: ReplayEvidence | undefined, check: CheckId): CheckCoverage | undefined {
  return replay?.coverage.find((c) => c.check === check);
}

/** The replay's summary as the rules read it: witnesses and profile evidence as seqs. */
export function replayEvidenceOf(summary: ReplaySummary): ReplayEvidence {
  const profileEvidence: ReplayEvidence["profileEvidence"] = {};
  for (const r of summary.choice.reasons) if (r.evidence.length > 0) profileEvidence[r.field] = r.evidence.map((e) => e.seq);
  const stated = summary.choice.reasons.filter((r) => r.origin === "flag" || r.origin === "config" || r.origin === "log").map((r) => r.field);
  const origins: ReplayEvidence["origins"] = {};
  for (const r of summary.choice.reasons) origins[r.field] = { origin: r.origin, why: r.why };
  return {
    profile: summary.choice.profile,
    profileEvidence,
    stated,
    origins,
    violations: summary.violations.map((v) => ({ ...v, witness: v.witness.map((w) => w.seq) })),
    coverage: summary.coverage,
    pages: summary.pages,
  };
}
