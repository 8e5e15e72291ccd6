// What the rules take from a replay: the profile it ran with, the model's raw
// violations (each with the seqs that caused it) and how much each check could
// examine. Plain data, so rules stay testable without running a replay.

import type { CheckCoverage, CheckId, Profile, Violation } from "../model/api.js";

export interface ReplayEvidence {
  profile: Profile;
  violations: Violation[];
  coverage: CheckCoverage[];
}

export function violationsOf(replay: ReplayEvidence | undefined, check: CheckId): Violation[] {
  return replay ? replay.violations.filter((v) => v.check === check) : [];
}

export function coverageOf(replay: ReplayEvidence | undefined, check: CheckId): CheckCoverage | undefined {
  return replay?.coverage.find((c) => c.check === check);
}
