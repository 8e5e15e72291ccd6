// The timeline index built on a thread of its own (timelineBeside.ts): it
// opens the incident read-only and reads everything the index needs of the
// events while the model replays them on the main thread, then waits for the
// model's landings to draw the transfers, and hands the index back.

import { workerData } from "node:worker_threads";
import type { LandingColumns } from "../model/transferPairing.js";
import { answerOnce, type AnsweringData } from "../threadAnswer.js";
import type { TimelineIndex } from "./timelineIndex.js";

export interface TimelineWorkerData {
  dbPath: string;
}

/** To the worker: the model's landings, or that the index is not wanted after all. */
export type TimelineWorkerRequest = { type: "landings"; landings: LandingColumns } | { type: "cancel" };
export type TimelineWorkerMessage = { type: "index"; index: TimelineIndex } | { type: "cancelled" };

const data = workerData as TimelineWorkerData & AnsweringData;
const request = new Promise<TimelineWorkerRequest>((resolve) => data.port.once("message", resolve));
await answerOnce<TimelineWorkerMessage>(data, async (post) => {
  // Loaded here, inside the answer: a module that fails to load is an error posted, not a thread that never answers.
  const [{ openIncident }, { draftTimelineIndex, finishTimelineIndex }] = await Promise.all([import("../../store/db.js"), import("./timelineIndex.js")]);
  const db = openIncident(data.dbPath, { readonly: true });
  try {
    const draft = draftTimelineIndex(db);
    const wanted = await request;
    if (wanted.type === "cancel") return post({ type: "cancelled" });
    const index = finishTimelineIndex(draft, wanted.landings);
    post({ type: "index", index }, buffersOf(index));
  } finally {
    db.close();
  }
});

/** Every column's buffer, once each: they move to the main thread instead of being copied. */
function buffersOf(index: TimelineIndex): ArrayBuffer[] {
  const columns = [index.ts, index.seq, index.lane, index.kind, index.tone, index.timeQuality, index.label, index.posOfSeq, ...Object.values(index.spans), ...Object.values(index.landings), index.counters.ts, index.counters.value, index.counters.seq];
  return [...new Set(columns.map((c) => c.buffer as ArrayBuffer))];
}
