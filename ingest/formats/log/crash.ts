// The last words of a dying process, as they reach its stderr:
//   Fatal Python error: Segmentation fault            (faulthandler; the thread
//                                                        dumps follow, §faulthandler)
//   terminate called after throwing an instance of 'c10::DistBackendError'
//     what():  …                                       (std::terminate, torch)
//   *** SIGSEGV received at time=1781186587 on cpu 3 ***   (absl's failure handler)
//   *** Aborted at 1781186587 (unix time) try "date -d @1781186587" …  (glog's)
//   Segmentation fault (core dumped)                  (the shell that ran it)
//   ./launch.sh: line 12: 48211 Killed     python3 …  (a script's shell, of its child)
//   zsh: killed     python3 -m sglang.launch_server …  (an interactive zsh, of its job)
//   [2]-  Killed                  python3 -m sglang.launch_server …  (an interactive bash's job table)
//   *** stack smashing detected ***: terminated       (glibc's fortify checks, before they abort)
//   sglang-decode-1 exited with code 137              (docker compose, of a container)
//   free(): invalid pointer                           (glibc's malloc, before it aborts)
//   Libfabric EFA provider has encountered an internal error:   (libfabric's EFA
//                                                        provider, before it aborts)
//   Program terminated with signal SIGABRT, Aborted.  (gdb, on the process's core)
//   ==4711==ERROR: AddressSanitizer: heap-use-after-free on address …  (a sanitizer, before it ends the process)
//   Memory access fault by GPU node-2 (Agent handle: 0x…) on address 0x…. Reason: …  (ROCm's runtime, before it aborts)
// Each opens a `proc.crash` record. Thread dumps and C++ backtraces
// (`Exception raised from … (most recent call first):`, `frame #N: …`) continue
// the record above them (./recordTails.ts).

import type { Role } from "../../../domain/vocabulary.js";
import { roleOfLaunchCommand } from "../../../domain/launchCommand.js";
import { errorCqeTailOf } from "../templates/engines/rdmaVerbs.js";
import { pyspyDumpTailOf } from "./pyspyDump.js";
import { SIGNALS_BY_TEXT, signalOfName, signalOfNumber } from "../templates/platform/signals.js";

export interface CrashHead {
  /** What killed it: "Segmentation fault", "Aborted", "SIGSEGV", "std::terminate", … */
  what: string;
  signal?: string;
  /** The C++ exception type of a terminate. */
  excType?: string;
  /** A time the line states (absl and glog print the unix time), µs. */
  tsUs?: number;
  /** The command of the job or child that died, as the shell that reports the death quotes it. */
  command?: string;
  /** The server's role, where that command states it (domain/launchCommand.ts). */
  role?: Role;
  /** A fault of the GPU's work that the line reports (ROCm's runtime): its class, as a CUDA error's. */
  failureClass?: "cuda-error";
}

const FATAL_PYTHON = "Fatal Python error: ";
const TERMINATE = /^terminate called (?:after throwing an instance of '([^']+)'|without an active exception)/;
const ABSL_SIGNAL = /^\*\*\* (SIG[A-Z]+) received at time=(\d+)(?: on cpu \d+)? \*\*\*/;
const GLOG_ABORTED = /^\*\*\* Aborted at (\d+) \(unix time\)/;
const DEATH_WORDS = "Segmentation fault|Aborted|Bus error|Floating point exception|Illegal instruction|Killed";
const SHELL_DEATH = new RegExp(`^(${DEATH_WORDS})(?: \\(core dumped\\))?$`);
/**
 * zsh's report of a job that died of a signal, in its own words for the signal (zsh Src/signames1.awk's messages;
 * Src/jobs.c printjob): `zsh: segmentation fault (core dumped)  ./server`, `zsh: killed     python3 …`, and, with job
 * control, the job table's `[1]  + 12345 killed     python3 …`. SIGTERM's `terminated` and SIGINT's are stops.
 */
