// The main-thread side of the parse: the sources parsed on load workers (or
// on this thread for a small input), each into a run of row batches in file
// order, packed where they were parsed (store/rows.ts packBatch), kept
// (ingest/load/runStore.ts) with its statistics and facts until every source
// is parsed; the runs are merged into the global order after (ingest/load/runs.ts).

import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { SourceRows, type LoadProgress, type LoadSource, type ParsedSource } from "./loadStream.js";
import { DEFAULT_SPLIT, PartChain, planLoad, type SplitOptions } from "./loadPlan.js";
import { packBatch, type PackedBatch } from "../../store/rows.js";
import type { RunStore, WaitingBatch } from "./runStore.js";
import type { PartResult } from "./seamGate.js";
import type { WorkerData } from "./worker.js";
import { READ_BYTES } from "../inputs/lines.js";
import { fileSha256 } from "../inputs/fileHash.js";
import { bundledEntry } from "../../store/packageFiles.js";

const WORKER_URL = bundledEntry("worker");
/** Rows per batch sent by a load worker (a multiple of the writer's rows per INSERT). */
const BATCH_ROWS = 2048;

type WorkerMessage =
  | { type: "rows"; sourceId: number; batch: PackedBatch; progress: LoadProgress }
  | { type: "source-done"; sourceId: number; stats: ParsedSource["stats"]; facts: ParsedSource["facts"] }
  | { type: "part-rows"; stream: number; part: number; batch: PackedBatch; progress: LoadProgress }
  | { type: "part-done"; stream: number; result: PartResult }
  | { type: "done" }
  | { type: "error"; message: string; stack?: string };

/**
 * Below this many bytes of sources the parse runs on this thread: a worker's
 * start-up, its smaller heap and the batches' transfer cost more than the
 * second core saves (measured in bench/RESULTS.md); from here up two workers
 * share the work.
 */
export const IN_THREAD_BYTES = 16 * 1024 * 1024;

/** The parse on this thread, one source after another. */
function parseInThread(sources: readonly LoadSource[], store: RunStore, onProgress: (progress: LoadProgress) => void): ParsedSource[] {
  const done = { bytes: 0, lines: 0 };
  return sources.map((source) => {
    const rows = new SourceRows(source, BATCH_ROWS, READ_BYTES);
    const batches: WaitingBatch[] = [];
    for (let last = false; !last; ) {
      const out = rows.next();
      batches.push(store.keep(packBatch(out.batch)));
      last = out.last;
      const p = rows.progress();
      onProgress({ bytes: done.bytes + p.bytes, lines: done.lines + p.lines });
    }
    const p = rows.progress();
    done.bytes += p.bytes;
    done.lines += p.lines;
    return { ...rows.result(), batches };
  });
}

/**
 * Parses every source into its run, in the order of `sources`: on load
 * workers (by default two when there is enough to parse), whole sources
 * dealt into shares balanced by bytes, and a source too large for that cut
 * into parts parsed on both (ingest/load/loadPlan.ts); below IN_THREAD_BYTES
 * on this thread.
 */
export async function runParse(
  sources: readonly LoadSource[],
  store: RunStore,
  onProgress: (progress: LoadProgress) => void,
  workerCount?: number,
  split: SplitOptions = DEFAULT_SPLIT,
): Promise<ParsedSource[]> {
  const bytes = sources.reduce((n, s) => n + s.bytes, 0);
  if (workerCount === undefined && bytes < IN_THREAD_BYTES) return parseInThread(sources, store, onProgress);
  const wanted = Math.max(1, workerCount ?? Math.min(2, availableParallelism()));
  let plan = planLoad(sources, wanted, split);
  if (plan.split.length === 0 && sources.length < wanted) plan = planLoad(sources, Math.max(1, sources.length), split);
  const chains = plan.split.map((s) => new PartChain(s));
  const hashes = Promise.all(plan.split.map((s) => fileSha256(s.source.plainPath, s.source.bytes)));
  const runs = new Map<number, WaitingBatch[]>();
  const whole = new Map<number, Omit<ParsedSource, "batches">>();
  const progress = plan.shares.map(() => ({ bytes: 0, lines: 0 }));
  const threads = plan.shares.map((share, w) => {
    const data: WorkerData = {
      share,
      jobs: plan.jobs[w]!,
      counts: Object.fromEntries(plan.split.map((s) => [s.stream, s.counts])),
      batchRows: BATCH_ROWS,
      readBytes: READ_BYTES,
    };
    return new Worker(WORKER_URL, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 } });
  });
  await new Promise<void>((resolve, reject) => {
    let running = threads.length;
    let settled = false;
    const ended: boolean[] = [];
    const fail = (e: Error): void => {
      if (settled) return;
      settled = true;
      for (const worker of threads) void worker.terminate();
      reject(e);
    };
    const rows = (w: number, p: LoadProgress): void => {
      progress[w] = p;
      onProgress(progress.reduce((sum, x) => ({ bytes: sum.bytes + x.bytes, lines: sum.lines + x.lines })));
    };
    threads.forEach((worker, w) => {
      worker.on("message", (msg: WorkerMessage) => {
        if (settled) return;
        if (msg.type === "rows") {
          (runs.get(msg.sourceId) ?? runs.set(msg.sourceId, []).get(msg.sourceId)!).push(store.keep(msg.batch));
          rows(w, msg.progress);
        } else if (msg.type === "source-done") {
          whole.set(msg.sourceId, { stats: msg.stats, facts: msg.facts });
        } else if (msg.type === "part-rows") {
          chains[msg.stream]!.rows(msg.part, store.keep(msg.batch));
          rows(w, msg.progress);
        } else if (msg.type === "part-done") {
          chains[msg.stream]!.partDone(msg.result);
        } else if (msg.type === "done") {
          ended[w] = true;
          if (--running === 0) {
            settled = true;
            resolve();
          }
        } else if (msg.type === "error") {
          fail(new Error(msg.message));
        }
      });
      worker.on("error", fail);
      worker.on("exit", (code) => {
        if (ended[w] !== true) fail(new Error(`a parse worker stopped before it finished (exit code ${code})`));
      });
    });
  });
  const sha = await hashes;
  const cut = new Map(chains.map((c, i) => [c.split.source.sourceId, c.parsed(sha[i]!)]));
  return sources.map((s) => cut.get(s.sourceId) ?? { ...whole.get(s.sourceId)!, batches: runs.get(s.sourceId)! });
}
