// LMCache's failures judged (ingest/formats/templates/engines/lmcache.ts): a block the
// lookup found and could not read back, and an L2 adapter's failed store task, are
// a failure of the storage LMCache keeps the KV cache in (transport-failure, in
// LMCache's own words). The store line is the one pasted into LMCache/LMCache#5123
// (the working half of test/corpus); the retrieval line is the template's sample.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";
import { scratchDir } from "../scratchDir.js";
import { analyzeCli, violated } from "./handBundles.js";

function report(name: string, lines: string[]): AnalysisReport {
  const file = join(scratchDir("kvrewind-lmcache-failures-"), name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return JSON.parse(analyzeCli(file, "--json").stdout) as AnalysisReport;
}

test("an L2 adapter's failed store task is a failure of LMCache's storage, high, its storage to check", () => {
  const r = report("lmcache.log", ["[2026-09-15 06:24:51,595] LMCache WARNING: Store task 1 to adapter 0 failed for keys: ...."]);
  const failures = violated(r, "transport-failure");
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.severity, "high");
  assert.match(failures[0]!.title, /LMCache l2 store failed: an L2 adapter did not store a task's keys/);
  assert.ok(failures[0]!.explanation.startsWith("Let LMCache keep the KV cache it offloads"));
  assert.match(failures[0]!.falsify, /L2 adapter's server/);
});

test("a block LMCache found and could not read back is the same storage's failure", () => {
  const r = report("retrieve.log", [
    "(EngineCore_DP0 pid=772517) [2026-01-27 01:40:11,073] LMCache WARNING: The cache block is in the storage, but it can't be retrieved (cache_engine.py:1471:lmcache.v1.cache_engine)",
  ]);
  const failures = violated(r, "transport-failure");
  assert.equal(failures.length, 1);
  assert.ok(failures[0]!.explanation.startsWith("Let LMCache keep the KV cache it offloads"));
});
