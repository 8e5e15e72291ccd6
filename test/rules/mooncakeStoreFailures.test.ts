// The Mooncake store's own transfers judged (ingest/formats/templates/engines/mooncakeStore.ts): a batch wait of the
// store's client that timed out is a failure of the store HiCache offloads its KV pages to, not of the PD path's
// transfer engine. Lines in the shape the store prints them (glog, `transfer_task.cpp`, v0.3.11+ in milliseconds)
// inside a HiCache decode's log.

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";
import { scratchDir } from "../scratchDir.js";
import { analyzeCli, violated } from "./handBundles.js";

const BATCH = "Decode batch, #running-req: 40, #token: 281200, token usage: 0.46, pre-allocated usage: 0.01, #prealloc-req: 0, #transfer-req: 0, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2210.40, #queue-req: 0";

function report(lines: string[]): AnalysisReport {
  const file = join(scratchDir("kvrewind-store-failures-"), "decode.log");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return JSON.parse(analyzeCli(file, "--json").stdout) as AnalysisReport;
}

test("the Mooncake store's batch waits that timed out are the store's failure, in the store's words, with the store to check", () => {
  const r = report([
    "[2026-06-11 14:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tp_size=1, dp_size=1, disaggregation_mode='decode', disaggregation_transfer_backend='mooncake', enable_hierarchical_cache=True, hicache_storage_backend='mooncake')",
    `[2026-06-11 14:04:50 DP0 TP0] ${BATCH}`,
    "E0611 14:05:00.123456  4411 transfer_task.cpp:891] Failed to complete transfers after 30000 milliseconds for batch 94582317050",
    "E0611 14:05:01.123457  4411 transfer_task.cpp:891] Failed to complete transfers after 30000 milliseconds for batch 94582317051",
    `[2026-06-11 14:05:10 DP0 TP0] ${BATCH}`,
  ]);
  const [store] = violated(r, "transport-failure");
  assert.ok(store);
  assert.equal(store.title, "Transport failure on decode/tp0: Mooncake store transfers not complete after 30 s");
  assert.ok(store.explanation.startsWith("Let the Mooncake store hold the KV pages HiCache (or LMCache) offloads to it"), store.explanation);
  assert.match(store.falsify, /mooncake_master's log/);
});
