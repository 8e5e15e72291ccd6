// The worker-thread side of an ingest's parse: a load worker parses its
// share of the sources, each whole, and the parts of cut sources it was
// given (ingest/load/sourceParts.ts), and posts each source's (or part's)
// row batches to the main thread as they fill, then its statistics and facts.
// Nothing waits on the main thread: it keeps the runs until every source is
// parsed (ingest/load/workers.ts).

import { parentPort, workerData } from "node:worker_threads";
import { READ_BYTES } from "../inputs/lines.js";
import { SourceRows, type LoadSource } from "./loadStream.js";
import { packBatch, transferList, type RowBatch } from "../../store/rows.js";
import type { PartJob } from "./seamGate.js";
import { PartRowStream } from "./sourceParts.js";
import { settleThenExit } from "./workerSettle.js";

export interface WorkerData {
  /** Whole sources. */
  share: LoadSource[];
  /** Parts of cut sources, in file order per source. */
  jobs: PartJob[];
  /** Per cut source (its index among them): Int32Array of its parts' line counts. */
  counts: Record<number, SharedArrayBuffer>;
  batchRows: number;
  /** Raw bytes read at a time from a source. */
  readBytes: number;
}

const port = parentPort!;
const data = workerData as WorkerData;

try {
  parseShare(data);
} catch (e) {
  port.postMessage({ type: "error", message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
}
settleThenExit();

/** Posts a message with its batch packed (store/rows.ts packBatch) as `batch`. */
function post(msg: object, batch: RowBatch): void {
  const packed = packBatch(batch);
  port.postMessage({ ...msg, batch: packed }, transferList(packed));
}

function parseShare(d: WorkerData): void {
  let bytesDone = 0;
  let linesDone = 0;
  const progress = (p: { bytes: number; lines: number }) => ({ bytes: bytesDone + p.bytes, lines: linesDone + p.lines });
  for (const stream of [...new Set(d.jobs.map((j) => j.stream))]) {
    const rows = new PartRowStream(
      d.jobs.filter((j) => j.stream === stream),
      new Int32Array(d.counts[stream]!),
      d.batchRows,
      Math.min(READ_BYTES, d.readBytes),
    );
    for (let last = false; !last; ) {
      const out = rows.next();
      post({ type: "part-rows", stream, part: out.index, batch: out.batch, progress: progress(rows.progress()) }, out.batch);
      if (out.done !== null) port.postMessage({ type: "part-done", stream, result: out.done });
      last = out.last;
    }
    const p = rows.progress();
    bytesDone += p.bytes;
    linesDone += p.lines;
  }
  for (const source of d.share) {
    const rows = new SourceRows(source, d.batchRows, d.readBytes);
    for (let last = false; !last; ) {
      const out = rows.next();
      post({ type: "rows", sourceId: source.sourceId, batch: out.batch, progress: progress(rows.progress()) }, out.batch);
      last = out.last;
    }
    const p = rows.progress();
    bytesDone += p.bytes;
    linesDone += p.lines;
    port.postMessage({ type: "source-done", sourceId: source.sourceId, ...rows.result() });
  }
  port.postMessage({ type: "done" });
}
