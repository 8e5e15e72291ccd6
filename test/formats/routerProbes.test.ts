// sgl-router's reports that it could not reach a worker, as the router's Rust
// `tracing` format prints them (target, then the log call's `file.rs:N: `
// place): read as failed probes of the worker, not as the router's failure.
// The lines are sgl-project/sglang#11310's test log (the router started
// before its gRPC workers were up); the Dynamo line beside them is
// ai-dynamo/dynamo#2185's, an ERROR of another Rust service that stays an
// error record.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

const PASTE = [
  "2025-10-07 23:31:33 DEBUG sglang_router_rs::grpc_client::sglang_scheduler: src/grpc_client/sglang_scheduler.rs:28: Connecting to SGLang scheduler at grpc://localhost:20001",
  "2025-10-07 23:31:33 ERROR sglang_router_rs::core::worker: src/core/worker.rs:517: Failed to connect gRPC client for worker grpc://localhost:20000: transport error",
  "2025-10-07 23:31:33 DEBUG sglang_router_rs::core::worker_manager: src/core/worker_manager.rs:1031: Worker grpc://localhost:20000 health check failed: Connection failed for worker grpc://localhost:20000: Failed to connect to gRPC server: transport error",
];

test("sgl-router: a failed gRPC connect and the health check that reports it are probes of the worker, with the worker and the error", () => {
  const { events, issues } = parseLines(PASTE);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.worker, e.attrs?.error]),
    [
      [1, LogKind.message, undefined, undefined],
      [2, LogKind.routerProbeFailed, "grpc://localhost:20000", "transport error"],
      [3, LogKind.routerProbeFailed, "grpc://localhost:20000", "Connection failed for worker grpc://localhost:20000: Failed to connect to gRPC server: transport error"],
    ],
  );
});

test("sgl-router's probe lines are read without the log call's place too, and another Rust service's ERROR stays an error record", () => {
  const { events } = parseLines([
    "2025-10-07 23:31:33 ERROR sglang_router_rs::core::worker: Failed to connect gRPC client for worker grpc://localhost:20001: transport error",
    "2025-07-30T07:29:33.188Z ERROR dynamo_runtime::pipeline::network::tcp::client: failed to join writer task: I/O error: Broken pipe (os error 32)",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.worker]),
    [
      [LogKind.routerProbeFailed, "grpc://localhost:20001"],
      [LogKind.error, undefined],
    ],
  );
});
