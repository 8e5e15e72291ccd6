// Worker thread: builds an incident's timeline index from its events and
// stores it in the incident file, off the server's main thread.

import { parentPort, workerData } from "node:worker_threads";
import { openIncident } from "../../store/db.js";
import { settleThenExit } from "../../ingest/load/workerSettle.js";
import { storeTimelineIndex } from "./timeline-store.js";

export interface IndexJob {
  dbPath: string;
}

const job = workerData as IndexJob;
try {
  const db = openIncident(job.dbPath);
  try {
    storeTimelineIndex(db);
  } finally {
    db.close();
  }
  parentPort!.postMessage({ ok: true });
} catch (err) {
  parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
}
settleThenExit();
