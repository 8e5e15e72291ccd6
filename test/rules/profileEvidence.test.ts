// Every setting from the most specific evidence, whatever else exists: a
// start-up line is evidence beside a config record that leaves the setting out.

import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { buildIncident } from "./incidentBuilder.js";
import { lines, prefix } from "./logLines.js";
import { probe, type Rank } from "./probeLines.js";

const P0: Rank = { host: "p0", role: "prefill", tp: 0 };

test("the host pool's stride from its start-up line is checked beside a config record that states only the dtype", async () => {
  const db = await buildIncident([
    { path: "p0/probe-tp0.jsonl", text: lines(probe(0, P0, "config", { backend: "nixl", version: "0.5.14", index_k_dtype: "bf16", page_size: 64, hicache: true })) },
    { path: "p0/prefill-tp0.log", text: lines(`${prefix(1, "DP0 TP0")} NSATokenToKVPoolHost initialized with indexer page stride size: 8448, page num: 100623`) },
  ]);
  const report = analyzeIncident(db);
  const sizing = report.findings.filter((f) => f.rule === "pool-sizing-mismatch");
  const stride = sizing.find((f) => f.verdict === "violated" && /stride 8448/.test(f.title));
  assert.ok(stride, `the fp8-sized stride (132 B × 64) beside bf16 is a mismatch: ${sizing.map((f) => `${f.verdict}: ${f.title}`).join(" | ")}`);
  assert.ok(stride.witness.some((w) => w.source === "p0/prefill-tp0.log" && w.line === 1), "the start-up line is the evidence of the stride");
  assert.ok(!sizing.some((f) => f.verdict === "undetermined"), "the stride is not called missing");
  db.close();
});
