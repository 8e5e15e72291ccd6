// Ray's rows (ingest/formats/templates/platform/ray.ts): what the raylet's reports of
// lost workers must give, written by hand from src/ray/raylet/node_manager.cc's
// messages as a Ray driver prints them. The address is the machine's; no rank.
// The cause that ends an ActorDiedError's message (src/ray/gcs/gcs_server/gcs_actor_manager.cc
// GenWorkerDiedCause and its neighbours): a crash when the worker died of an error or the
// node died, information when the actor ended as asked.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const RAY_ROWS: EngineConformanceRow[] = [
  {
    template: "ray.worker_died",
    expect: { kind: LogKind.crash, attrs: { scope: "machine", node: "10.0.3.17", pid: 26103, exitType: "SYSTEM_ERROR", fatal: true, failureClass: "host-oom" } },
  },
  {
    template: "ray.worker_died",
    sample: 1,
    expect: {
      kind: LogKind.crash,
      attrs: {
        node: "10.0.3.18", pid: 269812, failureClass: "crash",
        error: "Ray worker (pid 269812) on 10.0.3.18 died: SYSTEM_ERROR: The leased worker has unrecoverable failure. Worker is requested to be destroyed when it is returned.",
      },
    },
  },
  {
    template: "ray.oom_killed_workers",
    expect: {
      kind: LogKind.crash,
      attrs: { scope: "machine", node: "10.0.3.17", killed: 1, fatal: true, failureClass: "host-oom", error: "Ray on 10.0.3.17: 1 worker(s) killed by its memory monitor (OOM), 0 crashed for other reasons" },
    },
  },
  {
    template: "ray.actor_died",
    expect: {
      kind: LogKind.crash,
      attrs: {
        what: "a Ray actor died", exitType: "SYSTEM_ERROR", fatal: true, failureClass: "host-oom",
        error: "Ray actor died: its worker process died: SYSTEM_ERROR: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.",
      },
    },
  },
  {
    template: "ray.actor_died",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { exitType: "SYSTEM_ERROR", failureClass: "crash" } },
  },
  {
    template: "ray.actor_died",
    sample: 2,
    expect: { kind: LogKind.crash, attrs: { failureClass: "crash", error: "Ray actor died: its node 0b6abfec3ad8acdb94e5c2968c71a4c4582b2f43f3d72a9a74a04f85 died" } },
  },
  { template: "ray.actor_exited", expect: { kind: LogKind.message, attrs: { level: "info", exitType: "INTENDED_USER_EXIT" } } },
  { template: "ray.actor_exited", sample: 1, expect: { kind: LogKind.message, attrs: { level: "info", what: "a Ray actor ended as asked" } } },
  { template: "ray.actor_exited", sample: 2, expect: { kind: LogKind.message, attrs: { level: "info" } } },
];
