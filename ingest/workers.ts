// The main-thread side of the ingest workers: a small pool for the scan, and
// the load workers, whose row streams are merged and handed to the writer as they arrive.

import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { LoadedStats, LoadProgress, LoadSource } from "./loadStream.js";
import type { RowBatch } from "./rows.js";
import { StreamMerge, type RowSink } from "./streamMerge.js";
import type { ScanReport, ScanRequest } from "./scan.js";
import type { WorkerData } from "./worker.js";

const WORKER_URL = new URL("./worker.js", import.meta.url);
/** Rows per batch sent by a load worker (a multiple of the writer's rows per INSERT). */
const BATCH_ROWS = 2048;
/** Raw bytes read ahead across all sources of a load, shared by its workers. */
const LOAD_READ_BUDGET = 24 * 1024 * 1024;
/** Batches a load worker may have posted and not yet seen written (bounds memory). */
const MAX_IN_FLIGHT = 8;

type WorkerMessage =
  | { type: "scanned"; report: ScanReport }
  | { type: "closed" }
  | { type: "rows"; batch: RowBatch; progress: LoadProgress }
  | { type: "done"; stats: LoadedStats[] }
  | { type: "error"; message: string; stack?: string };

function spawn(data: WorkerData): Worker {
  return new Worker(WORKER_URL, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 } });
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

/** Below this many bytes of new sources one load worker does it all (a worker costs tens of ms to start). */
const ONE_WORKER_BYTES = 16 * 1024 * 1024;

/**
 * Parses and merges `sources` into the global order on load workers (by
 * default two when there is enough to parse: the store thread inserts
 * meanwhile, and parsing costs more than inserting), handing every row to
 * `sink` in order.
 * Each worker takes a share of the sources balanced by bytes; their streams
 * are merged here (ingest/streamMerge.ts).
 */
export function runLoad(
  sources: LoadSource[],
  offsets: Record<string, number>,
  sink: RowSink,
  onProgress: (progress: LoadProgress) => void,
  workerCount?: number,
): Promise<LoadedStats[]> {
  const bytes = sources.reduce((n, s) => n + s.bytes, 0);
  const shares = shareByBytes(sources, workerCount ?? (bytes < ONE_WORKER_BYTES ? 1 : Math.min(2, availableParallelism())));
  const counters = shares.map(() => new Int32Array(new SharedArrayBuffer(4)));
  const progress = shares.map(() => ({ bytes: 0, lines: 0 }));
  const merge = new StreamMerge(shares.length, sink, (w) => {
    Atomics.sub(counters[w]!, 0, 1);
    Atomics.notify(counters[w]!, 0);
  });
  const workers = shares.map((share, w) =>
    spawn({
      mode: "load",
      sources: share,
      offsets,
      batchRows: BATCH_ROWS,
      readBudget: Math.floor(LOAD_READ_BUDGET / shares.length),
      maxInFlight: MAX_IN_FLIGHT,
      inFlight: counters[w]!.buffer as SharedArrayBuffer,
    }),
  );
  return new Promise((resolve, reject) => {
    const stats: LoadedStats[][] = [];
    let running = workers.length;
    let settled = false;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      for (const worker of workers) void worker.terminate();
      reject(e);
    };
    workers.forEach((worker, w) => {
      worker.on("message", (msg: WorkerMessage) => {
        if (settled) return;
        try {
          if (msg.type === "rows") {
            progress[w] = msg.progress;
            merge.add(w, msg.batch);
            onProgress(progress.reduce((sum, p) => ({ bytes: sum.bytes + p.bytes, lines: sum.lines + p.lines })));
          } else if (msg.type === "done") {
            stats[w] = msg.stats;
            merge.end(w);
            if (--running === 0) {
              settled = true;
              const bySource = new Map(stats.flat().map((s) => [s.sourceId, s]));
              resolve(sources.map((s) => bySource.get(s.sourceId)!));
            }
          } else if (msg.type === "error") {
            fail(new Error(msg.message));
          }
        } catch (e) {
          fail(e as Error);
        }
      });
      worker.on("error", fail);
      worker.on("exit", (code) => {
        if (stats[w] === undefined) fail(new Error(`a parse worker stopped before it finished (exit code ${code})`));
      });
    });
  });
}

/** Sources dealt into `n` shares of about equal bytes (largest first, each to the lightest share). */
function shareByBytes(sources: LoadSource[], n: number): LoadSource[][] {
  const shares = Array.from({ length: Math.max(1, Math.min(n, sources.length)) }, () => ({ bytes: 0, sources: [] as LoadSource[] }));
  for (const s of [...sources].sort((a, b) => b.bytes - a.bytes)) {
    const lightest = shares.reduce((min, share) => (share.bytes < min.bytes ? share : min));
    lightest.bytes += s.bytes;
    lightest.sources.push(s);
  }
  return shares.map((share) => share.sources);
}
