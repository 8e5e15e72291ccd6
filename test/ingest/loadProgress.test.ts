// The load's progress counts each byte of the input once: a file large
// enough to be cut into parts (ingest/load/loadPlan.ts; here the cut is made
// small through the pipeline's loadSplit) reads each part on past its end to
// the next part's seam, and the progress bar must still end at the file's
// size, never past it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ingest, type IngestProgress } from "../../ingest/pipeline.js";
import { logStamp, T0, tempDir } from "./bundle.js";

/** A decode log of real batch lines, a little over `bytes` long. */
function decodeLog(path: string, bytes: number): void {
  const fd = openSync(path, "w");
  let written = 0;
  for (let i = 0; written < bytes; i++) {
    let chunk = "";
    for (let j = 0; j < 4096; j++, i++) {
      chunk += `${logStamp(T0 + i * 1000)} DP0 TP0] Decode batch, #running-req: ${i % 80}, #token: ${181234 + i}, token usage: 0.43, #transfer-req: ${i % 60}, gen throughput (token/s): 3712.55, #queue-req: 0\n`;
    }
    written += writeSync(fd, chunk);
  }
  closeSync(fd);
}

test("the load's progress ends at the input's size when a large file is parsed in parts", async () => {
  const dir = tempDir("load-progress");
  const log = join(dir, "decode-tp0.log");
  const split = { splitBytes: 2 << 20, partBytes: 1 << 20 };
  decodeLog(log, 3 * split.splitBytes);
  const size = statSync(log).size;
  const load: IngestProgress[] = [];
  await ingest({ db: join(dir, "i.db"), paths: [log], role: "decode", loadWorkers: 2, loadSplit: split, onProgress: (p) => p.phase === "load" && load.push(p) });
  assert.ok(load.length > 0);
  assert.equal(load[0]!.total, size);
  const overshoot = load.filter((p) => p.done > p.total);
  assert.deepEqual(overshoot.map((p) => `${p.done}/${p.total}`), [], "progress past the input's size");
  assert.equal(load.at(-1)!.done, size, "the last report covers the whole file");
});
