// Progress of a long step on a terminal's stderr (DESIGN.md "CLI": quiet when
// piped or with --json): one line, overwritten as the step goes on.

/** One overwritten line on a terminal: "replay: 120000/4000000". */
export function showProgress(phase: string, done: number, total: number): void {
  process.stderr.write(`\r\x1b[K${phase}: ${done}${Number.isFinite(total) ? `/${total}` : ""}`);
}

/** Clears the progress line before the command's own output. */
export function clearProgress(): void {
  process.stderr.write("\r\x1b[K");
}
