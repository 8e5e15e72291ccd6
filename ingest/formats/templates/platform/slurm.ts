// Slurm's own lines in a job's output, beside the program's (a multi-node
// server started by `srun` or `sbatch`): srun's report of a task's end
// (src/srun/launch.c _task_finish), slurmstepd's of a job or step it
// cancelled (src/slurmd/slurmstepd/req.c _handle_signal_container) and of the
// cgroup OOM kills it counted (src/plugins/task/cgroup/task_cgroup_memory.c),
// and srun's own steps of the teardown (src/api/step_launch.c, src/srun/signals.c).
// A task's end names its node and its task id (Slurm's rank of the task, not
// a TP rank): the record is the machine's (`scope: machine`, `node`), with the
// task said. A cancellation names the job or step, and is the end of every task
// of it (`scope: job`).

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { civilToUs, isValidCivil } from "../../sglang/prefix.js";
import { SIGNALS_BY_TEXT } from "./signals.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** `{hosts}: task {ids}: ` or `{hosts}: tasks {ids}: `: a hostlist (`node-3`, `node-[1-2]`) and bit_fmt's task ids (`5`, `0-3,5`). */
const TASKS = String.raw`(?<nodes>[^\s:]+): tasks? (?<tasks>\d+(?:[-,]\d+)*): `;

