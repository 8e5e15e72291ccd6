// The signals a process dies of, as strsignal(3) (glibc) names them and as
// Linux numbers them (signal(7); x86 and Arm alike for these), and how a death
// by each is classed. Launchers report a dead process by the name (Slurm's
// srun), by the number, or by both (Open MPI's and PRRTE's mpirun).

export interface SignalMeaning {
  signal: string;
  number: number;
  failureClass: string;
}

/** By strsignal(3)'s text. */
export const SIGNALS_BY_TEXT: Readonly<Record<string, SignalMeaning>> = {
  Killed: { signal: "SIGKILL", number: 9, failureClass: "crash" },
  "Segmentation fault": { signal: "SIGSEGV", number: 11, failureClass: "segfault" },
  "Bus error": { signal: "SIGBUS", number: 7, failureClass: "segfault" },
  Aborted: { signal: "SIGABRT", number: 6, failureClass: "crash" },
  Terminated: { signal: "SIGTERM", number: 15, failureClass: "crash" },
  "Illegal instruction": { signal: "SIGILL", number: 4, failureClass: "crash" },
  "Floating point exception": { signal: "SIGFPE", number: 8, failureClass: "crash" },
  Hangup: { signal: "SIGHUP", number: 1, failureClass: "crash" },
  Interrupt: { signal: "SIGINT", number: 2, failureClass: "crash" },
};

/** By number; undefined for a signal the table does not hold. */
export function signalOfNumber(n: number): SignalMeaning | undefined {
  return Object.values(SIGNALS_BY_TEXT).find((m) => m.number === n);
}

/** By name (`SIGSEGV`); undefined for a signal the table does not hold. */
export function signalOfName(signal: string): SignalMeaning | undefined {
  return Object.values(SIGNALS_BY_TEXT).find((m) => m.signal === signal);
}
