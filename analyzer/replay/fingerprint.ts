// What identifies "the current events" of an incident: derived data (snapshots) is valid only while this stays the same. Every
// ingest that adds, removes or re-aligns events changes the sources, the seq
// range or the clock offsets, so re-ingesting invalidates what was derived.

import { createHash } from "node:crypto";
import type { IncidentDb } from "../../store/db.js";
import { getMeta } from "../../store/db.js";
import { eventsIdentity } from "../../store/read/incident.js";

export function eventsFingerprint(db: IncidentDb): string {
  const { sources, range } = eventsIdentity(db);
  const parts = [getMeta(db, "schema_version") ?? "", getMeta(db, "clock_offsets") ?? "", sources, range];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}
