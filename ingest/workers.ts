// The main-thread side of the ingest workers: a small pool for the scan, and
// the load worker whose row batches are handed to the writer as they arrive.

import { Worker } from "node:worker_threads";
import type { LoadedStats, LoadProgress, LoadSource } from "./loadStream.js";
import type { RowBlock } from "./rows.js";
import type { AnchorAgg } from "./clock.js";
import type { ScanReport, ScanRequest } from "./scan.js";
import type { WorkerData } from "./worker.js";

const WORKER_URL = new URL("./worker.js", import.meta.url);

type WorkerMessage =
  | { type: "scanned"; report: ScanReport }
  | { type: "anchors"; aggs: AnchorAgg[] }
  | { type: "rows"; blocks: RowBlock[]; progress: LoadProgress }
  | { type: "done"; stats: LoadedStats[] }
  | { type: "error"; message: string; stack?: string };

function spawn(data: WorkerData): Worker {
  return new Worker(WORKER_URL, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
}

/**
 * Scans every request on up to `parallel` workers; a request that fails yields
 * its Error. Anchors arrive through `onAnchors` with the request's index.
 */
export async function scanAll(
  requests: readonly ScanRequest[],
  parallel: number,
  onAnchors: (index: number, aggs: AnchorAgg[]) => void,
  onScanned: (index: number, report: ScanReport | Error) => void,
): Promise<(ScanReport | Error)[]> {
  const results: (ScanReport | Error)[] = new Array(requests.length);
  let next = 0;
  const run = async (): Promise<void> => {
    const worker = spawn({ mode: "scan" });
    try {
      while (next < requests.length) {
        const i = next++;
        results[i] = await scanOne(worker, requests[i]!, (aggs) => onAnchors(i, aggs));
        onScanned(i, results[i]!);
      }
    } finally {
      await worker.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, requests.length)) }, run));
  return results;
}

function scanOne(worker: Worker, req: ScanRequest, onAnchors: (aggs: AnchorAgg[]) => void): Promise<ScanReport | Error> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: WorkerMessage): void => {
      if (msg.type === "anchors") {
        onAnchors(msg.aggs);
        return;
      }
      cleanup();
      resolve(msg.type === "scanned" ? msg.report : new Error(msg.type === "error" ? msg.message : `unexpected ${msg.type}`));
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
 * Runs the load worker over `sources`; `onBlocks` receives each batch of row
 * blocks in the global order (and must store them before returning).
 */
export function runLoad(
  sources: LoadSource[],
  offsets: Record<string, number>,
  onBlocks: (blocks: RowBlock[], progress: LoadProgress) => void,
): Promise<LoadedStats[]> {
  const inFlight = new SharedArrayBuffer(4);
  const counter = new Int32Array(inFlight);
  const worker = spawn({ mode: "load", sources, offsets, blocksPerBatch: 32, maxInFlight: 8, inFlight });
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
          onBlocks(msg.blocks, msg.progress);
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
