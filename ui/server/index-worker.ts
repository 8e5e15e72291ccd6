// Worker thread: builds an incident's timeline index from its database and
// writes it to the cache file, off the server's main thread.

import { parentPort, workerData } from "node:worker_threads";
import { openIncident } from "../../ingest/store/db.js";
import { writeTimelineIndex } from "./timeline-index.js";

export interface IndexJob {
  dbPath: string;
  cachePath: string;
}

const job = workerData as IndexJob;
try {
  const db = openIncident(job.dbPath, { readonly: true });
  try {
    writeTimelineIndex(db, job.cachePath);
  } finally {
    db.close();
  }
  parentPort!.postMessage({ ok: true });
} catch (err) {
  parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
}
