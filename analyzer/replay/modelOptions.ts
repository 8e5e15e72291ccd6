// Options the replay gives the model that come from the incident rather than
// the profile.

import type { ModelOptions } from "../model/index.js";
import type { IncidentDb } from "../../ingest/store/db.js";

/**
 * Rank labels name the host ("d0/decode/tp3") only when a role runs on more
 * than one host, where "decode/tp3" alone would be ambiguous. Distinct hosts
 * and roles are walked with index seeks (events_rank), not a table scan.
 */
export function modelOptions(db: IncidentDb): ModelOptions {
  const nextHost = db.prepare("SELECT host FROM events WHERE host > ? ORDER BY host LIMIT 1").pluck();
  const nextRole = db.prepare("SELECT role FROM events WHERE host = ? AND role > ? ORDER BY role LIMIT 1").pluck();
  const hostsOfRole = new Map<string, number>();
  for (let host = nextHost.get("") as string | undefined; host !== undefined; host = nextHost.get(host) as string | undefined) {
    for (let role = nextRole.get(host, "") as string | undefined; role !== undefined; role = nextRole.get(host, role) as string | undefined) {
      hostsOfRole.set(role, (hostsOfRole.get(role) ?? 0) + 1);
    }
  }
  return { qualifyHosts: [...hostsOfRole.values()].some((n) => n > 1) };
}