/** The node and the task, where the line names one of each; a hostlist or a range is kept as printed. */
function taskEnd(ev: ParsedEvent, g: Groups, what: string): void {
  const attrs = ev.attrs!;
  const oneNode = !/[[,]/.test(g.nodes!);
  const oneTask = /^\d+$/.test(g.tasks!);
  attrs.node = g.nodes;
  if (oneTask) attrs.task = Number(g.tasks);
  else attrs.tasks = g.tasks;
  attrs.error = `${oneTask ? `Slurm task ${g.tasks}` : `Slurm tasks ${g.tasks}`} on ${oneNode ? "" : "nodes "}${g.nodes}: ${what}`;
}

function exited(ev: ParsedEvent, g: Groups): void {
  taskEnd(ev, g, `exited with exit code ${g.code}`);
}

function signalled(ev: ParsedEvent, g: Groups): void {
  const meaning = SIGNALS_BY_TEXT[g.signal!]!;
  Object.assign(ev.attrs!, { signal: meaning.signal, failureClass: meaning.failureClass });
  if (g.core !== undefined) ev.attrs!.coreDumped = true;
  taskEnd(ev, g, `killed by ${meaning.signal} (${g.signal}${g.core ?? ""})`);
}

function outOfMemory(ev: ParsedEvent, g: Groups): void {
  taskEnd(ev, g, "Out Of Memory (the step's cgroup OOM killer)");
}

/** Why slurmstepd cancelled a job or step, and how the end of its tasks is classed. */
const CANCEL_REASONS: Readonly<Record<string, { why: string; failureClass: string }>> = {
  "TIME LIMIT": { why: "its time limit", failureClass: "time-limit" },
  PREEMPTION: { why: "preemption", failureClass: "preempted" },
  "NODE FAILURE": { why: "a node's failure", failureClass: "node-failure" },
  "JOB REQUEUE": { why: "the job's requeue", failureClass: "preempted" },
  "TASK FAILURE": { why: "a task's failure", failureClass: "crash" },
};

/** `2026-06-11T14:07:12`: slurm_make_time_str's default `%FT%T` (src/common/parse_time.c), local time. */
const SLURM_TIME = /(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)/y;

/** The time a cancellation line states (`CANCELLED AT 2026-06-11T14:07:12`) in µs, read in `tzOffsetMinutes`; -1 when it states none. */
export function slurmStatedUs(line: string, at: number, tzOffsetMinutes: number): number {
  const i = line.indexOf(" CANCELLED AT ", at);
  if (i < 0) return -1;
  SLURM_TIME.lastIndex = i + 14;
  const m = SLURM_TIME.exec(line);
  if (m === null) return -1;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  return isValidCivil(civil) ? civilToUs(civil, 0, tzOffsetMinutes) : -1;
}

function cancelled(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  const reason = g.reason !== undefined ? CANCEL_REASONS[g.reason] : g.signal !== undefined ? { why: `signal ${g.signal}`, failureClass: "crash" } : undefined;
  attrs.failureClass = reason?.failureClass ?? "crash";
  if (g.node !== undefined) attrs.node = g.node;
  const what = `${g.entity === "JOB" ? "Slurm job" : "Slurm step"} ${g.id}`;
  attrs.error = `${what} cancelled${g.node === undefined ? "" : ` on ${g.node}`}${reason === undefined ? "" : ` for ${reason.why}`}: every task of it ended`;
}

const templates: LogTemplate[] = [
  {
    id: "slurm.task_exited",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format: "{hosts}: task[s] {task ids}: Exited with exit code {code} — the task's process exited with a non-zero code (a hostlist and task ids as bit_fmt prints them, `0-3,5`, where several ended alike)",
    source: "src/srun/launch.c _task_finish (SchedMD/slurm, main 284c3b95, 2026-08-20)",
    head: (line, at) => line.indexOf(": Exited with exit code ", at) > at,
    firstChars: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    pattern: new RegExp(`${TASKS}Exited with exit code (?<code>\\d+)$`, "y"),
    attrs: { scope: "machine", what: "exited", exitCode: cap("code", "number"), fatal: true, failureClass: "crash" },
    refine: exited,
    samples: ["srun: error: node-3: task 5: Exited with exit code 1", "srun: error: node-[1-2]: tasks 0-1: Exited with exit code 137"],
  },
  {
    id: "slurm.task_signalled",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format:
      "{hosts}: task[s] {task ids}: {strsignal}[ (core dumped)] — the task's process died of a signal, named as strsignal(3) prints it (`Killed`, `Segmentation fault`, `Aborted`, `Bus error`, `Terminated`, …); verbose only, not printed, once the job is being cancelled",
    source: "src/srun/launch.c _task_finish (SchedMD/slurm, main 284c3b95)",
    head: (line, at) => line.indexOf(": task", at) > at,
    firstChars: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    pattern: new RegExp(`${TASKS}(?<signal>${Object.keys(SIGNALS_BY_TEXT).join("|")})(?<core> \\(core dumped\\))?$`, "y"),
    attrs: { scope: "machine", what: "killed by a signal", fatal: true },
    refine: signalled,
    samples: ["srun: error: node-3: task 5: Killed", "srun: error: gpu-node-1: task 1: Segmentation fault (core dumped)"],
  },
  {
    id: "slurm.task_out_of_memory",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format: "{hosts}: task[s] {task ids}: Out Of Memory — the task ended by the step's cgroup OOM killer (its return code SIG_OOM); printed once a step",
    source: "src/srun/launch.c _task_finish (SchedMD/slurm, main 284c3b95)",
    head: (line, at) => line.indexOf(": Out Of Memory", at) > at,
    firstChars: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    pattern: new RegExp(`${TASKS}Out Of Memory$`, "y"),
    attrs: { scope: "machine", what: "killed by the step's cgroup OOM killer", signal: "SIGKILL", fatal: true, failureClass: "host-oom" },
    refine: outOfMemory,
    samples: ["srun: error: node-3: task 5: Out Of Memory"],
  },
  {
    id: "slurm.cancelled",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format:
      "*** {JOB {job}|STEP {job}.{step}} ON {node} CANCELLED AT {time} DUE TO {TIME LIMIT|PREEMPTION|NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS|JOB REQUEUE|TASK FAILURE} *** (or `DUE to SIGNAL {strsignal}`; before 15.08 without `ON {node}`; srun's own `*** STEP {job}.{step} CANCELLED AT {time} DUE TO TIME LIMIT ***`)" +
      " — `{time}` is slurm_make_time_str's `%FT%T` in the node's local time, which dates the record; every task of the job or step is killed",
    source: "src/slurmd/slurmstepd/req.c _handle_signal_container (SchedMD/slurm, main 284c3b95; `ON {node}` since commit e6812a71, 15.08); srun's own line: src/srun msg.c _timeout_handler of older releases (index copies)",
    head: "*** ",
    pattern:
      /\*\*\* (?<entity>JOB|STEP) (?<id>\d+(?:\.\w+)?)(?: ON (?<node>\S+))? CANCELLED AT \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?: DUE (?:TO|to) (?:(?<reason>TIME LIMIT|PREEMPTION|NODE FAILURE|JOB REQUEUE|TASK FAILURE)|SIGNAL (?<signal>\w[\w ]*?))(?:, SEE SLURMCTLD LOG FOR DETAILS)?)? \*\*\*/y,
    attrs: { scope: "job", job: cap("id"), what: "cancelled by Slurm", fatal: true },
    refine: cancelled,
    samples: [
      "slurmstepd: error: *** JOB 1234 ON node-3 CANCELLED AT 2026-06-11T14:07:12 DUE TO TIME LIMIT ***",
      "slurmstepd: error: *** STEP 1234.0 ON node-3 CANCELLED AT 2026-06-11T14:07:12 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***",
      "slurmstepd: error: *** JOB 1234 ON node-3 CANCELLED AT 2026-06-11T14:07:12 DUE TO PREEMPTION ***",
      "srun: error: *** STEP 1234.0 CANCELLED AT 2026-06-11T14:07:12 DUE TO TIME LIMIT ***",
      "slurmstepd: error: *** STEP 1234.0 ON node-3 CANCELLED AT 2026-06-11T14:07:12 ***",
    ],
  },
  {
    id: "slurm.oom_kill_event",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format:
      "Detected {n} oom_kill event[s] in StepId={job}.{step}. Some of the step tasks have been OOM Killed. (from 23.02; from 18.08 to 22.05 `Detected {n} oom-kill event(s) in StepId={job}.{step}. Some of your processes may have been killed by the cgroup out-of-memory handler.`)" +
      " — the step's memory cgroup counted OOM kills on the node this slurmstepd runs on, which the line does not name",
    source: "src/plugins/task/cgroup/task_cgroup_memory.c task_cgroup_memory_check_oom (SchedMD/slurm, main 284c3b95; the older text until commit 4d82fa26, 2022-09-13)",
    head: "Detected ",
    pattern: /Detected (?<count>\d+) oom[-_]kill event(?:s|\(s\))? in (?:StepId=)?(?<step>\d+(?:\.\w+)?)\. Some of (?:the step tasks have been OOM Killed|your processes may have been killed by the cgroup out-of-memory handler)\./y,
    attrs: { scope: "job", job: cap("step"), what: "killed by the step's cgroup OOM killer", oomKills: cap("count", "number"), signal: "SIGKILL", fatal: true, failureClass: "host-oom" },
    refine: (ev, g) => {
      ev.attrs!.error = `Slurm step ${g.step}: ${g.count} task process${g.count === "1" ? "" : "es"} killed by the step's cgroup OOM killer`;
    },
    samples: [
      "slurmstepd: error: Detected 1 oom_kill event in StepId=1234.0. Some of the step tasks have been OOM Killed.",
      "slurmstepd: error: Detected 2 oom-kill event(s) in StepId=1234.batch. Some of your processes may have been killed by the cgroup out-of-memory handler.",
    ],
  },
  {
    id: "slurm.step_aborted",
    kind: LogKind.message,
    checked: "✔",
    level: "info",
    format: "Job step aborted: Waiting up to {seconds} seconds for job step to finish. (or `Job step aborted` alone) — srun tears the step down after a task's failure or a cancellation",
    source: "src/api/step_launch.c slurm_step_launch_wait_finish (SchedMD/slurm, main 284c3b95)",
    head: "Job step aborted",
    pattern: /Job step aborted(?:: Waiting up to (?<seconds>\d+) seconds for job step to finish\.)?$/y,
    attrs: { level: "info", waitS: cap("seconds", "number") },
    samples: ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish."],
  },
  {
    id: "slurm.forcing_termination",
    kind: LogKind.message,
    checked: "✔",
    level: "info",
    format: "forcing job termination — srun kills the step (a second Ctrl-C, a task's failure under `--kill-on-bad-exit`)",
    source: "src/srun/signals.c, src/srun/srun_job.c (SchedMD/slurm, main 284c3b95)",
    head: "forcing job termination",
    pattern: /forcing job termination$/y,
    attrs: { level: "warning" },
    samples: ["srun: forcing job termination"],
  },
];

export const SLURM: TemplateComponent = {
  name: "slurm",
  dialect: "slurm",
  title: "Slurm: srun and slurmstepd in a job's output",
  intro:
    "Lines Slurm's own programs write into a job's output (`slurm-{job}.out`, srun's stderr), after `srun: ` or `slurmstepd: ` and the level's prefix (`error: `; none for info). A task's end names its node and its Slurm task id (not a TP rank): the event is the machine's (`scope: machine`, `node`, `task`), judged by process-failure; a cancellation or a step's OOM kill names the job or step (`scope: job`, `job`). A cancellation's `CANCELLED AT` time dates it; Slurm's other lines state no time. An error-level Slurm line no row reads is still a failure (`log.error`).",
  templates,
};
