// The main-thread side of the ingest workers: a small pool for the scan, and
// the load workers, whose row streams are merged and handed to the writer as they arrive.

import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { MergedRowStream, type LoadedStats, type LoadProgress, type LoadSource } from "./loadStream.js";
import { DEFAULT_SPLIT, PartChain, planLoad, type SplitOptions } from "./loadPlan.js";
import type { RowBatch } from "../../store/rows.js";
import type { PartResult } from "./seamGate.js";
import { StreamMerge } from "./streamMerge.js";
import { type RowSink } from "../../store/rows.js";
import { scanSource, type ScanReport, type ScanRequest } from "../scan/scan.js";
import { ScanAnchors } from "../../store/anchors.js";
import type { WorkerData } from "./worker.js";
import { bundledEntry } from "../../store/packageFiles.js";

const WORKER_URL = bundledEntry("worker");
/** Rows per batch sent by a load worker (a multiple of the writer's rows per INSERT). */
const BATCH_ROWS = 2048;
/** Raw bytes read ahead across all sources of a load, shared by its workers. */
const LOAD_READ_BUDGET = 24 * 1024 * 1024;
/** Batches a load worker may have posted and not yet seen written (bounds memory). */
const MAX_IN_FLIGHT = 8;

type WorkerMessage =
  | { type: "scanned"; report: ScanReport }
  | { type: "closed" }
  /** `last`: the share stream's last batch. */
  | { type: "rows"; stream: number; part?: number; batch: RowBatch; progress: LoadProgress; last?: boolean }
  | { type: "part-done"; stream: number; result: PartResult }
  | { type: "done"; stats: LoadedStats[] }
  | { type: "error"; message: string; stack?: string };

function spawn(data: WorkerData): Worker {
  return new Worker(WORKER_URL, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
}

export interface ScanResults {
  reports: (ScanReport | Error)[];
  /** The workers' anchor stores (store/anchors.ts). */
  anchorStores: string[];
}

/**
 * Scans every request on up to `parallel` workers (none: on this thread); a
 * request that fails yields its Error. Each worker keeps the anchors it finds
 * in a store under `dir`.
 */
export async function scanAll(
  requests: readonly ScanRequest[],
  parallel: number,
  dir: string,
  onScanned: (index: number, report: ScanReport | Error) => void,
): Promise<ScanResults> {
  if (parallel === 0) return scanInThread(requests, join(dir, "anchors-0.db"), onScanned);
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
      // Closed, the worker exits by itself once it has settled (ingest/load/workerSettle.ts).
      await ask(worker, "close");
    } catch (e) {
      await worker.terminate();
      throw e;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, requests.length)) }, (_, n) => run(n)));
  return { reports, anchorStores: anchorStores.sort() };
}

