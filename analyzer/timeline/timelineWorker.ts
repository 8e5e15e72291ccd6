// The timeline index built on a thread of its own (timelineBeside.ts): it
// opens the incident read-only and reads everything the index needs of the
// events while the model replays them on the main thread, then waits for the
// model's landings to draw the transfers, and hands the index back.

import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { LandingColumns } from "../model/transferPairing.js";
import type { TimelineIndex } from "./timelineIndex.js";

export interface TimelineWorkerData {
  dbPath: string;
  /** Where the landings come in (or the word that none will), and the index (or the error) goes out. */
  port: MessagePort;
  /** Set to 1, then notified, once the answer is on the port. */
  done: Int32Array;
}

/** To the worker: the model's landings, or that the index is not wanted after all. */
export type TimelineWorkerRequest = { type: "landings"; landings: LandingColumns } | { type: "cancel" };
export type TimelineWorkerMessage = { type: "index"; index: TimelineIndex } | { type: "cancelled" } | { type: "error"; message: string };

const data = workerData as TimelineWorkerData;
const post = (msg: TimelineWorkerMessage, transfer: ArrayBuffer[] = []): void => data.port.postMessage(msg, transfer);
const request = new Promise<TimelineWorkerRequest>((resolve) => data.port.once("message", resolve));
try {
  // Loaded here, inside the try: a module that fails to load is an error posted, not a thread that never answers.
  const [{ openIncident }, { draftTimelineIndex, finishTimelineIndex }] = await Promise.all([import("../../store/db.js"), import("./timelineIndex.js")]);
  const db = openIncident(data.dbPath, { readonly: true });
  try {
    const draft = draftTimelineIndex(db);
    const wanted = await request;
    if (wanted.type === "cancel") post({ type: "cancelled" });
    else {
      const index = finishTimelineIndex(draft, wanted.landings);
      post({ type: "index", index }, buffersOf(index));
    }
  } finally {
    db.close();
  }
} catch (err) {
  post({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
} finally {
  Atomics.store(data.done, 0, 1);
  Atomics.notify(data.done, 0);
  data.port.close();
  parentPort?.close();
}

/** Every column's buffer, once each: they move to the main thread instead of being copied. */
function buffersOf(index: TimelineIndex): ArrayBuffer[] {
  const columns = [index.ts, index.seq, index.lane, index.kind, index.tone, index.timeQuality, index.label, index.posOfSeq, ...Object.values(index.spans), ...Object.values(index.landings), index.counters.ts, index.counters.value, index.counters.seq];
  return [...new Set(columns.map((c) => c.buffer as ArrayBuffer))];
}
