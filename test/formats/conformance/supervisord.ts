// supervisord's rows (ingest/formats/templates/platform/supervisord.ts): what its report of a program's end must give,
// written by hand from supervisor/process.py (Subprocess.finish, the BACKOFF → FATAL transition) and
// supervisor/options.py (decode_wait_status). The program is named, no rank: the machine's event.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const SUPERVISORD_ROWS: EngineConformanceRow[] = [
  {
    template: "supervisord.exited_unexpectedly",
    expect: {
      kind: LogKind.crash,
      attrs: { scope: "machine", program: "sglang-decode", fatal: true, signal: "SIGKILL", failureClass: "crash", error: "sglang-decode terminated by SIGKILL, not expected" },
    },
  },
  {
    template: "supervisord.exited_unexpectedly",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { program: "sglang-prefill", exitCode: 1, failureClass: "crash", error: "sglang-prefill exited with status 1, not expected" } },
  },
  {
    template: "supervisord.exited_unexpectedly",
    sample: 2,
    expect: { kind: LogKind.crash, attrs: { signal: "SIGSEGV", failureClass: "segfault", error: "sglang-decode terminated by SIGSEGV (core dumped), not expected" } },
  },
  {
    template: "supervisord.gave_up",
    expect: { kind: LogKind.crash, attrs: { scope: "machine", program: "sglang-decode", fatal: true, failureClass: "crash" } },
  },
];

// The kubelet's event messages and a headerless row of the Events table (ingest/formats/templates/platform/kubelet.ts),
// written by hand from kubelet's prober.go and kuberuntime_manager.go: warnings, as the Events table's reader makes them.
export const KUBELET_ROWS: EngineConformanceRow[] = [
  { template: "kubelet.event_row", expect: { kind: LogKind.podEvent, attrs: { eventType: "Warning", reason: "Unhealthy", count: 20, level: "warning" } } },
  { template: "kubelet.probe_failed", expect: { kind: LogKind.podEvent, attrs: { eventType: "Warning", reason: "Unhealthy", level: "warning" } } },
  { template: "kubelet.probe_failed", sample: 1, expect: { kind: LogKind.podEvent, attrs: { reason: "Unhealthy", message: "Liveness probe failed: HTTP probe failed with statuscode: 503" } } },
  { template: "kubelet.back_off", expect: { kind: LogKind.podEvent, attrs: { eventType: "Warning", reason: "BackOff", level: "warning" } } },
];
