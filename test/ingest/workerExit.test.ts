// An ingest's worker threads end by themselves once their work is done
// (ingest/load/workerSettle.ts): none is terminated by the main thread, and each
// exits with code 0. Terminating a worker that has just run hot code can
// abort the whole process on Node 20 (a concurrent compile job meets its
// unregistered isolate), which happened once in CI.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { ingest } from "../../ingest/pipeline.js";
import { scratchDir } from "../scratchDir.js";

/** Every Worker's terminate() calls and exit codes, from here on. */
function watchWorkers(): { terminated: () => number; online: () => number; exits: () => Promise<number[]> } {
  let terminated = 0;
  let online = 0;
  const codes: number[] = [];
  let waiting: (() => void) | null = null;
  const terminate = Worker.prototype.terminate;
  Worker.prototype.terminate = function (this: Worker) {
    terminated++;
    return terminate.call(this);
  };
  const emit = Worker.prototype.emit;
  Worker.prototype.emit = function (this: Worker, name: string | symbol, ...args: unknown[]) {
    if (name === "online") online++;
    if (name === "exit") {
      codes.push(args[0] as number);
      waiting?.();
    }
    return emit.call(this, name, ...args);
  };
  return {
    terminated: () => terminated,
    online: () => online,
    // Resolves once every worker that came online has exited (the test's timeout bounds the wait).
    exits: () =>
      new Promise((resolve) => {
        const check = (): void => {
          if (codes.length >= online) resolve(codes);
        };
        waiting = check;
        check();
      }),
  };
}

test("a finished ingest terminates none of its workers: each exits by itself, with code 0", async () => {
  const dir = scratchDir("kvrewind-worker-exit-");
  const logs = join(dir, "logs");
  mkdirSync(logs);
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
    const room = 7_000_000_000_000_000_000n + BigInt(i);
    const s = String(10 + (i % 50)).padStart(2, "0");
    lines.push(`[2026-08-20 10:00:${s}.${String(i % 1000).padStart(3, "0")} TP${i % 4}] sending kvcache to d0-tp${i % 4} with notif ${room}_kv_0_1_${i % 4}`);
  }
  writeFileSync(join(logs, "prefill-tp0.log"), lines.join("\n") + "\n");
  const workers = watchWorkers();
  // A small input is read on the main thread unless workers are asked for.
  const result = await ingest({ db: join(dir, "incident.db"), paths: [logs], loadWorkers: 1 });
  assert.equal(result.eventsAdded, 400, "the ingest read every line");
  assert.ok(workers.online() >= 1, `a load worker at least (${workers.online()} came online)`);
  const codes = await workers.exits();
  assert.equal(workers.terminated(), 0, "no worker was terminated");
  assert.deepEqual(codes, codes.map(() => 0), "every worker exited by itself");
});

test("a small ingest starts no worker: the load runs on this thread", async () => {
  const dir = scratchDir("kvrewind-in-thread-");
  const logs = join(dir, "logs");
  mkdirSync(logs);
  writeFileSync(join(logs, "prefill-tp0.log"), "[2026-08-20 10:00:01 TP0] sending kvcache to d0-tp0 with notif 7000000000000000001_kv_0_1_0\n");
  const workers = watchWorkers();
  const result = await ingest({ db: join(dir, "incident.db"), paths: [logs] });
  assert.equal(result.eventsAdded, 1);
  assert.equal(workers.online(), 0);
});
