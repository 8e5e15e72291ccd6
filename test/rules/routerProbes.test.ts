// A router that cannot reach a worker (sgl-router's failed gRPC connects and
// health checks, ingest/formats/templates/sglang/sglRouter.ts) is evidence that the
// worker was unreachable then, and no more: a transport failure kept low,
// never a suspect of its own (analyzer/rules/transportFailure.ts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";
import { scratchDir } from "../scratchDir.js";
import { analyzeCli, violated } from "./handBundles.js";

/** sgl-project/sglang#11310's router log (working half of test/corpus), its probes repeated as the router's wait loop does. */
const ROUTER = [
  "2025-10-07 23:31:33 INFO sglang_router_rs::server: src/server.rs:610: Starting router on 127.0.0.1:30000 | mode: Regular | policy: CacheAware",
  "2025-10-07 23:31:33 ERROR sglang_router_rs::core::worker: src/core/worker.rs:517: Failed to connect gRPC client for worker grpc://localhost:20000: transport error",
  "2025-10-07 23:31:33 DEBUG sglang_router_rs::core::worker_manager: src/core/worker_manager.rs:1031: Worker grpc://localhost:20000 health check failed: Connection failed for worker grpc://localhost:20000: Failed to connect to gRPC server: transport error",
  "2025-10-07 23:31:43 ERROR sglang_router_rs::core::worker: src/core/worker.rs:517: Failed to connect gRPC client for worker grpc://localhost:20000: transport error",
  "",
].join("\n");

test("a router's failed probes of a worker are a low transport failure, no suspect, and no more than that", () => {
  const file = join(scratchDir("kvrewind-router-probes-"), "router.log");
  writeFileSync(file, ROUTER);
  const r = analyzeCli(file, "--json");
  const report = JSON.parse(r.stdout) as AnalysisReport;
  const probes = violated(report, "transport-failure");
  assert.equal(probes.length, 1, "the connects and the checks are one group");
  assert.equal(probes[0]!.severity, "low");
  assert.match(probes[0]!.falsify, /worker's own log and health endpoint/);
  assert.deepEqual(violated(report, "process-failure"), [], "the router's ERROR line is a probe, not a process's failure");
  assert.ok(!report.suspects.some((s) => s.cause === "transport-failure"), "a failed probe is no suspect of its own");
  assert.equal(r.status, 0, "nothing at or above the default --fail-on");
});
