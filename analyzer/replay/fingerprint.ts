// What identifies "the current events" of an incident: derived data (the
// column cache, snapshots) is valid only while this stays the same. Every
// ingest that adds, removes or re-aligns events changes the sources, the seq
// range or the clock offsets, so re-ingesting invalidates what was derived.

import { createHash } from "node:crypto";
import type { IncidentDb } from "../../ingest/store/db.js";
import { getMeta } from "../../ingest/store/db.js";

export function eventsFingerprint(db: IncidentDb): string {
  const sources = db
    .prepare("SELECT id, sha256, events FROM sources WHERE status = 'complete' ORDER BY id")
    .raw()
    .all();
  // Two scalar subqueries: each is one B-tree seek, while MIN and MAX together scan the table.
  const range = db.prepare("SELECT (SELECT MIN(seq) FROM events), (SELECT MAX(seq) FROM events)").raw().get();
  const parts = [getMeta(db, "schema_version") ?? "", getMeta(db, "clock_offsets") ?? "", sources, range];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 32);
}
