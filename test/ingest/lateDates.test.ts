// A log's undated records take their time from the dated ones around them;
// only a file with no dated line at all has timeless records (DESIGN.md
// "Inputs"). Whether a file has a dated line is known before its parse only
// when its first read chunk holds one (ingest/inputs/sniff.ts); a log whose
// first date lies further in is parsed with the hints of a file without
// dates, and parsed again once its own dates are known
// (ingest/sources/candidates.ts): its undated head still takes the time of
// its first dated line, as the records under it do.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingest } from "../../ingest/pipeline.js";
import { iterateEvents } from "../../store/read/events.js";
import { tempDir, withDb } from "./bundle.js";

test("a log whose first date lies past its first 256 KiB: its undated head takes that date, none is timeless", async () => {
  const dir = tempDir("late-dates");
  const logs = join(dir, "p0");
  const undated = Array.from({ length: 4000 }, (_, i) => `warming up the kernel cache, step ${String(i).padStart(5, "0")} of 4000 ${"-".repeat(40)}`);
  const dated = [
    "[2026-08-20 10:00:01 TP0] Prefill batch, #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0",
    "[2026-08-20 10:00:02 TP0] Prefill batch, #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0",
  ];
  const text = [...undated, ...dated].join("\n") + "\n";
  assert.ok(Buffer.byteLength(undated.join("\n")) > 256 * 1024, "the first date lies past the first read chunk");
  const path = join(logs, "prefill-tp0.log");
  mkdirSync(logs);
  writeFileSync(path, text);
  const progress: { done: number; total: number }[] = [];
  await ingest({ db: join(dir, "incident.db"), paths: [logs], onProgress: (p) => p.phase === "load" && progress.push({ done: p.done, total: p.total }) });
  // Read twice, and counted so: the load's progress ends at its total, never past it.
  assert.deepEqual(progress.filter((p) => p.done > p.total), []);
  assert.deepEqual(progress.at(-1), { done: 2 * Buffer.byteLength(text), total: 2 * Buffer.byteLength(text) });
  const first = Date.UTC(2026, 7, 20, 10, 0, 1) * 1000;
  withDb(join(dir, "incident.db"), (db) => {
    const events = [...iterateEvents(db)];
    assert.equal(events.filter((e) => e.timeless === true).length, 0, "no record is timeless");
    const head = events.filter((e) => e.line <= 4000);
    assert.ok(head.length > 0);
    assert.deepEqual(new Set(head.map((e) => e.tsUs)), new Set([first]), "the undated head takes the first dated line's time");
    assert.ok(head.every((e) => e.tsInferred));
  });
});
