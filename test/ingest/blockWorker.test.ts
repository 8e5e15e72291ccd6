// Event blocks sealed on a worker thread (ingest/load/blockSealer.ts) while
// the main thread merges: the same events give the same blocks as when the
// main thread seals them, and an ingest that fails while blocks are on the
// worker leaves the incident as it was.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { ingest, type IngestOptions } from "../../ingest/pipeline.js";
import { iterateEvents } from "../../store/read/events.js";
import { LIVE_TABLES } from "../../store/blocks/blockTables.js";
import type { IncidentDb } from "../../store/db.js";
import { bootstrappedPrefillLog, decodeBatchLog, eventRows, skewedBundle, tempDir, withDb, writeTree } from "./bundle.js";
import { watchWorkers } from "./workerWatch.js";

const IN_THREAD = Infinity;
const ON_WORKER = 0;

/** The live blocks as written: each block's row, its stored bytes and its keys, in block order. */
function storedBlocks(db: IncidentDb): { meta: unknown[]; data: Buffer[]; keys: unknown[] } {
  const t = LIVE_TABLES;
  return {
    meta: db.prepare(`SELECT block, first_seq, last_seq, count, min_ts_us, max_ts_us, bytes FROM ${t.blocks} ORDER BY block`).all(),
    data: db.prepare(`SELECT data FROM ${t.data} ORDER BY block`).pluck().all() as Buffer[],
    keys: db.prepare(`SELECT block, dim, key FROM ${t.keys} ORDER BY block, dim, key`).all(),
  };
}

/** The same ingests into two incidents, the blocks sealed on this thread and on a worker; returns both incident paths. */
async function bothWays(dir: string, ingests: Omit<IngestOptions, "db" | "blockWorkerRows">[]): Promise<{ inThread: string; onWorker: string; workers: number }> {
  const inThread = join(dir, "in-thread.db");
  const onWorker = join(dir, "on-worker.db");
  for (const o of ingests) await ingest({ ...o, db: inThread, blockWorkerRows: IN_THREAD });
  const workers = watchWorkers();
  for (const o of ingests) await ingest({ ...o, db: onWorker, blockWorkerRows: ON_WORKER });
  return { inThread, onWorker, workers: await workers.cameOnline(ingests.length) };
}

function assertSameBlocks(inThread: string, onWorker: string, events: number): void {
  const a = withDb(inThread, storedBlocks);
  const b = withDb(onWorker, storedBlocks);
  assert.equal(a.meta.length, Math.ceil(events / 4096), "several blocks, the last one short");
  assert.deepEqual(b.meta, a.meta, "the same blocks: numbers, seqs, counts, times, sizes");
  assert.equal(b.data.length, a.data.length);
  a.data.forEach((bytes, i) => assert.ok(bytes.equals(b.data[i]!), `block ${i}: the same bytes`));
  assert.deepEqual(b.keys, a.keys, "the same keys per block");
  const all = (path: string) => withDb(path, (db) => [...iterateEvents(db)]);
  assert.deepEqual(all(onWorker), all(inThread), "the same events through the store's reader, attrs included");
}

test("blocks sealed on a worker are the blocks sealed on the main thread, byte for byte", async () => {
  const dir = tempDir("block-worker-same");
  const logs = writeTree(join(dir, "logs"), { "p0/prefill-tp0.log": bootstrappedPrefillLog(6000, 0), "d0/decode-tp1.log": decodeBatchLog(5000, 1) });
  const probes = skewedBundle(join(dir, "probes"), 40_000);
  const { inThread, onWorker, workers } = await bothWays(dir, [{ paths: [logs, probes] }]);
  assert.ok(workers >= 1, "the second ingest sealed its blocks on a worker");
  assertSameBlocks(inThread, onWorker, 11_012);
});

test("an ingest added to stored events rewrites them through the worker into the same blocks", async () => {
  const dir = tempDir("block-worker-append");
  const prefill = writeTree(join(dir, "prefill"), { "p0/prefill-tp0.log": bootstrappedPrefillLog(5000, 0) });
  const decode = writeTree(join(dir, "decode"), { "d0/decode-tp1.log": decodeBatchLog(5000, 1) });
  const { inThread, onWorker, workers } = await bothWays(dir, [{ paths: [prefill] }, { paths: [decode], append: true }]);
  assert.ok(workers >= 2, "both ingests sealed their blocks on a worker");
  assertSameBlocks(inThread, onWorker, 10_000);
});

test("an ingest that fails while its blocks are on the worker leaves the incident as it was; the worker exits by itself", async () => {
  const dir = tempDir("block-worker-fail");
  const db = join(dir, "incident.db");
  const first = writeTree(join(dir, "first"), { "p0/prefill-tp0.log": bootstrappedPrefillLog(3, 0) });
  await ingest({ db, paths: [first] });
  const before = withDb(db, eventRows);
  const big = writeTree(join(dir, "big"), { "d0/decode-tp0.log": decodeBatchLog(80_000, 0) });
  const workers = watchWorkers();
  let storedRows = 0;
  const failing = ingest({
    db,
    paths: [big],
    append: true,
    blockWorkerRows: ON_WORKER,
    // The progress report after the first 65,536 rows: sixteen blocks handed to the worker, some written, the rest on their way.
    onProgress: (p) => {
      if (p.phase !== "store" || p.done === 0) return;
      storedRows = p.done;
      throw new Error("stopped mid-write");
    },
  });
  await assert.rejects(failing, /stopped mid-write/);
  assert.ok(storedRows > 4096, `blocks were being written when it failed (${storedRows} rows merged)`);
  withDb(db, (h) => {
    assert.deepEqual(eventRows(h), before, "the incident holds the events it held, and no more");
    assert.deepEqual(h.prepare("SELECT path, status FROM sources").all(), [{ path: join(first, "p0/prefill-tp0.log"), status: "complete" }]);
    assert.equal(h.pragma("integrity_check", { simple: true }), "ok");
  });
  assert.ok((await workers.cameOnline(1)) >= 1, "the blocks were on a worker");
  const codes = await workers.exits();
  assert.equal(workers.terminated(), 0, "no worker was terminated");
  assert.deepEqual(codes, codes.map(() => 0), "every worker exited by itself");
});
