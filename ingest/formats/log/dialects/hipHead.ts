// The HIP runtime's own log (ROCm/clr rocclr/utils/debug.cpp log_printf, reached by ClPrint and guarantee() in
// rocclr/utils/debug.hpp): `:%d:%-25s:%-4d: %010lld us: %s`, newer releases adding `[pid:%d tid:0x%x] ` before the
// message — the level's number, the file and line padded (both empty, `:3:                         :0   :`, unless
// AMD_LOG_MASK asks for the place), a monotonic clock in µs (no time of day), the message.
// The number is amd::LogLevel: 1 error, 2 warning, 3 info, 4 and above debug. 0, LOG_NONE, is printed whatever
// AMD_LOG_LEVEL says, and only on two paths, both of which abort the process at once: guarantee() and the device queue's
// error callback (rocclr/device/rocm/rocdevice.cpp callbackQueue, `Callback: Queue %p aborting with error : %s code:
// 0x%x`, HSA's status string in it). So `:0:` is fatal.

import type { LineLevel } from "../unread.js";

export interface HipHead {
  level: LineLevel;
  /** The file and line, where the mask asked for them (`rocdevice.cpp:2984`). */
  source: string | undefined;
  msgStart: number;
}

// A build may print a `d` after the clock (`7262982208d us`, as a user's paste shows it): read past it.
const HIP = /^:(\d):([^:]*?) *:(\d+) *: +\d+(?:d)? us: +(?:\[pid:\d+ +tid:0x[0-9a-f]+\] +)?/;

const LEVELS: readonly LineLevel[] = ["fatal", "error", "warning", "info"];

/** A line of the HIP runtime's log, or null. */
export function readHipHead(line: string): HipHead | null {
  if (line.charCodeAt(0) !== 58 /* : */ || line.charCodeAt(2) !== 58) return null;
  const m = HIP.exec(line);
  if (m === null) return null;
  const file = m[2]!;
  return { level: LEVELS[Number(m[1])] ?? "debug", source: file.length > 0 ? `${file}:${m[3]}` : undefined, msgStart: m[0].length };
}
