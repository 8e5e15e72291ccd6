// UCX's report of a fatal error. A message whose level is at or above UCX_LOG_LEVEL_TRIGGER (fatal unless
// set) is not printed in UCS_LOG_FMT by ucs_log_default_handler but handed to ucs_fatal_error_message
// (src/ucs/debug/log.c, src/ucs/debug/assert.c), which prints each line of it through ucs_log_fatal_error
// to stderr and then aborts the process:
//   `[%s:%-5d:%d:%d] ` (host, pid, thread number, tid), then `"%13s:%-4u %s"` (the file right-aligned in
//   13 columns, its line, the message's line)
// e.g. `[master:19546:0:19546] ib_mlx5_log.c:139  Transport retry count exceeded on mlx5_0:1/IB (…)`.
// No time and no level word: the path says the level.

const UCX_FATAL = /^\[[^\]\s:]+:\d+ *:\d+:\d+\] +[\w.-]+\.(?:c|cc|cpp|h|inl):\d+ +/;

/** Where the message starts in a line UCX's fatal-error path printed, or -1. */
export function ucxFatalMessageStart(line: string): number {
  if (line.charCodeAt(0) !== 91 /* [ */) return -1;
  const m = UCX_FATAL.exec(line);
  return m === null ? -1 : m[0].length;
}
