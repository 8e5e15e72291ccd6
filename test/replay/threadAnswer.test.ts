// The one-answer worker protocol (analyzer/threadAnswer.ts) seen from the
// caller: an answer, an error the thread posts, and a thread that dies without
// answering (what a heap it exhausts does: no `finally` runs), which the
// waiting caller must learn of instead of waiting for ever.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startAnsweringThread } from "../../analyzer/threadAnswer.js";
import { scratchDir } from "../scratchDir.js";

/** A worker script in a scratch folder. */
function workerScript(name: string, body: string): string {
  const path = join(scratchDir("kvrewind-thread-"), `${name}.mjs`);
  writeFileSync(path, `import { workerData } from "node:worker_threads";\n${body}\n`);
  return path;
}

test("a thread's answer reaches the caller, blocking or not", async () => {
  const url = workerScript("answers", 'workerData.port.postMessage({ type: "answer", n: workerData.n * 2 }); Atomics.store(workerData.done, 0, 1); Atomics.notify(workerData.done, 0); workerData.port.close();');
  assert.deepEqual(startAnsweringThread(url, { n: 21 }, "the test").answer(), { type: "answer", n: 42 });
  assert.deepEqual(await startAnsweringThread(url, { n: 4 }, "the test").answerLater(), { type: "answer", n: 8 });
});

test("an error the thread posts is thrown to the caller", async () => {
  const url = workerScript("fails", 'workerData.port.postMessage({ type: "error", message: "no such incident" }); Atomics.store(workerData.done, 0, 1); Atomics.notify(workerData.done, 0); workerData.port.close();');
  await assert.rejects(startAnsweringThread(url, {}, "the test").answerLater(), /the test's worker thread failed: no such incident/);
});

test("a thread that dies without answering rejects the caller's wait instead of leaving it waiting", async () => {
  const url = workerScript("dies", "process.exit(1);");
  await assert.rejects(startAnsweringThread(url, {}, "the test").answerLater(), /the test's worker thread ended without an answer/);
});
