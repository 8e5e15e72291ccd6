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

