// The replay of an analysis on a thread of its own (analyzer/replay/
// replayBeside.ts): it opens the incident read-only, runs the model over
// every event as replayIncident does, and hands back what the rules read of
// it (analyzer/rules/replayEvidence.ts), then wakes the analysis, which waits
// for it synchronously once its own pass is done.

import { workerData } from "node:worker_threads";
import type { ModelDumpedPage } from "../model/pagePath.js";
import type { ReplayEvidence } from "../rules/replayEvidence.js";
import { answerOnce, type AnsweringData } from "../threadAnswer.js";

export interface ReplayWorkerData {
  dbPath: string;
  profileFlag?: string;
}

/** The evidence, its page kernels as the pages dumped (a class does not cross threads: the kernels are run again on them). */
export type ReplayWorkerMessage = { type: "evidence"; evidence: Omit<ReplayEvidence, "pages">; dumped: ModelDumpedPage[] | null };

const data = workerData as ReplayWorkerData & AnsweringData;
await answerOnce<ReplayWorkerMessage>(data, async (post) => {
  // Loaded here, inside the answer: a module that fails to load is an error posted, not a thread that never answers.
  const [{ openIncident }, { replayEvidenceOf }, { replayIncident }] = await Promise.all([import("../../store/db.js"), import("../rules/replayEvidence.js"), import("./replay.js")]);
  const db = openIncident(data.dbPath, { readonly: true });
  try {
    const summary = replayIncident(db, data.profileFlag !== undefined ? { profileFlag: data.profileFlag } : {});
    const { pages, ...evidence } = replayEvidenceOf(summary);
    post({ type: "evidence", evidence, dumped: pages ? pages.pages : null });
  } finally {
    db.close();
  }
});
