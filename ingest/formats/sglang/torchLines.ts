// PyTorch distributed lines that land in a server's stderr between SGLang's
// own: c10 / glog lines (`[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] ...`,
// older `[E ProcessGroupNCCL.cpp:737] ...`, glog `E0321 02:07:08.408271 1234 file.cpp:607] ...`,
// and glog with its year, `E20260106 06:43:02.966156  5793 file.cpp:820] ...`: glog prints the year
// when `log_year_in_prefix` is set, its default since glog 0.6 — google/glog src/logging.cc).
// The collective watchdog's messages are templates (../templates/engines/torchC10d.ts).
// Gloo has no watchdog line: a timed-out gloo collective raises
// `Timed out waiting {ms}ms for recv|send operation to complete`, read from an
// exception's message instead.

/** The month/day/time a torch log line carries (no year: the caller supplies one). */
export interface TorchStamp {
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fractionUs: number;
}

export interface TorchLine {
  /** The `[rankN]:` global rank, when printed. */
  globalRank?: number;
  level: string;
  stamp?: TorchStamp;
  /** The year, when the line prints one (glog's `log_year_in_prefix`). */
  year?: number;
  /** The instant, in µs since the epoch, when the line prints the unix time (absl's prefix before it knows the zone). */
  unixUs?: number;
  msgStart: number;
  /** The `file.cpp:123` the line was logged from. */
  source: string;
}

const BRACKETED = /^(?:\[rank(\d+)\]:)?\[([IWEF])(?:(\d{3,4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9}))? ?(?:\d+ )?([\w.]+:\d+)\] /;
/**
 * glog's prefix (google/glog src/logging.cc: `Lyyyymmdd hh:mm:ss.uuuuuu threadid file:line] `), its place the
 * file's base name as glog prints it (`const_basename(file)`), or the path the build gave `__FILE__` where a
 * logger writes glog's prefix itself: torch_npu's allocator lines carry `../torch_npu/csrc/core/npu/
 * NPUCachingAllocator.cpp:3009]` (vllm-project/vllm-ascend#14802).
 */
const GLOG = /^([IWEF])(\d{4})?(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9}) +\d+ ((?:[\w.-]*\/)*[\w.]+:\d+)\] /;
/**
 * absl's prefix written before the program loaded a time zone (absl::InitializeLog not yet called): the month, day,
 * hour and minute printed as zeros and the seconds as the unix time, `E0000 00:00:1733392801.123456   12345
 * init.cc:229] ` (abseil-cpp absl/log/internal/log_format.cc FormatBoundedFields, `"%c0000 00:00:%02d.%06d %7d "`).
 * gRPC's and NIXL's lines before their logging is set up take it.
 */
const ABSL_UNZONED = /^([IWEF])0000 00:00:(\d+)\.(\d{6}) +-?\d+ ((?:[\w.-]*\/)*[\w.]+:\d+)\] /;
/**
 * A glog line whose place a rich-text paste mangled: Markdown emphasis took the
 * underscores of the file name (`ascend_direct_transport.cpp:460]` became
 * `ascend direct transport.cpp:460`) and the closing bracket went with it. The
 * header before it (level, date, time, thread id) is glog's whole; the place is
 * a C/C++ file name and line, kept as printed. Seen in vllm-project/vllm-ascend#13966.
 */
const GLOG_PASTED = /^([IWEF])(\d{4})?(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9}) +\d+ ((?:[\w.-]+ ){1,4}[\w.-]*\.(?:cc|cpp|cxx|c|h|hpp):\d+)\]? /;

/**
 * A glog line whose time and thread id were cut, its level letter and place kept:
 * `W topology.cpp:152] No RDMA devices found, check your device installation`
 * (kvcache-ai/Mooncake#1627). glog's prefix is `Lyyyymmdd hh:mm:ss.uuuuuu threadid file:line] msg`
 * (google/glog README, "Log Line Prefix Format"); a paste shortened by hand keeps the first letter
 * and the last field. The place must be a C/C++ or CUDA source file, so that a line of prose that
 * opens with `I ` is not taken for one.
 */
const GLOG_UNTIMED = /^([IWEF]) ([\w.-]+\.(?:cc|cpp|cxx|c|h|hpp|cu):\d+)\] /;

/**
 * glog's place alone, its level letter, time and thread cut by the paste: `gds_utils.cpp:163] Error in setting up
 * Batch` (ai-dynamo/nixl#2069). The place must be a C/C++ or CUDA source file and line, as a build gives `__FILE__`,
 * followed by glog's bracket (google/glog README, "Log Line Prefix Format"), so that prose does not open one. The
 * level is gone with the letter: the line's words decide whether it is a failure (../log/unread.ts).
 */