const ZSH_DEATH = /^(?:zsh: |\[\d+\] +[-+]? *\d+ )(killed|segmentation fault|bus error|abort|illegal hardware instruction|floating point exception)(?: \(core dumped\))? +(\S.*)$/;
const ZSH_SIGNALS: Readonly<Record<string, string>> = {
  killed: "SIGKILL",
  "segmentation fault": "SIGSEGV",
  "bus error": "SIGBUS",
  abort: "SIGABRT",
  "illegal hardware instruction": "SIGILL",
  "floating point exception": "SIGFPE",
};
/**
 * glibc's fortify checks that failed (debug/fortify_fail.c __fortify_fail → `__libc_message ("*** %s ***: terminated\n",
 * msg)`; before 2.26 with the program's name, `*** %s ***: %s terminated`), then abort: a stack canary overwritten, a
 * checked copy that overflowed its buffer.
 */
const FORTIFY_ABORT = /^\*\*\* (stack smashing detected|buffer overflow detected) \*\*\*: (?:\S+ )?terminated$/;
/**
 * A non-interactive shell (a launch script) reporting the death of a child it waited for: bash jobs.c
 * notify_of_job_status, `fprintf (stderr, "%s: line %d: ", get_name_for_error (), line_number)` then
 * pretty_print_job (job, JLIST_NONINTERACTIVE, …): the pid, the signal's description padded to
 * LONGEST_SIGNAL_DESC, the command (`foo: line 2: 11663 Broken pipe             cat /etc/termcap`, bash's own
 * CWRU notes). The script's name is absent when the shell has none to give, the line when it reads no script
 * (`bash: 29544 Aborted                 (core dumped) ( … )`, bash 5.2 under `bash -c`).
 */
const SCRIPT_CHILD_DEATH = new RegExp(`^(?:[^\\s:]+: (?:line \\d+: +)?|line \\d+: +)\\d+ (${DEATH_WORDS})(?: +\\(core dumped\\))?(?: +(\\S.*))?$`);
/**
 * An interactive bash's report of a job that ended, in its job table (bash jobs.c pretty_print_job with JLIST_STANDARD,
 * `[%d]%c ` and the current/previous mark, then print_pipeline: the pid with `jobs -l`, printable_job_status's text
 * padded to LONGEST_SIGNAL_DESC, `(core dumped) ` when it dumped core, the command). printable_job_status says `Done`
 * for a zero exit, `Exit N` for another, the signal's description for a death (bash 5.2: `[2]   Exit 3
 * sh -c "exit 3"`, `[5]+  Aborted                 (core dumped) sh -c …`). A death or a non-zero exit is the job's
 * failure; `Done`, `Terminated` and `Interrupt` (someone stopped it), `Stopped` and `Running` are not, nor is the exit
 * status of a process that stopped on SIGINT or SIGTERM (STOP_EXITS).
 */
const BASH_JOB_END = new RegExp(`^\\[\\d+\\][-+ ] +(?:\\d+ +)?(${DEATH_WORDS}|Exit (\\d+))(?: +\\(core dumped\\))? +(\\S.*)$`);
/**
 * A heap check of glibc's malloc that failed: malloc_printerr (glibc
 * malloc/malloc.c, 2.27 on) writes its message alone on a line of stderr,
 * `__libc_message ("%s\n", str)`, and aborts the process. The messages name
 * the function that found the corruption and what it found invalid,
 * corrupted, unaligned or freed twice (`free(): invalid pointer`,
 * `munmap_chunk(): invalid pointer`, `malloc(): corrupted top size`,
 * `free(): double free detected in tcache 2`), or are one of a few fixed
 * phrases (`double free or corruption (out)`, `corrupted size vs. prev_size`,
 * `corrupted double-linked list`).
 */
const GLIBC_HEAP_ABORT =
  /^(?:(?:free|malloc|realloc|munmap_chunk|malloc_consolidate|_int_malloc|_int_free|_int_realloc|tcache_thread_shutdown)\(\): (?:invalid|corrupted|double free|unaligned|mismatching|memory corruption|(?:smallbin|unsorted) double linked list corrupted)\b[\w .,()>!-]*|double free or corruption \((?:out|top|fasttop|!prev)\)|corrupted size vs\. prev_size(?: in fastbins)?|corrupted double-linked list(?: \(not small\))?)$/;

