// systemd's rows (ingest/formats/templates/platform/systemd.ts): what a service manager's report of a unit's end
// must give, written by hand from src/core/service.c and src/core/unit.c as a unit's journal shows them. The unit is
// named, no rank: the machine's event.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const SYSTEMD_ROWS: EngineConformanceRow[] = [
  {
    template: "systemd.main_process_killed",
    expect: {
      kind: LogKind.crash,
      attrs: { scope: "machine", unit: "sglang-decode", fatal: true, signal: "SIGKILL", failureClass: "crash", error: "sglang-decode.service: main process killed by SIGKILL" },
    },
  },
  {
    template: "systemd.main_process_killed",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { unit: "sglang@prefill-0", signal: "SIGSEGV", failureClass: "segfault", error: "sglang@prefill-0.service: main process dumped core on SIGSEGV" } },
  },
  {
    template: "systemd.main_process_failed",
    expect: { kind: LogKind.crash, attrs: { unit: "sglang-decode", exitCode: 1, failureClass: "crash", error: "sglang-decode.service: main process exited with status 1 (FAILURE)" } },
  },
  {
    template: "systemd.unit_failed",
    expect: { kind: LogKind.error, attrs: { scope: "machine", level: "error", unit: "sglang-decode", result: "oom-kill", failureClass: "host-oom", error: "sglang-decode.service failed: oom-kill" } },
  },
  {
    template: "systemd.unit_failed",
    sample: 1,
    expect: { kind: LogKind.error, attrs: { result: "signal", failureClass: "crash" } },
  },
];
