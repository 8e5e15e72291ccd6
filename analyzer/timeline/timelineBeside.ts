// The timeline index on the second core. Building it reads every event again
// (the columns, the names, the spans), and only the transfers' spans wait on
// the model's landings. So past TIMELINE_BESIDE_EVENTS a worker thread
// (timelineWorker.ts) reads the events while the model replays them here,
// finishes the index when the landings are posted to it, and hands it back
// to be stored; the index is then ready about when the replay and the checks
// are, instead of after them (bench/RESULTS.md "bench:job").

import { existsSync } from "node:fs";
import type { IncidentDb } from "../../store/db.js";
import { eventCount } from "../../store/read/incident.js";
import { bundledEntry } from "../../store/packageFiles.js";
import type { LandingColumns } from "../model/transferPairing.js";
import { startAnsweringThread } from "../threadAnswer.js";
import type { TimelineIndex } from "./timelineIndex.js";
import type { TimelineWorkerData, TimelineWorkerMessage, TimelineWorkerRequest } from "./timelineWorker.js";

const WORKER_URL = bundledEntry("timelineWorker");

/** From this many events the index is built on a worker thread; below, the thread start costs more than it saves. */
export const TIMELINE_BESIDE_EVENTS = 1_000_000;

/** An index being built on a worker thread. */
export interface TimelineBeside {
  /** Hands the worker the model's landings: it finishes the index while the caller goes on. */
  landed(landings: LandingColumns): void;
  /** Waits for the index the landings finished, blocking this thread. */
  index(): TimelineIndex;
  /** The index the landings finish, for a caller that can yield (a worker that dies rejects it). */
  indexLater(): Promise<TimelineIndex>;
  /** The index is not wanted: the worker stops once its reading is done. */
  cancel(): void;
}

/**
 * Starts building the incident's index on a worker thread; null where the
 * incident is small, has no file of its own (in memory), or the worker's
 * module is missing, and the caller builds it itself.
 */
export function timelineBeside(db: IncidentDb, opts: { minEvents?: number } = {}): TimelineBeside | null {
  if (db.memory || !existsSync(WORKER_URL) || eventCount(db) < (opts.minEvents ?? TIMELINE_BESIDE_EVENTS)) return null;
  const data: TimelineWorkerData = { dbPath: db.name };
  const thread = startAnsweringThread<TimelineWorkerMessage>(WORKER_URL, data, "the timeline");
  const send = (request: TimelineWorkerRequest): void => thread.send(request);
  return {
    landed: (landings) => send({ type: "landings", landings }),
    index: () => indexOf(thread.answer()),
    indexLater: async () => indexOf(await thread.answerLater()),
    cancel() {
      send({ type: "cancel" });
      thread.close();
    },
  };
}

function indexOf(msg: TimelineWorkerMessage): TimelineIndex {
  if (msg.type !== "index") throw new Error("the timeline's worker thread answered without an index");
  return msg.index;
}