/**
 * The EFA provider's last words before it aborts (ofiwg/libfabric prov/efa,
 * efa_base_ep_write_eq_error, and the rxr endpoint's copy in older releases, when
 * an error cannot go to an event queue): `fprintf(stderr, "Libfabric EFA provider has
 * encountered an internal error:\n\n" "Libfabric error: (%zd) %s\n" "EFA internal
 * error: (%zd) %s\n\n" "Your application will now abort().\n"); abort();`, the
 * older copies spelling it `encounterd`.
 */
const EFA_ABORT = /^Libfabric EFA provider has encountere?d an internal error:$/;
const EFA_ABORT_TAIL = /^(?:Libfabric error: \(-?\d+\) |EFA internal error: \(-?\d+\) |Your application will now abort\(\)\.$)/;

/**
 * docker compose's report of a container that stopped while it printed the logs: compose v2 pkg/compose/printer.go
 * hands the log consumer `Status(container, fmt.Sprintf("exited with code %d", event.ExitCode))`, printed after the
 * container's name without the log lines' bar (v1 names it `<project>_<service>_<n>`).
 */
const CONTAINER_EXIT = /^([A-Za-z0-9][\w.-]*) exited with code (\d+)$/;
/** A process killed by signal n exits with 128 + n. */
const SIGNALLED_EXIT = 128;
/** Exit codes of a stop, not a death: success, and SIGINT's and SIGTERM's (130, 143) when someone stopped the container. */
const STOP_EXITS: ReadonlySet<number> = new Set([0, 130, 143]);

/** bash's job-table line for a job that died or failed (BASH_JOB_END); null for one that someone stopped. */
function bashJobEnd(status: string, exitStatus: string | undefined): CrashHead | null {
  if (exitStatus === undefined) return withSignal(status);
  return STOP_EXITS.has(Number(exitStatus)) ? null : { what: `bash: a job ended with ${status}` };
}

/** The container and exit code of docker compose's line for a container that stopped; null for any other line. */
export function containerExitOf(line: string): { container: string; code: number } | null {
  // Compose colours the line as it colours the container's name.
  const m = CONTAINER_EXIT.exec(line.includes("\x1b") ? line.replace(/\x1b\[[\d;]*m/g, "") : line);
  return m === null ? null : { container: m[1]!, code: Number(m[2]) };
}

/**
 * Open MPI's report of an MPI call that failed under a fatal error handler (MPI_ERRORS_ARE_FATAL, the default, or
 * MPI_ERRORS_ABORT), after which the process aborts the job (open-mpi/ompi ompi/errhandler/errhandler_predefined.c,
 * backend_abort: `out("*** An error occurred in %s\n", arg)`, `*** on %s`, the error's string `*** %s`, `*** MPI_ERRORS_ARE_FATAL
 * (processes in this %s will now abort,` and its second line, then ompi_mpi_abort; read in the index's copy 3191907229).
 * Each line goes through opal_output, behind `[host:pid] `; with the runtime up the same words come from the show-help
 * text mpi_errors_are_fatal, which adds `*** reported by process [jobid,vpid]`. The first line opens the record; the
 * others continue it.
 */
const MPI_ABORT = /^(\[[^\s\]]+:\d+\] \*\*\* )An error occurred(?: in (\S.*))?$/;

function mpiAbortOf(line: string): CrashHead | null {
  const m = MPI_ABORT.exec(line);
  if (m === null) return null;
  return { what: m[2] !== undefined ? `Open MPI aborted the job: an error occurred in ${m[2]}` : "Open MPI aborted the job: an MPI call failed" };
}

/** The banner's later lines: the same process's `[host:pid] *** `; another process's banner is a record of its own. */
function mpiAbortTailOf(head: string): ((line: string) => boolean) | null {
  const prefix = MPI_ABORT.exec(head)?.[1];
  return prefix === undefined ? null : (line) => line.startsWith(prefix);
}

/**
 * gdb's report of the signal a process died of: on a core file, `Program terminated with signal SIGSEGV,
 * Segmentation fault.` (gdb/corelow.c core_target_open, `"Program terminated with signal %s, %s.\n"`); on a process it
 * runs, `Program received signal SIGABRT, Aborted.` or, with threads, `Thread 1 "python3" received signal SIGSEGV,
 * Segmentation fault.` (gdb/infrun.c print_signal_received_reason). A signal someone sends to stop or inspect the
 * process (SIGINT, SIGTERM, SIGHUP, SIGTRAP) is no death.
 */
