// The worker-thread side of an ingest. A scan worker answers scan requests
// one at a time; a load worker parses and merges its share of the new sources
// and streams row batches to the main thread, which inserts them meanwhile. The number of
// batches in flight is bounded through a shared counter, so a slow store
// holds the parser back instead of piling batches up in memory.

import { parentPort, workerData } from "node:worker_threads";
import { produceRows, type LoadSource } from "./loadStream.js";
import { transferList } from "./rows.js";
import { scanSource, type ScanRequest } from "./scan.js";
import { ScanAnchors } from "./store/anchors.js";

export type WorkerData =
  | { mode: "scan"; anchorsPath: string }
  | {
      mode: "load";
      sources: LoadSource[];
      offsets: Record<string, number>;
      batchRows: number;
      /** Raw bytes this worker may read ahead across its sources. */
      readBudget: number;
      maxInFlight: number;
      /** Int32Array[1]: batches posted and not yet inserted. */
      inFlight: SharedArrayBuffer;
    };

const port = parentPort!;
const data = workerData as WorkerData;

function reportError(e: unknown): void {
  port.postMessage({ type: "error", message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });
}

if (data.mode === "scan") {
  const anchors = new ScanAnchors(data.anchorsPath);
  port.on("message", (req: ScanRequest | "close") => {
    if (req === "close") {
      anchors.close();
      port.postMessage({ type: "closed" });
      return;
    }
    try {
      const report = scanSource(req, (aggs) => anchors.add(req.file, aggs));
      port.postMessage({ type: "scanned", report });
    } catch (e) {
      reportError(e);
    }
  });
} else {
  const inFlight = new Int32Array(data.inFlight);
  try {
    const stats = produceRows(data.sources, data.offsets, data.batchRows, data.readBudget, (batch, progress) => {
      for (;;) {
        const n = Atomics.load(inFlight, 0);
        if (n < data.maxInFlight) break;
        Atomics.wait(inFlight, 0, n);
      }
      Atomics.add(inFlight, 0, 1);
      port.postMessage({ type: "rows", batch, progress }, transferList(batch));
    });
    port.postMessage({ type: "done", stats });
  } catch (e) {
    reportError(e);
  }
}
