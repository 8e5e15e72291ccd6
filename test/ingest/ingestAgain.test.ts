// The same bundle ingested again (a user re-running the command, the
// server's re-analysis of an upload) reads no line when every file is one
// the incident holds: each is reported as the duplicate it is, as it was
// stored. One new file among them and the ingest parses as usual.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ingest, type IngestProgress } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";
import { listIngestedSources } from "../../store/read/sources.js";
import { tempDir, withDb, writeTree } from "./bundle.js";

const PREFILL = [
  "[2026-06-11 14:00:00 DP0 TP0] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0",
  "[2026-06-11 14:00:10 DP0 TP0] Prefill batch, #new-seq: 2, #new-token: 4096, #cached-token: 0, token usage: 0.05, #running-req: 2, #queue-req: 0",
];
const DECODE = [
  "[2026-06-11 14:00:05 DP0 TP0] Decode batch, #running-req: 44, #token: 303600, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: 5, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0",
  "[2026-06-11 14:00:15 DP0 TP0] Decode batch, #running-req: 44, #token: 303700, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: 5, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0",
];
const text = (lines: readonly string[]) => `${lines.join("\n")}\n`;

/** What a source's summary says of who wrote it and what it is, whichever way it was found. */
const who = (s: SourceSummary) => ({ path: s.path, format: s.format, wrapper: s.wrapper, host: s.host, role: s.role, lines: s.lines, bytes: s.bytes, sha256: s.sha256 });

test("the same files again are duplicates reported as stored, and no line is parsed", async () => {
  const dir = tempDir("again");
  const root = join(dir, "bundle");
  writeTree(root, { "node-a/prefill.log": text(PREFILL), "node-b/decode.log.gz": gzipSync(text(DECODE)), "notes.md": "restarted decode at 14:01\n" });
  const db = join(dir, "i.db");
  const first = await ingest({ db, paths: [root] });
  const ingested = first.sources.filter((s) => s.status === "ingested");
  assert.deepEqual(ingested.map((s) => [s.path.replace(/^.*bundle\//, ""), s.host, s.role]), [
    ["node-a/prefill.log", "node-a", "prefill"],
    ["node-b/decode.log.gz", "node-b", "decode"],
    ["notes.md", null, null],
  ]);

  const phases: IngestProgress[] = [];
  const again = await ingest({ db, paths: [root], onProgress: (p) => phases.push(p) });
  assert.equal(again.eventsAdded, 0);
  assert.equal(again.eventsTotal, first.eventsTotal);
  assert.deepEqual(again.sources.map((s) => [s.status, s.reason]), ingested.map(() => ["duplicate", "already in this incident (same path, same sha256)"]));
  assert.deepEqual(again.sources.map(who), ingested.map(who));
  assert.deepEqual(phases.filter((p) => p.lines > 0), [], "no line was parsed");
  withDb(db, (h) => assert.equal(listIngestedSources(h).length, 3));
});

test("one new file among files the incident holds is ingested, and the others stay duplicates of who they were", async () => {
  const dir = tempDir("again-plus");
  const root = join(dir, "bundle");
  writeTree(root, { "node-a/prefill.log": text(PREFILL), "node-b/decode.log": text(DECODE) });
  const db = join(dir, "i.db");
  const first = await ingest({ db, paths: [root] });
  writeTree(root, { "node-b/decode.log.1": text(DECODE.map((l) => l.replace("14:00:", "13:59:"))) });
  const again = await ingest({ db, paths: [root] });
  assert.deepEqual(
    again.sources.map((s) => [s.path.replace(/^.*bundle\//, ""), s.status, s.host]),
    [
      ["node-a/prefill.log", "duplicate", "node-a"],
      ["node-b/decode.log.1", "ingested", "node-b"],
      ["node-b/decode.log", "duplicate", "node-b"],
    ],
  );
  assert.equal(again.eventsAdded, 2);
  assert.deepEqual(again.sources.filter((s) => s.status === "duplicate").map(who), first.sources.map(who));
});
