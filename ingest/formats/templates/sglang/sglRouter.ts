// SGLang's model gateway, sgl-router (sgl-project/sglang sgl-router/, Rust
// `tracing`): what it logs when it cannot reach a worker. Its tracing format
// prints the log call's place (`src/core/worker.rs:517: `) after the target,
// before the message; the templates step over it.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

/** The `file.rs:N: ` place sgl-router's tracing format puts before the message. */
const PLACE = /[\w./-]+\.rs:\d+: /y;

/** Where the message proper starts: after the place, when the line has one. */
function afterPlace(line: string, at: number): number {
  PLACE.lastIndex = at;
  return PLACE.test(line) ? PLACE.lastIndex : at;
}

function opens(words: string): (line: string, at: number) => boolean {
  return (line, at) => line.startsWith(words, afterPlace(line, at));
}

/** The place's first character (a path's) or the message's own. */
const FIRST = "abcdefghijklmnopqrstuvwxyz_./FW";

const templates: LogTemplate[] = [
  {
    id: "sglRouter.grpc_connect_failed",
    kind: LogKind.routerProbeFailed,
    checked: "✔",
    level: "error",
    format: "Failed to connect gRPC client for worker {url}: {e} — the router's lazy gRPC client set-up could not reach the worker; it returns ConnectionFailed to its caller (the health checker, which logs the same error as a failed check, or a request) and keeps running",
    source: "sgl-router src/core/worker.rs, the worker's lazy gRPC client set-up beside `reset_grpc_client` (`tracing::error!(\"Failed to connect gRPC client for worker {}: {}\", …)`, then `Err(WorkerError::ConnectionFailed { reason: format!(\"Failed to connect to gRPC server: {e}\") })`)",
    head: opens("Failed to connect gRPC client for worker "),
    firstChars: FIRST,
    pattern: /(?:[\w./-]+\.rs:\d+: )?Failed to connect gRPC client for worker (?<worker>\S+): (?<error>.*)$/ys,
    attrs: { worker: cap("worker"), error: cap("error") },
    samples: ["src/core/worker.rs:517: Failed to connect gRPC client for worker grpc://localhost:20000: transport error"],
  },
  {
    id: "sglRouter.health_check_failed",
    kind: LogKind.routerProbeFailed,
    checked: "✔",
    level: "debug",
    format: "Worker {url} health check failed: {e} — one failed check while the router waits for its workers to become healthy; the loop checks the unhealthy ones again until all pass or the wait runs out",
    source: "sgl-router src/core/worker_manager.rs, the wait for healthy workers (`match w.check_health_async().await { … Err(e) => debug!(\"Worker {} health check failed: {}\", url, e) }`, then `All {} workers are healthy` once none is left)",
    head: opens("Worker "),
    firstChars: FIRST,
    pattern: /(?:[\w./-]+\.rs:\d+: )?Worker (?<worker>\S+) health check failed: (?<error>.*)$/ys,
    attrs: { worker: cap("worker"), error: cap("error") },
    samples: ["src/core/worker_manager.rs:1031: Worker grpc://localhost:20001 health check failed: Connection failed for worker grpc://localhost:20001: Failed to connect to gRPC server: transport error"],
  },
];

export const SGL_ROUTER: TemplateComponent = {
  name: "sglRouter",
  dialect: "engine",
  title: "SGLang router (sgl-router)",
  intro:
    "`sgl-project/sglang` `sgl-router/`: the router's reports that it could not reach a worker, read where the message starts (after its `tracing` target and the log call's `file.rs:N: ` place). A failed probe of a worker is no failure of the router: the worker was not up yet, is gone, or its link failed, and the router's own start-up timeout or removal of the worker says which. transport-failure judges the probes as what they are, the worker unreachable then: a low finding, never a suspect of its own. Event: `router.probe_failed` (`worker`, `error`).",
  templates,
};
