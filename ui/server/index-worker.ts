// Worker thread: builds an incident's timeline index from its database and
// writes it to the cache file, off the server's main thread.

import { writeFileSync, renameSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { openIncident } from "../../ingest/store/db.js";
import { buildTimelineIndex, serializeIndex, type IndexFingerprint } from "./timeline-index.js";

export interface IndexJob {
  dbPath: string;
  cachePath: string;
  fingerprint: IndexFingerprint;
}

const job = workerData as IndexJob;
try {
  const db = openIncident(job.dbPath, { readonly: true });
  const buf = serializeIndex(buildTimelineIndex(db), job.fingerprint);
  db.close();
  writeFileSync(`${job.cachePath}.tmp`, buf);
  renameSync(`${job.cachePath}.tmp`, job.cachePath);
  parentPort!.postMessage({ ok: true });
} catch (err) {
  parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
}
