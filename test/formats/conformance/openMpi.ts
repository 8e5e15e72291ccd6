// Open MPI's launcher's rows (ingest/formats/templates/platform/openMpi.ts): what
// mpirun's report of a process that died of a signal must give, written by
// hand from orterun's [orterun:proc-aborted-strsignal] and [orterun:proc-aborted]
// (orte/tools/orterun/help-orterun.txt) and PRRTE's [prun:…] of the same words.
// The death is the node's, with the MPI rank; no rank of the server's. A
// non-zero exit, from [orterun:non-zero-exit] and help-state-base.txt's
// [normal-termination-but], is a crash of the node's job.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const OPEN_MPI_ROWS: EngineConformanceRow[] = [
  {
    template: "openMpi.proc_aborted",
    expect: {
      kind: LogKind.crash,
      attrs: { scope: "machine", node: "xxxxxxxx", mpiRank: 6, pid: 0, signal: "SIGKILL", fatal: true, failureClass: "crash", error: "MPI rank 6 (PID 0) on xxxxxxxx: killed by SIGKILL (Killed), as mpirun noticed" },
    },
  },
  {
    template: "openMpi.proc_aborted",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { node: "gpu-node-2", mpiRank: 1, pid: 31842, signal: "SIGSEGV", failureClass: "segfault" } },
  },
  {
    template: "openMpi.proc_aborted",
    sample: 2,
    expect: { kind: LogKind.crash, attrs: { node: "dgx-04", mpiRank: 3, signal: "SIGABRT", failureClass: "crash", error: "MPI rank 3 (PID 7755) on dgx-04: killed by SIGABRT, as prterun noticed" } },
  },
  {
    template: "openMpi.non_zero_exit",
    expect: {
      kind: LogKind.crash,
      attrs: { scope: "machine", fatal: true, failureClass: "crash", error: "a process of the MPI job exited with a non-zero status, and mpirun ended the job (the process and its exit code are on the lines below)" },
    },
  },
  {
    template: "openMpi.non_zero_exit",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { failureClass: "crash", error: "a process of the MPI job exited with a non-zero status, and prterun ended the job (the process and its exit code are on the lines below)" } },
  },
  {
    template: "openMpi.job_non_zero_exit",
    expect: { kind: LogKind.crash, attrs: { scope: "machine", count: 1, fatal: true, failureClass: "crash", error: "1 process(es) of the MPI job returned a non-zero exit code, and the job was aborted" } },
  },
  {
    template: "openMpi.job_non_zero_exit",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { count: 2 } },
  },
];
