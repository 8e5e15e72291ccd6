// The replay of an analysis on a thread of its own (analyzer/replay/
// replayBeside.ts): it opens the incident read-only, runs the model over
// every event as replayIncident does, and hands back what the rules read of
// it (analyzer/rules/replayEvidence.ts), then wakes the analysis, which waits
// for it synchronously once its own pass is done.

import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { ModelDumpedPage } from "../model/pagePath.js";
import type { ReplayEvidence } from "../rules/replayEvidence.js";

export interface ReplayWorkerData {
  dbPath: string;
  profileFlag?: string;
  /** Where the evidence (or the error) is posted. */
  port: MessagePort;
  /** Set to 1, then notified, once the message is on the port. */
  done: Int32Array;
}

/** The evidence, its page kernels as the pages dumped (a class does not cross threads: the kernels are run again on them). */
export type ReplayWorkerMessage = { type: "evidence"; evidence: Omit<ReplayEvidence, "pages">; dumped: ModelDumpedPage[] | null } | { type: "error"; message: string };

const data = workerData as ReplayWorkerData;
const post = (msg: ReplayWorkerMessage): void => data.port.postMessage(msg);
try {
  // Loaded here, inside the try: a module that fails to load is an error posted, not a thread that never answers.
  const [{ openIncident }, { replayEvidenceOf }, { replayIncident }] = await Promise.all([import("../../store/db.js"), import("../rules/replayEvidence.js"), import("./replay.js")]);
  const db = openIncident(data.dbPath, { readonly: true });
  try {
    const summary = replayIncident(db, data.profileFlag !== undefined ? { profileFlag: data.profileFlag } : {});
    const { pages, ...evidence } = replayEvidenceOf(summary);
    post({ type: "evidence", evidence, dumped: pages ? pages.pages : null });
  } finally {
    db.close();
  }
} catch (err) {
  post({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
} finally {
  Atomics.store(data.done, 0, 1);
  Atomics.notify(data.done, 0);
  parentPort?.close();
}
