// The main-thread side of the ingest workers: a small pool for the scan, and
// the load worker whose row batches are handed to the writer as they arrive.

import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { LoadedStats, LoadProgress, LoadSource } from "./loadStream.js";
import type { RowBatch } from "./rows.js";
import type { ScanReport, ScanRequest } from "./scan.js";
import type { WorkerData } from "./worker.js";

const WORKER_URL = new URL("./worker.js", import.meta.url);
/** Rows per batch sent by the load worker (a multiple of the writer's rows per INSERT). */
const BATCH_ROWS = 2048;

type WorkerMessage =
  | { type: "scanned"; report: ScanReport }
  | { type: "closed" }
  | { type: "rows"; batch: RowBatch; progress: LoadProgress }
  | { type: "done"; stats: LoadedStats[] }
  | { type: "error"; message: string; stack?: string };

function spawn(data: WorkerData): Worker {
  return new Worker(WORKER_URL, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
}

export interface ScanResults {
  reports: (ScanReport | Error)[];
  /** The workers' anchor stores (ingest/store/anchors.ts). */
  anchorStores: string[];
}

/**
 * Scans every request on up to `parallel` workers; a request that fails yields
 * its Error. Each worker keeps the anchors it finds in a store under `dir`.
 */
export async function scanAll(
  requests: readonly ScanRequest[],
  parallel: number,
  dir: string,
  onScanned: (index: number, report: ScanReport | Error) => void,
): Promise<ScanResults> {
  const reports: (ScanReport | Error)[] = new Array(requests.length);
  const anchorStores: string[] = [];
  let next = 0;
  const run = async (n: number): Promise<void> => {
    const anchorsPath = join(dir, `anchors-${n}.db`);
    anchorStores.push(anchorsPath);
    const worker = spawn({ mode: "scan", anchorsPath });
    try {
      while (next < requests.length) {
        const i = next++;
        const answer = await ask(worker, requests[i]!);
        reports[i] = answer.type === "scanned" ? answer.report : new Error(answer.type === "error" ? answer.message : `unexpected ${answer.type}`);
        onScanned(i, reports[i]!);
      }
      await ask(worker, "close");
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, requests.length)) }, (_, n) => run(n)));
  return { reports, anchorStores: anchorStores.sort() };
}

/** Sends one request to a scan worker and waits for its answer. */
function ask(worker: Worker, req: ScanRequest | "close"): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: WorkerMessage): void => {
      cleanup();
      resolve(msg);
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const cleanup = (): void => {
      worker.off("message", onMessage);
      worker.off("error", onError);
    };
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.postMessage(req);
  });
}

/**
 * Runs the load worker over `sources`; `onBatch` receives each batch of rows
 * in the global order (and must store them before returning).
 */
export function runLoad(
  sources: LoadSource[],
  offsets: Record<string, number>,
  onBatch: (batch: RowBatch, progress: LoadProgress) => void,
): Promise<LoadedStats[]> {
  const inFlight = new SharedArrayBuffer(4);
  const counter = new Int32Array(inFlight);
  const worker = spawn({ mode: "load", sources, offsets, batchRows: BATCH_ROWS, maxInFlight: 8, inFlight });
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(e);
    };
    worker.on("message", (msg: WorkerMessage) => {
      if (settled) return;
      if (msg.type === "rows") {
        try {
          onBatch(msg.batch, msg.progress);
        } catch (e) {
          fail(e as Error);
          return;
        }
        Atomics.sub(counter, 0, 1);
        Atomics.notify(counter, 0);
      } else if (msg.type === "done") {
        settled = true;
        resolve(msg.stats);
      } else if (msg.type === "error") {
        fail(new Error(msg.message));
      }
    });
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the parse worker stopped (exit code ${code})`)));
  });
}
