// Every evidence gap of an incident, found once before the rules run: the
// evidence-gap rule reports them, and the verdict discipline (discipline.ts)
// makes the rules they blind undetermined.

import type { Evidence } from "../evidence.js";
import { causalInversions, clockOffsets } from "./clock.js";
import type { Gap } from "./gap.js";
import { missingRanks, missingRoles } from "./ranks.js";
import { silentStretches } from "./silence.js";
import { parseErrors, skippedSources, truncatedSources } from "./sources.js";

export type { Gap } from "./gap.js";

export function findGaps(evidence: Evidence): Gap[] {
  return [
    ...missingRoles(evidence),
    ...missingRanks(evidence),
    ...skippedSources(evidence),
    ...parseErrors(evidence),
    ...silentStretches(evidence),
    ...truncatedSources(evidence),
    ...clockOffsets(evidence),
    ...causalInversions(evidence),
  ];
}
