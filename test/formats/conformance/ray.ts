// Ray's rows (ingest/formats/templates/platform/ray.ts): what the raylet's reports of
// lost workers must give, written by hand from src/ray/raylet/node_manager.cc's
// messages as a Ray driver prints them. The address is the machine's; no rank.

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
];
