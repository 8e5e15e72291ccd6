// Every evidence gap of an incident, found once before the rules run: the
// evidence-gap rule reports them, and the verdict discipline (discipline.ts)
// makes the rules they blind undetermined.

import type { Evidence } from "../evidence.js";
import { readOnce, type Reading } from "../../../store/blocks/pass.js";
import { causalInversionsReading, clockOffsets } from "./clock.js";
import type { Gap } from "./gap.js";
import { missingRanks, missingRoles } from "./ranks.js";
import { silentStretchesReading } from "./silence.js";
import { parseErrors, skippedSources, truncatedSources } from "./sources.js";

export type { Gap } from "./gap.js";

export function findGaps(evidence: Evidence): Gap[] {
  return readOnce(evidence.db, gapsReading(evidence));
}

/**
 * findGaps as readers of a pass over the blocks shared with other stages
 * (store/blocks/pass.ts): the silences and the causal inversions read their
 * kinds in it; the other gaps come from the side tables when it is done.
 */
export function gapsReading(evidence: Evidence): Reading<Gap[]> {
  const silences = silentStretchesReading(evidence);
  const inversions = causalInversionsReading(evidence);
  const finish = (): Gap[] => [
    ...missingRoles(evidence),
    ...missingRanks(evidence),
    ...skippedSources(evidence),
    ...parseErrors(evidence),
    ...silences.finish(),
    ...truncatedSources(evidence),
    ...clockOffsets(evidence),
    ...inversions.finish(),
  ];
  return { readers: [...silences.readers, ...inversions.readers], finish };
}
