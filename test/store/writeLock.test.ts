// The ingest's write lock on an incident file: a writer waits for another
// connection's write transaction to end, and gives up with a DatabaseBusyError
// naming the file once its time is spent. The other connection lives in a
// worker thread, as another process's would, so this thread can wait on it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { openIncident } from "../../store/db.js";
import { DatabaseBusyError, IncidentWriter } from "../../store/writer.js";
import { scratchDir } from "../scratchDir.js";

const HOLDER = `
  const { parentPort, workerData } = require("node:worker_threads");
  const Database = require(workerData.sqlite);
  const db = new Database(workerData.path);
  db.exec("BEGIN EXCLUSIVE");
  parentPort.postMessage("locked");
  parentPort.once("message", () => {
    db.exec("COMMIT");
    db.close();
    parentPort.postMessage("released");
  });
`;

/** A worker holding an exclusive transaction on `path` until told to end it. */
async function holdLock(path: string): Promise<{ release(): Promise<void> }> {
  const sqlite = new URL("../../../node_modules/better-sqlite3/lib/index.js", import.meta.url).pathname;
  const worker = new Worker(HOLDER, { eval: true, workerData: { path, sqlite } });
  await new Promise((resolve) => worker.once("message", resolve));
  return {
    release: async () => {
      const released = new Promise((resolve) => worker.once("message", resolve));
      worker.postMessage("release");
      await released;
      await worker.terminate();
    },
  };
}

function newIncident(name: string): string {
  const path = join(scratchDir(`kvrewind-lock-${name}-`), "i.db");
  openIncident(path).close();
  return path;
}

test("a writer gives up on a held incident with an error that names the file, once its time is spent", async () => {
  const path = newIncident("held");
  const holder = await holdLock(path);
  try {
    const writer = IncidentWriter.open(path, 200);
    try {
      assert.throws(
        () => writer.begin(200),
        (e: unknown) => e instanceof DatabaseBusyError && e.message.startsWith(`${path}: another process is writing this incident`),
      );
    } finally {
      writer.close();
    }
  } finally {
    await holder.release();
  }
});

test("a writer takes the lock once the other writer's transaction ends", async () => {
  const path = newIncident("released");
  const holder = await holdLock(path);
  const writer = IncidentWriter.open(path, 200);
  try {
    assert.throws(() => writer.begin(100), DatabaseBusyError);
    await holder.release();
    writer.begin(10_000);
    assert.ok(writer.db.inTransaction);
  } finally {
    writer.close();
  }
});
