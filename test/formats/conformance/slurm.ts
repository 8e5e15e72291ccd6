// Slurm's rows (ingest/formats/templates/platform/slurm.ts): what each line srun and
// slurmstepd write into a job's output must give, written by hand from the
// format strings of src/srun/launch.c _task_finish, src/slurmd/slurmstepd/req.c
// _handle_signal_container, src/plugins/task/cgroup/task_cgroup_memory.c and
// src/api/step_launch.c. A task's end is its node's, with its Slurm task id; a
// cancellation or a step's OOM kills the job's.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const SLURM_ROWS: EngineConformanceRow[] = [
  {
    template: "slurm.task_exited",
    expect: { kind: LogKind.crash, attrs: { scope: "machine", node: "node-3", task: 5, exitCode: 1, fatal: true, failureClass: "crash", error: "Slurm task 5 on node-3: exited with exit code 1" } },
  },
  {
    template: "slurm.task_exited",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { node: "node-[1-2]", tasks: "0-1", exitCode: 137, error: "Slurm tasks 0-1 on nodes node-[1-2]: exited with exit code 137" } },
  },
  {
    template: "slurm.task_signalled",
    expect: { kind: LogKind.crash, attrs: { scope: "machine", node: "node-3", task: 5, signal: "SIGKILL", fatal: true, failureClass: "crash", error: "Slurm task 5 on node-3: killed by SIGKILL (Killed)" } },
  },
  {
    template: "slurm.task_signalled",
    sample: 1,
    expect: { kind: LogKind.crash, attrs: { node: "gpu-node-1", task: 1, signal: "SIGSEGV", coreDumped: true, failureClass: "segfault", error: "Slurm task 1 on gpu-node-1: killed by SIGSEGV (Segmentation fault (core dumped))" } },
  },
  {
    template: "slurm.task_out_of_memory",
    expect: { kind: LogKind.crash, attrs: { scope: "machine", node: "node-3", task: 5, fatal: true, failureClass: "host-oom", error: "Slurm task 5 on node-3: Out Of Memory (the step's cgroup OOM killer)" } },
  },
  {
    template: "slurm.cancelled",
    expect: { kind: LogKind.crash, attrs: { scope: "job", job: "1234", node: "node-3", fatal: true, failureClass: "time-limit", error: "Slurm job 1234 cancelled on node-3 for its time limit: every task of it ended" } },
  },
  { template: "slurm.cancelled", sample: 1, expect: { kind: LogKind.crash, attrs: { job: "1234.0", node: "node-3", failureClass: "node-failure" } } },
  { template: "slurm.cancelled", sample: 2, expect: { kind: LogKind.crash, attrs: { job: "1234", failureClass: "preempted", error: "Slurm job 1234 cancelled on node-3 for preemption: every task of it ended" } } },
  { template: "slurm.cancelled", sample: 3, expect: { kind: LogKind.crash, attrs: { job: "1234.0", node: undefined, failureClass: "time-limit", error: "Slurm step 1234.0 cancelled for its time limit: every task of it ended" } } },
  { template: "slurm.cancelled", sample: 4, expect: { kind: LogKind.crash, attrs: { job: "1234.0", failureClass: "crash", error: "Slurm step 1234.0 cancelled on node-3: every task of it ended" } } },
  {
    template: "slurm.oom_kill_event",
    expect: { kind: LogKind.crash, attrs: { scope: "job", job: "1234.0", oomKills: 1, fatal: true, failureClass: "host-oom", error: "Slurm step 1234.0: 1 task process killed by the step's cgroup OOM killer" } },
  },
  { template: "slurm.oom_kill_event", sample: 1, expect: { kind: LogKind.crash, attrs: { job: "1234.batch", oomKills: 2, failureClass: "host-oom" } } },
  { template: "slurm.step_aborted", expect: { kind: LogKind.message, attrs: { level: "info", waitS: 32 } } },
  { template: "slurm.forcing_termination", expect: { kind: LogKind.message, attrs: { level: "warning" } } },
];
