// Open MPI's launcher (`mpirun`, `mpiexec`; PRRTE's `prterun` and `prun` in
// Open MPI 5) reporting that one of the job's processes died of a signal: the
// show-help message it prints, with no logger, between lines of dashes, once
// a process of the job ends abnormally. Serving stacks launched under MPI
// (TensorRT-LLM's multi-GPU runs, nccl-tests, DeepSpeed) leave it as the last
// word of a rank killed by the OOM killer or a segfault. The message names the
// rank (MPI's), its PID and its node: the record is the node's (`scope:
// machine`, `node`), judged by process-failure as Slurm's report of a task's
// end is (./slurm.ts). A process that exited with a non-zero status is
// reported in two other show-help messages: the launcher's (`… detected that
// one or more processes exited with non-zero status`, naming the first such
// process and its exit code two lines below) and the state machine's
// (`Primary job  terminated normally, but 1 process returned` / `a non-zero
// exit code.`). Their first lines are read; what follows continues the record.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { SIGNALS_BY_TEXT, signalOfNumber } from "./signals.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** The message's opening words: the launcher's basename (orte_basename, prte_tool_basename) as the user ran it, then the report's. */
const OPENINGS = ["mpirun", "mpiexec", "orterun", "oshrun", "prterun", "prun"].map((launcher) => `${launcher} noticed that process rank `);

/** The launcher's report of a non-zero exit: the same launcher names as OPENINGS'. */
const NON_ZERO_EXIT_OPENINGS = ["mpirun", "mpiexec", "orterun", "oshrun", "prterun", "prun"].map((launcher) => `${launcher} detected that one or more processes exited with non-zero status`);

/** The state machine's: the job is `Primary` (`the primary` in PRRTE's) or a `Child` job. */
const JOB_OPENINGS = ["Primary job ", "Child job ", "the primary job ", "child job "];

function aborted(ev: ParsedEvent, g: Groups): void {
  const meaning = (g.name !== undefined ? SIGNALS_BY_TEXT[g.name] : undefined) ?? signalOfNumber(Number(g.number));
  const attrs = ev.attrs!;
  attrs.failureClass = meaning?.failureClass ?? "crash";
  if (meaning !== undefined) attrs.signal = meaning.signal;
  const named = meaning?.signal ?? `signal ${g.number}`;
  attrs.error = `MPI rank ${g.rank} (PID ${g.pid}) on ${g.node}: killed by ${named}${g.name === undefined ? "" : ` (${g.name})`}, as ${g.launcher} noticed`;
}

