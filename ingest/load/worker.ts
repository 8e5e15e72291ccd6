// The worker-thread side of an ingest. A scan worker answers scan requests
// one at a time; a load worker parses and merges its share of the new sources,
// and the parts of cut sources it was given (ingest/load/sourceParts.ts), and
// streams row batches to the main thread, which inserts them meanwhile. The
// batches in flight are bounded per stream through shared counters, so a slow
// store holds the parser back instead of piling batches up in memory; a
// stream that has room is served while another waits, so the merge, which
// needs a row of every stream, always gets the one it waits for.

import { parentPort, workerData } from "node:worker_threads";
import { READ_BYTES } from "../inputs/lines.js";
import { MergedRowStream, type LoadedStats, type LoadSource } from "./loadStream.js";
import { transferList, type RowBatch } from "../../store/rows.js";
import type { PartJob } from "./seamGate.js";
import { PartRowStream } from "./sourceParts.js";
import { scanSource, type ScanRequest } from "../scan/scan.js";
import { ScanAnchors } from "../../store/anchors.js";
import { settleThenExit } from "./workerSettle.js";

export type WorkerData =
  | { mode: "scan"; anchorsPath: string }
  | {
      mode: "load";
      /** Whole sources, merged into the stream `shareStream`. */
      share: LoadSource[];
      shareStream: number;
      /** Parts of cut sources, in file order per source. */
      jobs: PartJob[];
      /** Per cut source's stream: Int32Array of its parts' line counts. */
      counts: Record<number, SharedArrayBuffer>;
      offsets: Record<string, number>;
      batchRows: number;
      /** Raw bytes this worker may read ahead across its sources. */
      readBudget: number;
      /** Batches a stream may have in flight: the share's, a cut source's. */
      limits: { share: number; part: number };
      /** Int32Array: [0] bumped at every batch written; [1 + stream] batches posted and not yet written. */
      control: SharedArrayBuffer;
    };

const port = parentPort!;
const data = workerData as WorkerData;

function reportError(e: unknown): void {
  port.postMessage({ type: "error", message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
}

if (data.mode === "scan") {
  const anchors = new ScanAnchors(data.anchorsPath);
  const onRequest = (req: ScanRequest | "close"): void => {
    if (req === "close") {
      anchors.close();
      port.postMessage({ type: "closed" });
      port.off("message", onRequest);
      settleThenExit();
      return;
    }
    try {
      const report = scanSource(req, (aggs) => anchors.add(req.file, aggs));
      port.postMessage({ type: "scanned", report });
    } catch (e) {
      reportError(e);
    }
  };
  port.on("message", onRequest);
} else {
  try {
    runLoadWorker(data);
  } catch (e) {
    reportError(e);
  }
  settleThenExit();
}

/** One stream a load worker feeds; step() posts its next batch and says whether it was the last. */
interface Producer {
  stream: number;
  limit: number;
  step(post: (msg: object, batch: RowBatch) => void): boolean;
}

function runLoadWorker(d: Extract<WorkerData, { mode: "load" }>): void {
  const control = new Int32Array(d.control);
  const merged = new MergedRowStream(d.share, d.offsets, d.batchRows, d.readBudget);
  const partReadBytes = Math.min(READ_BYTES, Math.max(64 * 1024, Math.floor(d.readBudget / 4)));
  const streams = [...new Set(d.jobs.map((j) => j.stream))];
  const parts = streams.map((stream) => ({
    stream,
    rows: new PartRowStream(d.jobs.filter((j) => j.stream === stream), new Int32Array(d.counts[stream]!), d.offsets, d.batchRows, partReadBytes),
  }));
  const progress = (): { bytes: number; lines: number } => {
    const all = [merged.progress(), ...parts.map((p) => p.rows.progress())];
    return all.reduce((sum, p) => ({ bytes: sum.bytes + p.bytes, lines: sum.lines + p.lines }));
  };
  let shareStats: LoadedStats[] = [];
  const producers: Producer[] = [
    {
      stream: d.shareStream,
      limit: d.limits.share,
      step(post) {
        const { batch, last } = merged.next();
        post({ type: "rows", stream: d.shareStream, batch, progress: progress(), last }, batch);
        if (last) shareStats = merged.stats();
        return last;
      },
    },
    ...parts.map(({ stream, rows }) => ({
      stream,
      limit: d.limits.part,
      step(post: (msg: object, batch: RowBatch) => void): boolean {
        const out = rows.next();
        post({ type: "rows", stream, part: out.index, batch: out.batch, progress: progress() }, out.batch);
        if (out.done !== null) port.postMessage({ type: "part-done", stream, result: out.done });
        return out.last;
      },
    })),
  ];
  const post = (msg: object, batch: RowBatch): void => port.postMessage(msg, transferList(batch));
  let turn = 0;
  while (producers.length > 0) {
    const generation = Atomics.load(control, 0);
    const k = producers.findIndex((_, t) => {
      const p = producers[(turn + t) % producers.length]!;
      return Atomics.load(control, 1 + p.stream) < p.limit;
    });
    if (k < 0) {
      Atomics.wait(control, 0, generation);
      continue;
    }
    const at = (turn + k) % producers.length;
    const p = producers[at]!;
    Atomics.add(control, 1 + p.stream, 1);
    if (p.step(post)) producers.splice(at, 1);
    turn = at + 1;
  }
  port.postMessage({ type: "done", stats: shareStats });
}