const GLOG_PLACE_ONLY = /^((?:[\w.-]*\/)*[\w.-]+\.(?:cc|cpp|cxx|c|h|hpp|cu):\d+)\] /;

/** glog's place and where the message starts, on a line that kept only that field of glog's prefix; null otherwise. */
export function readGlogPlace(line: string): { msgStart: number; source: string } | null {
  const m = GLOG_PLACE_ONLY.exec(line);
  return m === null ? null : { msgStart: m[0].length, source: m[1]! };
}

const GLOO_TIMEOUT = /Timed out waiting (\d+)ms for (recv|send) operation to complete/;

/** Cheap test on the first characters: could this be a c10 / glog line? */
export function looksLikeTorchLine(line: string): boolean {
  const c0 = line.charCodeAt(0);
  if (c0 === 91 /* [ */) {
    const c1 = line.charCodeAt(1);
    if (c1 === 114 /* r */) return line.startsWith("[rank");
    const c2 = line.charCodeAt(2);
    return isLevel(c1) && (c2 === 32 || (c2 >= 48 && c2 <= 57));
  }
  if (!isLevel(c0)) return false;
  const c1 = line.charCodeAt(1);
  return c1 === 32 || (isDigit(c1) && (line.charCodeAt(5) === 32 || line.charCodeAt(9) === 32));
}

export function readTorchLine(line: string): TorchLine | null {
  const m = BRACKETED.exec(line);
  if (m) {
    const out: TorchLine = { level: m[2], msgStart: m[0].length, source: m[8] };
    if (m[1] !== undefined) out.globalRank = Number(m[1]);
    if (m[3] !== undefined) out.stamp = stamp(m[3], m[4], m[5], m[6], m[7]);
    return out;
  }
  if (line.charCodeAt(1) === 32 /* space */) {
    const u = GLOG_UNTIMED.exec(line);
    return u === null ? null : { level: u[1], msgStart: u[0].length, source: u[2] };
  }
  const unzoned = line.startsWith("0000 00:00:", 1) ? ABSL_UNZONED.exec(line) : null;
  if (unzoned !== null) return { level: unzoned[1]!, msgStart: unzoned[0].length, source: unzoned[4]!, unixUs: Number(unzoned[2]) * 1_000_000 + Number(unzoned[3]) };
  const g = GLOG.exec(line) ?? GLOG_PASTED.exec(line);
  if (!g) return null;
  const out: TorchLine = { level: g[1], msgStart: g[0].length, stamp: stamp(g[3], g[4], g[5], g[6], g[7]), source: g[8] };
  if (g[2] !== undefined) out.year = Number(g[2]);
  return out;
}

/** A glog / absl header anywhere in a line, after a character that cannot end a word of it. */
const GLOG_INSIDE = /[\s(:,;]([IWEF])(\d{4})?(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9}) +\d+ ([\w.]+:\d+)\] /g;

/**
 * Where a glog / absl record starts inside a line another writer left unfinished, or -1. Two writers on
 * one terminal interleave: nixlbench's `NIXL: createBackend failed! (Error code: ` was still open when
 * absl wrote `E0421 11:56:59.776371  709103 nixl_agent.cpp:322] createBackend: …` on it (ai-dynamo/nixl#1561);
 * absl writes each record whole, in one `fwrite` (abseil-cpp absl/log/internal/globals.cc WriteToStderr).
 */
export function glogStartInside(line: string): number {
  GLOG_INSIDE.lastIndex = 1;
  const m = GLOG_INSIDE.exec(line);
  return m === null ? -1 : m.index + 1;
}

/** The gloo form, read from an exception message: `{timeoutMs, op}` or null. */
export function glooTimeout(message: string): { timeoutMs: number; op: string } | null {
  const m = GLOO_TIMEOUT.exec(message);
  return m ? { timeoutMs: Number(m[1]), op: m[2] } : null;
}

/** c10 prints the month unpadded (`E321` is March 21), glog pads it (`E0321`). */
function stamp(monthDay: string, h: string, mi: string, s: string, frac: string): TorchStamp {
  const split = monthDay.length - 2;
  return {
    month: Number(monthDay.substring(0, split)),
    day: Number(monthDay.substring(split)),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s),
    fractionUs: Number(frac.padEnd(6, "0").substring(0, 6)),
  };
}

function isLevel(c: number): boolean {
  return c === 73 /* I */ || c === 87 /* W */ || c === 69 /* E */ || c === 70 /* F */;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
