// The derive step: run once after every ingest, by whatever ingested (the
// `ingest` and `analyze` commands, the upload pipeline), it computes from the
// stored events what every reader would otherwise compute again, and stores
// it in the incident: the version signs (analyzer/replay/derivedSigns.ts),
// the model snapshots for time travel under the profile the evidence chooses
// (analyzer/replay/snapshots.ts), and the timeline columns the web UI and
// the trace export read (analyzer/timeline/timelineStore.ts), which carry the
// model's landings (post → the notify or done that landed it) for the views
// that draw transfers, and the checkpoints of the batch lines' queue gauges
// that time travel shows (analyzer/replay/queueGauges.ts). Readers then open the file read-only and only read;
// one whose derived data is missing or stale computes it in memory.

import type { IncidentDb } from "../../store/db.js";
import { storedSignsCurrent, storeProfileSigns } from "../../analyzer/replay/derivedSigns.js";
import { eventsFingerprint } from "../../analyzer/replay/fingerprint.js";
import { modelOptions } from "../../analyzer/replay/modelOptions.js";
import { storedGaugesCurrent, storeQueueGauges } from "../../analyzer/replay/queueGauges.js";
import { selectProfile } from "../../analyzer/replay/profileSelection.js";
import { replayIncident, type ReplaySummary } from "../../analyzer/replay/replay.js";
import { SnapshotSet } from "../../analyzer/replay/snapshots.js";
import { storeTimelineIndex, timelineIsCurrent } from "../../analyzer/timeline/timelineStore.js";

export interface DeriveOptions {
  /** The replay's progress now and then: events done of the total. */
  onProgress?: (phase: "replay", done: number, total: number) => void;
}

/**
 * Derives and stores what readers read, on a read-write connection. Returns
 * the replay it ran (under the profile the evidence chooses), which an
 * analysis under that profile takes as its own instead of replaying again;
 * undefined when the replay's products stored were current (an ingest that
 * added nothing). The gauges' checkpoints are stored apart from the rest
 * whenever they are not current: a file derived before they existed gets them
 * alone.
 */
export function deriveIncident(db: IncidentDb, opts: DeriveOptions = {}): ReplaySummary | undefined {
  const options = modelOptions(db);
  if (!storedGaugesCurrent(db, options)) storeQueueGauges(db, options);
  if (derivedAlready(db)) return undefined;
  storeProfileSigns(db);
  const summary = replayIncident(db, { storeSnapshots: true, ...(opts.onProgress && { onProgress: opts.onProgress }) });
  storeTimelineIndex(db, summary.landings);
  return summary;
}

function derivedAlready(db: IncidentDb): boolean {
  return storedSignsCurrent(db) && timelineIsCurrent(db) && SnapshotSet.find(db, eventsFingerprint(db), selectProfile(db).profile) !== null;
}
