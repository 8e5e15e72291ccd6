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
// It runs in two halves, the replay's products and then the timeline, so the
// upload pipeline can analyze and store the findings between them: the
// suspects are shown before the timeline is stored. The timeline is begun
// before the replay: for a big incident it is read on a second thread while
// the model replays (analyzer/timeline/timelineBeside.ts).

import type { IncidentDb } from "../store/db.js";
import { storedSignsCurrent, storeProfileSigns } from "./replay/derivedSigns.js";
import { eventsFingerprint } from "./replay/fingerprint.js";
import { modelOptions } from "./replay/modelOptions.js";
import { storedGaugesCurrent, storeQueueGauges } from "./replay/queueGauges.js";
import { selectProfile } from "./replay/profileSelection.js";
import { replayIncident, type ReplaySummary } from "./replay/replay.js";
import { SnapshotSet } from "./replay/snapshots.js";
import { TIMELINE_BESIDE_EVENTS, timelineBeside, type TimelineBeside } from "./timeline/timelineBeside.js";
import { buildTimelineIndex } from "./timeline/timelineIndex.js";
import { timelineIsCurrent, writeTimelineIndex } from "./timeline/timelineStore.js";

export interface DeriveOptions {
  /** The replay's progress now and then: events done of the total. */
  onProgress?: (phase: "replay", done: number, total: number) => void;
  /** From this many events the timeline is read on a second thread (default TIMELINE_BESIDE_EVENTS). */
  timelineBesideFrom?: number;
}

/**
 * Derives and stores what readers read, on a read-write connection. Returns
 * the replay it ran (under the profile the evidence chooses), which an
 * analysis under that profile takes as its own instead of replaying again;
 * undefined when the replay's products stored were current (an ingest that
 * added nothing).
 */
export function deriveIncident(db: IncidentDb, opts: DeriveOptions = {}): ReplaySummary | undefined {
  const timeline = beginTimeline(db, opts);
  const replayed = replayFor(timeline, () => deriveReplay(db, opts));
  timeline.store();
  return replayed;
}

/**
 * The first half: the gauges' checkpoints, the signs and the snapshots. The
 * gauges' checkpoints are stored apart from the rest whenever they are not
 * current: a file derived before they existed gets them alone. Returns the
 * replay the second half indexes; undefined when everything was current.
 */
export function deriveReplay(db: IncidentDb, opts: DeriveOptions = {}): ReplaySummary | undefined {
  const options = modelOptions(db);
  if (!storedGaugesCurrent(db, options)) storeQueueGauges(db, options);
  if (derivedAlready(db)) return undefined;
  storeProfileSigns(db);
  return replayIncident(db, { storeSnapshots: true, ...(opts.onProgress && { onProgress: opts.onProgress }) });
}

/**
 * The second half, the timeline columns, begun before the first: `landed`
 * with the replay `deriveReplay` ran, then `store` once the caller has done
 * what should come first (the upload pipeline stores the findings).
 */
export interface PendingTimeline {
  landed(replayed: ReplaySummary | undefined): void;
  /** Stores the index of the replay landed; nothing when none ran. */
  store(): void;
  /** `store`, for a caller that can yield: a timeline thread that dies fails it instead of leaving it waiting. */
  storeLater(): Promise<void>;
}

/** Begins the timeline: on a second thread for a big incident whose timeline is not current, else at `store`. */
export function beginTimeline(db: IncidentDb, opts: DeriveOptions = {}): PendingTimeline {
  const beside: TimelineBeside | null = timelineIsCurrent(db) ? null : timelineBeside(db, { minEvents: opts.timelineBesideFrom ?? TIMELINE_BESIDE_EVENTS });
  let replayed: ReplaySummary | undefined;
  return {
    landed(summary) {
      replayed = summary;
      if (!beside) return;
      if (summary) beside.landed(summary.landings);
      else beside.cancel();
    },
    store() {
      if (!replayed) return;
      writeTimelineIndex(db, beside ? beside.index() : buildTimelineIndex(db, replayed.landings));
    },
    async storeLater() {
      if (!replayed) return;
      writeTimelineIndex(db, beside ? await beside.indexLater() : buildTimelineIndex(db, replayed.landings));
    },
  };
}

/** Runs `replay` (deriveReplay) and lands it in the pending timeline; a replay that fails lands none, which stops the timeline's thread. */
export function replayFor(timeline: PendingTimeline, replay: () => ReplaySummary | undefined): ReplaySummary | undefined {
  let replayed: ReplaySummary | undefined;
  try {
    replayed = replay();
  } finally {
    timeline.landed(replayed);
  }
  return replayed;
}

function derivedAlready(db: IncidentDb): boolean {
  return storedSignsCurrent(db) && timelineIsCurrent(db) && SnapshotSet.find(db, eventsFingerprint(db), selectProfile(db).profile) !== null;
}
