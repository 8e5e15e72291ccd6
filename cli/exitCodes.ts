// One exit-code contract for every command (DESIGN.md "Exit codes"), so that
// CI can tell "clean" from "could not look": a report over inputs that were
// refused or partly unreadable is not a clean bill, whatever it found.

export const ExitCode = {
  /** Every input read, and no finding at or above --fail-on. */
  clean: 0,
  /** A finding (or a violated hypothesis) at or above --fail-on. */
  findings: 1,
  /** A usage error, nothing readable, or a file that is not a kvrewind incident. */
  usage: 2,
  /** Nothing at or above --fail-on, but some input was refused or has lines that could not be read. */
  couldNotLook: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = [
  "Exit codes (every command):",
  "  0  every input read, and no finding at or above --fail-on",
  "  1  a finding (or a violated hypothesis) at or above --fail-on",
  "  2  usage error, nothing readable, or a file that is not a kvrewind incident",
  "  3  nothing at or above --fail-on, but some input was refused or has lines that could not be read",
].join("\n");

/** What an input's record says of it: the ingest summary's sources and the stored sources table both have these. */
export interface InputOutcome {
  path: string;
  status: string;
  reason?: string | null;
  errorCount: number;
}

/** The inputs the analysis could not fully look at: refused ones, and ones with lines that could not be read. */
export function unreadInputs(sources: readonly InputOutcome[]): string[] {
  return sources.flatMap((s) => {
    if (s.status === "refused") return [`${s.path}: refused (${s.reason ?? "no reason recorded"})`];
    if (s.errorCount > 0) return [`${s.path}: ${s.errorCount} line(s) could not be read`];
    return [];
  });
}

/** The exit code of a command that judged an incident: findings first, then whether it could look at everything. */
export function verdictExitCode(failing: boolean, unread: readonly string[]): ExitCode {
  if (failing) return ExitCode.findings;
  return unread.length > 0 ? ExitCode.couldNotLook : ExitCode.clean;
}

/** Says on stderr what could not be looked at, so that exit 3 is never silent. */
export function reportUnread(unread: readonly string[]): void {
  for (const line of unread) process.stderr.write(`kvrewind: not read: ${line}\n`);
}