/** One scan at a time on this thread: for a small input, starting a worker costs more than the scan. */
function scanInThread(requests: readonly ScanRequest[], anchorsPath: string, onScanned: (index: number, report: ScanReport | Error) => void): ScanResults {
  const anchors = new ScanAnchors(anchorsPath);
  try {
    const reports = requests.map((req, i) => {
      let report: ScanReport | Error;
      try {
        report = scanSource(req, (aggs) => anchors.add(req.file, aggs));
      } catch (e) {
        report = e instanceof Error ? e : new Error(String(e));
      }
      onScanned(i, report);
      return report;
    });
    return { reports, anchorStores: [anchorsPath] };
  } finally {
    anchors.close();
  }
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
 * Below this many bytes of new sources the scan and the load run on this
 * thread: a worker's start-up, its smaller heap and the batches' transfer
 * cost more than overlapping the parse with the inserts saves (measured in
 * bench/RESULTS.md); from here up two workers share the work.
 */
export const IN_THREAD_BYTES = 16 * 1024 * 1024;
/**
 * Batches of a cut source's parts a worker may have posted and not yet seen
 * written: enough to parse a few parts ahead while the merge takes the parts
 * in order (ingest/load/loadPlan.ts).
 */
const PART_IN_FLIGHT = 32;

/** The whole load on this thread: the sources merged as one stream straight into the sink. */
function loadInThread(sources: LoadSource[], offsets: Record<string, number>, sink: RowSink, onProgress: (progress: LoadProgress) => void): LoadedStats[] {
  const merged = new MergedRowStream(sources, offsets, BATCH_ROWS, LOAD_READ_BUDGET);
  for (;;) {
    const { batch, last } = merged.next();
    sink.addTexts(batch.texts);
    for (let i = 0; i < batch.length; i++) sink.addRow(batch, i);
    onProgress(merged.progress());
    if (last) return merged.stats();
  }
}

/**
 * Parses and merges `sources` into the global order on load workers (by
 * default two when there is enough to parse: the store thread inserts
 * meanwhile, and parsing costs more than inserting), handing every row to
 * `sink` in order.
 * Whole sources are dealt into shares balanced by bytes, each merged on its
 * worker; a source too large for that is cut into parts parsed on both
 * (ingest/load/loadPlan.ts). The streams are merged here (ingest/load/streamMerge.ts).
 */
export function runLoad(
  sources: LoadSource[],
  offsets: Record<string, number>,
  sink: RowSink,
  onProgress: (progress: LoadProgress) => void,
  workerCount?: number,
  split: SplitOptions = DEFAULT_SPLIT,
): Promise<LoadedStats[]> {
  const bytes = sources.reduce((n, s) => n + s.bytes, 0);
  if (workerCount === undefined && bytes < IN_THREAD_BYTES) return Promise.resolve(loadInThread(sources, offsets, sink, onProgress));
  const wanted = Math.max(1, workerCount ?? Math.min(2, availableParallelism()));
  let plan = planLoad(sources, wanted, split);
  if (plan.split.length === 0 && sources.length < wanted) plan = planLoad(sources, Math.max(1, sources.length), split);
  const workers = plan.shares.length;
  const streams = workers + plan.split.length;
  const controls = plan.shares.map(() => new Int32Array(new SharedArrayBuffer(4 * (1 + streams))));
  const progress = plan.shares.map(() => ({ bytes: 0, lines: 0 }));
  const release = (w: number, stream: number): void => {
    Atomics.sub(controls[w]!, 1 + stream, 1);
    Atomics.add(controls[w]!, 0, 1);
    Atomics.notify(controls[w]!, 0);
  };
  const chains: PartChain[] = [];
  const merge = new StreamMerge(streams, sink, (stream) => release(stream < workers ? stream : chains[stream - workers]!.handedOn.shift()!, stream));
  for (const s of plan.split) {
    chains.push(new PartChain(s, (batch) => merge.add(s.stream, batch), () => merge.end(s.stream)));
  }
  const threads = plan.shares.map((share, w) =>
    spawn({
      mode: "load",
      share,
      shareStream: w,
      jobs: plan.jobs[w]!,
      counts: Object.fromEntries(plan.split.map((s) => [s.stream, s.counts])),
      offsets,
      batchRows: BATCH_ROWS,
      readBudget: Math.floor(LOAD_READ_BUDGET / workers),
      limits: { share: MAX_IN_FLIGHT, part: PART_IN_FLIGHT },
      control: controls[w]!.buffer as SharedArrayBuffer,
    }),
  );
  return new Promise((resolve, reject) => {
    const stats: LoadedStats[][] = [];
    let running = threads.length;
    let settled = false;
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      for (const worker of threads) void worker.terminate();
      reject(e);
    };
    const finish = (): void => {
      settled = true;
      const bySource = new Map([...stats.flat(), ...chains.map((c) => c.stats())].map((s) => [s.sourceId, s]));
      resolve(sources.map((s) => bySource.get(s.sourceId)!));
    };
    threads.forEach((worker, w) => {
      worker.on("message", (msg: WorkerMessage) => {
        if (settled) return;
        try {
          if (msg.type === "rows") {
            progress[w] = msg.progress;
            if (msg.stream < workers) {
              merge.add(msg.stream, msg.batch);
              if (msg.last === true) merge.end(msg.stream);
            } else chains[msg.stream - workers]!.rows(w, msg.part!, msg.batch);
            onProgress(progress.reduce((sum, p) => ({ bytes: sum.bytes + p.bytes, lines: sum.lines + p.lines })));
          } else if (msg.type === "part-done") {
            chains[msg.stream - workers]!.partDone(msg.result);
          } else if (msg.type === "done") {
            stats[w] = msg.stats;
            if (--running === 0) finish();
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
