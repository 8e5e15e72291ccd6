// Options the replay gives the model that come from the incident rather than
// the profile.

import type { ModelOptions } from "../model/index.js";
import type { IncidentDb } from "../../store/db.js";
import { hostsPerRole } from "../../store/read/ranks.js";

/**
 * Rank labels name the host ("d0/decode/tp3") only when a role runs on more
 * than one host, where "decode/tp3" alone would be ambiguous. The hosts and
 * roles come from the blocks' rank keys, not a scan of the events.
 */
export function modelOptions(db: IncidentDb): ModelOptions {
  return { qualifyHosts: [...hostsPerRole(db).values()].some((n) => n > 1) };
}
