// What the rules take from a replay: the profile it ran with (and the events
// each profile field rests on), the model's raw violations (each with the
// seqs that caused it) and how much each check could examine. Plain data, so
// rules stay testable on their own.

import type { CheckCoverage, CheckId, Profile, Violation } from "../model/api.js";

export interface ReplayEvidence {
  profile: Profile;
  /** Per profile field, the seqs of the records that stated it (config records, log signs). */
  profileEvidence: Partial<Record<keyof Profile, number[]>>;
  violations: Violation[];
  coverage: CheckCoverage[];
}

export function violationsOf(replay: ReplayEvidence | undefined, check: CheckId): Violation[] {
  return replay ? replay.violations.filter((v) => v.check === check) : [];
}

export function coverageOf(replay: ReplayEvidence | undefined, check: CheckId): CheckCoverage | undefined {
  return replay?.coverage.find((c) => c.check === check);
}