const templates: LogTemplate[] = [
  {
    id: "openMpi.proc_aborted",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format:
      "{launcher} noticed that process rank {rank} with PID {pid} on node {node} exited on signal {n} ({strsignal}). (`… exited on signal {n}.` where the launcher has no name for it)" +
      " — a process of the job died of a signal; the launcher then kills the rest of the job",
    source:
      "orte/tools/orterun/help-orterun.txt [orterun:proc-aborted-strsignal], [orterun:proc-aborted] (open-mpi/ompi 4fe93320; Open MPI up to 4.x); src/tools/prun/help-prun.txt [prun:proc-aborted-strsignal], [prun:proc-aborted] (openpmix/prrte 77c7c0c4; Open MPI 5)",
    head: (line, at) => OPENINGS.some((opening) => line.startsWith(opening, at)),
    firstChars: "mop",
    pattern: /(?<launcher>mpirun|mpiexec|orterun|oshrun|prterun|prun) noticed that process rank (?<rank>\d+) with PID (?<pid>\d+) on node (?<node>\S+) exited on signal (?<number>\d+)(?: \((?<name>[^)]+)\))?\./y,
    attrs: { scope: "machine", what: "killed by a signal", node: cap("node"), mpiRank: cap("rank", "number"), pid: cap("pid", "number"), fatal: true },
    refine: aborted,
    samples: [
      // NVIDIA/TensorRT-LLM#1700: a TP=8 run under mpirun, rank 6 killed (PID 0 as the launcher printed it).
      "mpirun noticed that process rank 6 with PID 0 on node xxxxxxxx exited on signal 9 (Killed).",
      "mpirun noticed that process rank 1 with PID 31842 on node gpu-node-2 exited on signal 11 (Segmentation fault).",
      "prterun noticed that process rank 3 with PID 7755 on node dgx-04 exited on signal 6.",
    ],
  },
  {
    id: "openMpi.non_zero_exit",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format:
      "{launcher} detected that one or more processes exited with non-zero status, thus causing / the job to be terminated. The first process to do so was: / Process name: {name} / Exit code: {code}" +
      " — a process of the job exited with a non-zero status and the launcher ended the job; the process and its exit code are on the lines below",
    source:
      "orte/tools/orterun/help-orterun.txt [orterun:non-zero-exit] (open-mpi/ompi, Open MPI up to 4.x); src/tools/prun/help-prun.txt [prun:non-zero-exit] (openpmix/prrte, Open MPI 5)",
    head: (line, at) => NON_ZERO_EXIT_OPENINGS.some((opening) => line.startsWith(opening, at)),
    firstChars: "mop",
    pattern: /(?<launcher>mpirun|mpiexec|orterun|oshrun|prterun|prun) detected that one or more processes exited with non-zero status/y,
    attrs: { scope: "machine", what: "exited with a non-zero status", fatal: true, failureClass: "crash" },
    refine: (ev, g) => {
      ev.attrs!.error = `a process of the MPI job exited with a non-zero status, and ${g.launcher} ended the job (the process and its exit code are on the lines below)`;
    },
    samples: [
      "mpirun detected that one or more processes exited with non-zero status, thus causing",
      "prterun detected that one or more processes exited with non-zero status, thus causing",
    ],
  },
  {
    id: "openMpi.job_non_zero_exit",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format:
      "{Primary|Child} job {jobid} terminated normally, but {n} process returned / a non-zero exit code. Per user-direction, the job has been aborted. (`{n} processes returned / non-zero exit codes.`)" +
      " — processes of the job returned a non-zero exit code, and the job was aborted",
    source:
      "orte/mca/errmgr/base/help-errmgr-base.txt and orte/mca/state/base/help-state-base.txt [normal-termination-but], shown by state_base_fns.c check_job_complete (open-mpi/ompi); src/mca/state/base/help-state-base.txt (openpmix/prrte)",
    head: (line, at) => JOB_OPENINGS.some((opening) => line.startsWith(opening, at)),
    firstChars: "PCtc",
    pattern: /(?:[Pp]rimary|[Cc]hild|the primary) job +(?:\S+ +)?terminated normally, but (?<count>\d+) process(?:es)? returned/y,
    attrs: { scope: "machine", what: "returned a non-zero exit code", count: cap("count", "number"), fatal: true, failureClass: "crash" },
    refine: (ev, g) => {
      ev.attrs!.error = `${g.count} process(es) of the MPI job returned a non-zero exit code, and the job was aborted`;
    },
    samples: [
      // The two-space gap is the empty job id of the primary job (the second %s of the help text).
      "Primary job  terminated normally, but 1 process returned",
      "Primary job  terminated normally, but 2 processes returned",
    ],
  },
];

export const OPEN_MPI: TemplateComponent = {
  name: "openMpi",
  dialect: "engine",
  title: "Open MPI's launcher",
  intro:
    "Lines `mpirun` (Open MPI's ORTE up to 4.x, PRRTE's `prterun` from 5.0) prints, with no logger, when a process of the job ends abnormally. A death by a signal names the MPI rank, its PID and its node: `proc.crash` (`scope: machine`, `node`, `mpiRank`, `signal`, `failureClass` `segfault` for SIGSEGV and SIGBUS, else `crash`), judged by process-failure. A process that exited with a non-zero status (the launcher's `… detected that one or more processes exited with non-zero status`, the state machine's `Primary job  terminated normally, but 1 process returned`) is also `proc.crash` of class `crash`. The lines of dashes around the messages and Open MPI's other show-help text are not read.",
  templates,
};