const GDB_SIGNAL = /^(?:Program terminated with|Program received|Thread \d+ (?:"[^"]*" )?received) signal (SIG[A-Z0-9]+), /;
const NOT_A_DEATH: ReadonlySet<string> = new Set(["SIGINT", "SIGTERM", "SIGHUP", "SIGTRAP"]);

function gdbSignalOf(line: string): CrashHead | null {
  const signal = GDB_SIGNAL.exec(line)?.[1];
  if (signal === undefined || NOT_A_DEATH.has(signal)) return null;
  return { what: `gdb: ${line.trimEnd()}`, signal };
}

/**
 * A sanitizer's report of the error it stops the process for: compiler-rt's Report() prefixes `==pid==`
 * (sanitizer_common/sanitizer_printf.cpp), AddressSanitizer prints `ERROR: AddressSanitizer: %s on address %p at pc
 * …` or, for a signal, `ERROR: AddressSanitizer: SEGV on unknown address …` (asan/asan_errors.cpp ErrorGeneric::Print,
 * sanitizer_common ReportDeadlySignal), then dies (halt_on_error is on by default); HWAddressSanitizer's reports are
 * the same shape. MemorySanitizer labels its report `WARNING:` yet halts by default too (msan_report.cpp
 * ReportUMR). ThreadSanitizer's `WARNING: ThreadSanitizer: data race` goes on running, and LeakSanitizer reports at
 * exit: neither is a death.
 */
const SANITIZER_DEATH = /^==\d+==(?:ERROR: (?:HW)?AddressSanitizer|WARNING: MemorySanitizer): (\S.*?)\s*$/;

function sanitizerDeathOf(line: string): CrashHead | null {
  const m = SANITIZER_DEATH.exec(line);
  if (m === null) return null;
  const signal = /^(SEGV|BUS|FPE|ILL|ABRT) on unknown address/.exec(m[1]!)?.[1];
  const what = `${line.includes("MemorySanitizer") ? "MemorySanitizer" : "AddressSanitizer"}: ${m[1]}`;
  return signal !== undefined ? { what, signal: `SIG${signal}` } : { what };
}

/**
 * ROCm's HSA runtime on a fault of the GPU, after which it aborts the process (ROCm/ROCR-Runtime
 * src/core/runtime/runtime.cpp): VMFaultHandler, `"Memory access fault by GPU node-%u (Agent handle: %p) on address
 * %p%s. Reason: %s.\n"` (before ROCm 5 without the agent's handle), and HwExceptionHandler, `"HW Exception by GPU
 * node-%u (Agent handle: %p) reason :%s\n"` (`GPU Hang` or `ECC`); both `std::abort()` after it.
 */
const ROCR_FAULT = /^(?:Memory access fault by GPU node-\d+ (?:\(Agent handle: 0x[0-9a-f]+\) )?on address|HW Exception by GPU node-\d+ )/;

function rocrFaultOf(line: string): CrashHead | null {
  return ROCR_FAULT.test(line) ? { what: `ROCm runtime: ${line.trimEnd()}`, signal: "SIGABRT", failureClass: "cuda-error" } : null;
}

/** The attributes of the `proc.crash` record a crash's line opens. */
export function crashAttrs(crash: CrashHead): Record<string, unknown> {
  const attrs: Record<string, unknown> = { what: crash.what, fatal: true };
  if (crash.signal !== undefined) attrs.signal = crash.signal;
  if (crash.excType !== undefined) attrs.excType = crash.excType;
  if (crash.command !== undefined) attrs.command = crash.command;
  // The signal table says which deaths are segfaults (SIGSEGV, SIGBUS); any other is classed by its kind.
  if (crash.signal !== undefined && signalOfName(crash.signal)?.failureClass === "segfault") attrs.failureClass = "segfault";
  if (crash.failureClass !== undefined) attrs.failureClass = crash.failureClass;
  return attrs;
}

/**
 * A row of `docker ps -a` (or podman's) whose STATUS is a container that exited: the daemon's `Exited ({code}) {how
 * long} ago` (moby container/state.go State.String, go-units HumanDuration: `2 minutes`, `About an hour`, `Less than a
 * second`), the NAMES column last, after at least two spaces.
 */
const PS_EXITED = /\bExited \((\d+)\) (?:Less than a second|About an? \w+|\d+ \w+) ago\b.*?\s{2,}([\w][\w.-]*)\s*$/;

/** The container and exit code of a `docker ps -a` row whose container exited, else null. */
function psExitOf(line: string): { container: string; code: number } | null {
  const m = PS_EXITED.exec(line);
  return m === null ? null : { container: m[2]!, code: Number(m[1]) };
}

/** docker compose's line, or a `docker ps -a` row, for a container that died (not one that exited cleanly or was stopped), else null. */
export function containerDeathOf(line: string): CrashHead | null {
  const exit = line.indexOf(" exited with code ") > 0 ? containerExitOf(line) : line.indexOf("Exited (") >= 0 ? psExitOf(line) : null;
  if (exit === null || STOP_EXITS.has(exit.code)) return null;
  const signal = exit.code > SIGNALLED_EXIT ? signalOfNumber(exit.code - SIGNALLED_EXIT)?.signal : undefined;
  const what = `container ${exit.container} exited with code ${exit.code}`;
  return signal !== undefined ? { what, signal } : { what };
}

export function crashHeadOf(line: string): CrashHead | null {
  switch (line.charCodeAt(0)) {
    case 70 /* F */:
      if (!line.startsWith(FATAL_PYTHON)) return null;
      return withSignal(line.substring(FATAL_PYTHON.length).trim());
    case 116 /* t */: {
      const m = TERMINATE.exec(line);
      if (!m) return null;
      return m[1] !== undefined ? { what: "std::terminate", signal: "SIGABRT", excType: m[1] } : { what: "std::terminate", signal: "SIGABRT" };
    }
    case 42 /* * */: {
      const absl = ABSL_SIGNAL.exec(line);
      // absl's handler also reports SIGTERM (absl/debugging/failure_signal_handler.cc failure_signal_data): a stop someone sent, as gdb's.
      if (absl) return NOT_A_DEATH.has(absl[1]!) ? null : withTime({ what: absl[1]!, signal: absl[1]! }, absl[2]!);
      const glog = GLOG_ABORTED.exec(line);
      if (glog) return withTime({ what: "Aborted" }, glog[1]!);
      const fortify = FORTIFY_ABORT.exec(line);
      return fortify ? { what: `glibc: ${fortify[1]}`, signal: "SIGABRT" } : null;
    }
    case 61 /* = */:
      return sanitizerDeathOf(line);
    case 76 /* L */:
      return EFA_ABORT.test(line) ? { what: "libfabric EFA provider internal error", signal: "SIGABRT" } : null;
    case 80 /* P */:
    case 84 /* T */:
      return gdbSignalOf(line);
    case 72 /* H */:
    case 77 /* M */:
      return rocrFaultOf(line);
    default: {
      const mpi = line.charCodeAt(0) === 91 /* [ */ ? mpiAbortOf(line) : null;
      if (mpi) return mpi;
      const m = SHELL_DEATH.exec(line) ?? SCRIPT_CHILD_DEATH.exec(line);
      if (m) return withCommand(withSignal(m[1]!), m[2]);
      const job = BASH_JOB_END.exec(line);
      if (job) return withCommand(bashJobEnd(job[1]!, job[2]), job[3]);
      const zsh = ZSH_DEATH.exec(line);
      if (zsh) return withCommand({ what: `zsh: ${zsh[1]}`, signal: ZSH_SIGNALS[zsh[1]!] }, zsh[2]);
      return GLIBC_HEAP_ABORT.test(line) ? { what: `glibc heap check failed: ${line}`, signal: "SIGABRT" } : null;
    }
  }
}

/** Unix seconds have ten digits until 2286; more is a mangled line, whose record is then timed by its neighbours. */
const MAX_UNIX_DIGITS = 10;

function withTime(head: CrashHead, unixSeconds: string): CrashHead {
  if (unixSeconds.length <= MAX_UNIX_DIGITS) head.tsUs = Number(unixSeconds) * 1_000_000;
  return head;
}

function withCommand(head: CrashHead | null, command: string | undefined): CrashHead | null {
  if (head === null || command === undefined) return head;
  head.command = command.trimEnd();
  const role = roleOfLaunchCommand(head.command);
  if (role !== undefined) head.role = role;
  return head;
}

function withSignal(what: string): CrashHead {
  // faulthandler and the shell name the fatal signal in words, as strsignal(3) does.
  const signal = SIGNALS_BY_TEXT[what]?.signal;
  return signal !== undefined ? { what, signal } : { what };
}

/**
 * The rest of a C++ terminate message after its first line, as libstdc++'s
 * verbose terminate handler writes it (libsupc++/vterminate.cc,
 * `__verbose_terminate_handler`): the exception's type, then `'` and a
 * newline, then `  what():  ` and the exception's message, each by a write of
 * its own. When several processes abort at once their writes interleave, so
 * the type's closing quote, the type and its quote, or the message can stand
 * on a line of its own (`'`, `gloo::EnforceNotMet'`, and Gloo's or c10's
 * `[enforce fail at file:line] …` message, gloo/common/logging.cc and
 * c10/util/Exception.cpp). They continue the terminate record.
 */
const TERMINATE_TAIL = /^(?:[\w:<>*&]*'\s*$|\s*what\(\):|\[enforce fail at )/;

function isTerminateTail(line: string): boolean {
  return TERMINATE_TAIL.test(line);
}

/** The first line of libstdc++'s terminate message for an exception (vterminate.cc). */
function opensTerminate(line: string): boolean {
  return line.startsWith("terminate called after throwing an instance of '");
}

function isEfaAbortTail(line: string): boolean {
  return EFA_ABORT_TAIL.test(line);
}

/**
 * SGLang's report that a piecewise CUDA graph's capture or replay raised (python/sglang/srt/compilation/
 * piecewise_context_manager.py enable_piecewise_cuda_graph, read at 382abd60; the tc_piecewise copy of the index logs the
 * same): `logger.error("Piecewise CUDA Graph failed with error: %s\n%s", e, PIECEWISE_CUDA_GRAPH_CAPTURE_FAILED_MSG)`, one
 * write under SGLang's prefix, then a re-raise. The exception's own text may run over lines (a JIT kernel's `- Root cause:
 * …`, torch's CUDA error hints); the advice constant is three lines, the last `Please report this issue at …`. The lines
 * after the head continue its record up to that last line: at most PCG_MESSAGE_LINES of the exception's before the
 * advice starts, and none after it.
 */
const PCG_FAILED = /^\[[^\]]*\] Piecewise CUDA Graph failed with error: /;
const PCG_ADVICE = [
  "Piecewise CUDA Graph is enabled by default as an experimental feature.",
  "To work around this error, add --disable-piecewise-cuda-graph to your launch command.",
  "Please report this issue at https://github.com/sgl-project/sglang/issues/new/choose",
] as const;
const PCG_MESSAGE_LINES = 8;

function pcgAdviceTailOf(head: string): ((line: string) => boolean) | null {
  if (!PCG_FAILED.test(head)) return null;
  let advice = 0;
  let message = 0;
  return (line) => {
    if (advice >= PCG_ADVICE.length) return false;
    if (line.trimEnd() === PCG_ADVICE[advice]) {
      advice++;
      return true;
    }
    if (advice > 0 || message >= PCG_MESSAGE_LINES) {
      advice = PCG_ADVICE.length;
      return false;
    }
    message++;
    return true;
  };
}

/** The lines that finish the message a record's first line starts, printed on lines of their own: null when it starts none. */
export function messageTailOf(head: string): ((line: string) => boolean) | null {
  if (opensTerminate(head)) return isTerminateTail;
  if (EFA_ABORT.test(head)) return isEfaAbortTail;
  if (head.charCodeAt(0) === 109 /* m */) return errorCqeTailOf(head);
  if (head.charCodeAt(0) === 80 /* P */) return pyspyDumpTailOf(head);
  return head.charCodeAt(0) === 91 /* [ */ ? (mpiAbortTailOf(head) ?? pcgAdviceTailOf(head)) : null;
}
