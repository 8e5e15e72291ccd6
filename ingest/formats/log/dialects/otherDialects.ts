// The dialects of lines that are not SGLang's own, as they reach a server's
// stdout/stderr beside it (DESIGN.md "Inputs"): ISO-dated lines of other
// loggers are read by ./isoHead.ts; here NCCL's
// `host:pid:tid [rank] NCCL INFO|WARN …` (no time at all), and Python's
// `logging` default `LEVEL:name:message` (no time either). glog/absl and the
// torch c10 forms are read by ../../sglang/torchLines.ts. Each reader says where
// the message starts, so the message templates run on the message alone.
// UCX's `[sec.usec] [host:pid:tid] file:line UCX LEVEL …` carries its own unix time.
// cuFile's cufile.log (GPUDirect Storage) carries a day-first date and its own level.
// The kernel's log as `dmesg` prints it (RDMA and GPU driver lines pasted beside a server's).

import { monthOfAbbreviation } from "../../../../domain/timeFormat.js";
import { civilToUs, isValidCivil } from "../../sglang/prefix.js";
import { sinceBootUsOf } from "../kernelClock.js";
import type { TorchStamp } from "../../sglang/torchLines.js";

export interface KernelHead {
  /** The time `dmesg -T` prints; -1 for the seconds since boot `dmesg` prints by default. */
  tsUs: number;
  /** The seconds since boot `dmesg` prints, in µs. */
  sinceBootUs?: number;
  msgStart: number;
}

// util-linux sys-utils/dmesg.c print_record: `[%5ld.%06ld] ` (seconds since boot), or with -T
// `[%s] ` holding ctime(3)'s `%a %b %e %H:%M:%S %Y` in local time (`[Wed Jul 29 14:40:27 2026] `).
const KERNEL =
  /^\[(?: *(\d+\.\d{6})|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4}))\] /;

/** A kernel log line as `dmesg` prints it (no level); its ctime is read in `tzOffsetMinutes`. */
export function readKernelHead(line: string, tzOffsetMinutes: number): KernelHead | null {
  const m = KERNEL.exec(line);
  if (!m) return null;
  if (m[1] !== undefined) return { tsUs: -1, sinceBootUs: sinceBootUsOf(m[1]), msgStart: m[0].length };
  const civil = { year: +m[7]!, month: monthOfAbbreviation(m[2]!), day: +m[3]!.trim(), hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  return isValidCivil(civil) ? { tsUs: civilToUs(civil, 0, tzOffsetMinutes), msgStart: m[0].length } : null;
}

export interface NcclHead {
  ncclHost: string;
  /** Absent when the paste holds a placeholder in its place (`[PID]`). */
  pid?: number;
  cudaDev: number;
  level: string;
  msgStart: number;
}

// NCCL's prefix, `%s:%d:%d [%d] ` then `%s:%d ` (file:line) for WARN and TRACE (NVIDIA/nccl src/debug.cc
// ncclDebugLog). Host, pid and tid are taken as the paste holds them: a user who redacts a log replaces
// them with placeholders (`[Node-A]:[PID]:[Thread] [0] NCCL WARN …`, sgl-project/sglang#4857), and the
// device bracket and the `NCCL LEVEL` words still say whose line it is.
const NCCL = /^([^\s:]+):([^\s:]+):([^\s:]+) \[(\d+)\] (?:[\w/.-]+:\d+ )?NCCL (INFO|WARN|ERROR|TRACE|ABORT) /;

/** `gpu-node-3:2215:2301 [3] NCCL INFO …` (NCCL_DEBUG); the bracket holds the CUDA device. */
export function readNcclHead(line: string): NcclHead | null {
  if (line.indexOf(" NCCL ") < 0) return null;
  const m = NCCL.exec(line);
  if (!m) return null;
  const head: NcclHead = { ncclHost: m[1]!, cudaDev: Number(m[4]), level: m[5]!, msgStart: m[0].length };
  if (/^\d+$/.test(m[2]!)) head.pid = Number(m[2]);
  return head;
}

export interface UcxHead {
  tsUs: number;
  /** Where `UCX  ERROR …` starts (the UCX templates read the component and level themselves). */
  msgStart: number;
}

const UCX = /^\[(\d{9,11})\.(\d{1,6})\] (?:\[[^\]]*\] +)?[\w.-]+:\d+ +(?=UCX )/;

/**
 * UCX's own prefix (src/ucs/debug/log.c): `[1718093587.554102] [host:88213:0]     ib_mlx5_log.c:177  UCX  ERROR …`;
 * the `[host:pid:thread]` part may be missing (`[1760048752.141287] proto_reconfig.c:60   UCX  ERROR …`, as pasted in ai-dynamo/nixl#927).
 */
export function readUcxHead(line: string): UcxHead | null {
  const c1 = line.charCodeAt(1);
  if (c1 < 48 || c1 > 57) return null;
  const m = UCX.exec(line);
  return m ? { tsUs: Number(m[1]) * 1_000_000 + Number(m[2]!.padEnd(6, "0")), msgStart: m[0].length } : null;
}

/**
 * UCX's metadata alone, the time and `[host:pid:thread]` fields cut by the paste or by the tool that
 * forwarded the line (src/ucs/debug/log.c, UCS_LOG_METADATA_FMT `"%17s:%-4u %-4s %-5s %*s"`: the file
 * right-aligned, its line, the component, the level): `ib_mlx5_dv.c:433  UCX  ERROR   mlx5dv_devx_obj_modify(…) failed`.
 */
const UCX_METADATA = /^[\w.-]+\.(?:c|cc|cpp|h|inl):\d+ +(?=UCX +[A-Z]+ )/;

/** Where `UCX  LEVEL …` starts in a line that opens with UCX's metadata and no time, or -1. */
export function ucxMetadataStart(line: string): number {
  const m = UCX_METADATA.exec(line);
  return m === null ? -1 : m[0].length;
}

export interface CufileHead {
  tsUs: number;
  level: string;
  /** The module and line cuFile names (`cufio-fs:327`). */
  source: string;
  msgStart: number;
}

// cuFile's own log (cufile.log, NVIDIA GPUDirect Storage; the library is closed, the shape is its log as the GDS
// Installation and Troubleshooting Guide and users show it, e.g. an ABCI guide's `head cufile.log`):
// ` 06-02-2025 18:40:12:774 [pid=2528915 tid=2528915] INFO   cufio-drv:408 GDS release version: 1.11.1.6` — a space,
// the day before the month, milliseconds after a colon, the level padded, the module and line. Local time.
const CUFILE = /^ ?(\d\d)-(\d\d)-(\d{4}) (\d\d):(\d\d):(\d\d):(\d{3}) \[pid=\d+ tid=\d+\] (TRACE|DEBUG|INFO|NOTICE|WARN|ERROR) +(?:([\w-]+:\d+) +)?/;

/** A cufile.log line, its leading space kept or cut by the paste; its time is read in `tzOffsetMinutes`. */
export function readCufileHead(line: string, tzOffsetMinutes: number): CufileHead | null {
  const at = line.charCodeAt(0) === 32 ? 1 : 0;
  if (line.charCodeAt(at + 2) !== 45 || line.charCodeAt(at + 5) !== 45) return null;
  const m = CUFILE.exec(line);
  if (m === null) return null;
  const civil = { year: +m[3]!, month: +m[2]!, day: +m[1]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  return { tsUs: civilToUs(civil, Number(m[7]) * 1000, tzOffsetMinutes), level: m[8]!, source: m[9] ?? "", msgStart: m[0].length };
}

export interface PythonLoggingHead {
  level: string;
  logger: string;
  msgStart: number;
}

const PY_LOGGING = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL):([\w.]*):/;

/** Python's `logging.basicConfig()` default, `WARNING:root:message` (no time). */
export function readPythonLoggingHead(line: string): PythonLoggingHead | null {
  const m = PY_LOGGING.exec(line);
  return m ? { level: m[1]!, logger: m[2]!, msgStart: m[0].length } : null;
}

export interface LmcacheHead {
  level: string;
  msgStart: number;
}

// LMCache's format (LMCache lmcache/logging.py build_format):
// `{color}[%(asctime)s] LMCache %(levelname)s:{reset} %(message)s {underline}(%(filename)s:%(lineno)d:%(name)s){reset}`.
// readIsoHead reads the whole line; a user who selects from the logger's name on, or whose
// terminal dropped the time with the colour code before it, pastes `LMCache ERROR: …`.
const LMCACHE_UNTIMED = /^LMCache (DEBUG|INFO|WARNING|ERROR|CRITICAL):\s/;

/** An LMCache line without its bracketed time: `LMCache ERROR: Failed to initialize …`. */
export function readLmcacheUntimedHead(line: string): LmcacheHead | null {
  const m = LMCACHE_UNTIMED.exec(line);
  return m ? { level: m[1]!, msgStart: m[0].length } : null;
}

export interface PythonWarningHead {
  /** `quant_api.py:1731`: the file and line the warning names. */
  source: string;
  /** The warning's category (`SyntaxWarning`, `UserWarning`, `FutureWarning`). */
  category: string;
  msgStart: number;
}

// CPython Lib/warnings.py _formatwarnmsg_impl: `f"{msg.filename}:{msg.lineno}: {category}: {msg.message}\n"`,
// then the source line it names, stripped and indented by two spaces (which continues the record).
// The filename is a path, or a frozen module's `<frozen importlib._bootstrap>`.
const PY_WARNING = /^(?:<[^<>\n]+>|[^\s:<>]*\.py):(\d+): ((?:[A-Za-z_]\w*\.)*[A-Z]\w*Warning): /;

/** A warning `warnings.showwarning` writes to stderr: `/…/quant_api.py:1731: SyntaxWarning: invalid escape sequence '\.'` (no time). */
export function readPythonWarningHead(line: string): PythonWarningHead | null {
  if (line.indexOf("Warning: ") < 0) return null;
  const m = PY_WARNING.exec(line);
  if (m === null) return null;
  const colon = line.indexOf(":" + m[1]! + ": ");
  const file = line.substring(0, colon);
  return { source: `${file.substring(file.lastIndexOf("/") + 1)}:${m[1]!}`, category: m[2]!, msgStart: m[0].length };
}

/** A vLLM line's level, its time without a year (as torch's lines print it), its place and where its message starts. */
export interface VllmHead extends TorchStamp {
  level: string;
  /** `multiproc_executor.py:487`. */
  source: string;
  msgStart: number;
}

// vLLM's logger (vllm/logger.py _FORMAT `%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s`,
// datefmt `%m-%d %H:%M:%S`); before the brackets, `%(filename)s:%(lineno)d] `. Older SGLang printed the same.
const VLLM = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))? (?:\[([\w./-]+:\d+)\]|([\w./-]+:\d+)\]) /;

/** `ERROR 10-23 10:41:13 [multiproc_executor.py:487] …`, `INFO 02-09 14:03:07 file.py:112] …`: a time without a year. */
export function readVllmHead(line: string): VllmHead | null {
  const m = VLLM.exec(line);
  if (!m) return null;
  return {
    level: m[1]!,
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6]),
    fractionUs: m[7] === undefined ? 0 : Number(m[7].padEnd(6, "0")),
    source: (m[8] ?? m[9])!,
    msgStart: m[0].length,
  };
}

export interface ProcessTag {
  /** What the tags say of the process: its name (`raylet` for Ray's own daemon, empty for Ray's bare `pid=`), and a rank where one is named. */
  name: string;
  tp?: number;
  dp?: number;
  /** Where the line's own text starts, after every tag. */
  end: number;
}

// `(VllmWorker rank=0 pid=4893) `, `(Worker pid=782969) (Worker_DP0_TP1_EP1 pid=782969) `, `(APIServer pid=782545) `,
// Ray's `(RayWorkerWrapper pid=123, ip=10.0.0.1) `, `(pid=123) ` and its daemons' `(raylet) `, `(raylet, ip=10.0.3.17) `,
// `(autoscaler +1m2s) ` (ray python/ray/_private/worker.py print_worker_logs: `({prefix_for}{pid}{, ip=…}) `,
// prefix_for empty for the raylet and the autoscaler, else `[{actor or task name} ]pid=`): the process a
// multi-process server's output came from (the node's address is not a host name of ours: it is left to
// the lines that state whose it is). A Ray line with nothing after its tag is the tag alone.
const PROCESS_TAG = /^\((?:(?:([A-Za-z_]\S*?)(?: rank=(\d+)| TP(\d+))? )?pid=\d+|(raylet|autoscaler \+\w+))(?:, ip=[\d.]+)?\)(?: |$)/;

/** The process tags before a line's text, innermost last; null when the line has none. */
export function readProcessTags(line: string): ProcessTag | null {
  let at = 0;
  let tag: ProcessTag | null = null;
  for (;;) {
    const m = PROCESS_TAG.exec(at === 0 ? line : line.substring(at));
    if (!m) return tag;
    const name = m[1] ?? m[4]?.split(" ")[0] ?? "";
    at += m[0].length;
    tag = { name, end: at };
    const tp = m[2] ?? m[3] ?? /_TP(\d+)(?:_|$)/.exec(name)?.[1];
    const dp = /_DP(\d+)(?:_|$)/.exec(name)?.[1];
    if (tp !== undefined) tag.tp = Number(tp);
    if (dp !== undefined) tag.dp = Number(dp);
  }
}

export interface GlooHead {
  level: "info" | "warning";
  msgStart: number;
}

// Gloo's report of a context's connections, printed to stdout with no time (gloo/transport/tcp/context.cc
// Context::printConnectivityInfo): `[Gloo] Rank {rank} is connected to {n} peer ranks. Expected number of
// connected peer ranks is : {size - 1}`, and when some are missing `[Gloo] Rank {rank} is NOT connected to: [{ranks}]`.
const GLOO = /^\[Gloo\] Rank \d+ is (?:connected to (\d+) peer ranks\.(?: Expected number of connected peer ranks is : (\d+))?|(NOT) connected to: )/;

/** A line of Gloo's connectivity report: info, or warning when it counts fewer peers than expected or names the missing ones. */
export function readGlooHead(line: string): GlooHead | null {
  if (line.charCodeAt(1) !== 71 /* G */) return null;
  const m = GLOO.exec(line);
  if (m === null) return null;
  const short = m[3] !== undefined || (m[2] !== undefined && Number(m[1]) < Number(m[2]));
  return { level: short ? "warning" : "info", msgStart: 7 };
}

export interface SlurmHead {
  /** `srun`, `slurmstepd` (`slurmstepd-node-3` on a test cluster of several slurmd per machine). */
  program: string;
  level: string;
  msgStart: number;
}

// Slurm's own lines on a job's stderr (slurm src/common/log.c _log_msg: `"%s: %s%s"`, the program's
// name, the level's prefix, the message): `srun: error: `, `slurmstepd: error: `, `srun: ` (info,
// verbose: no prefix), `srun: warning: `, `srun: fatal: `, `srun: debug:  `; slurmstepd names itself
// `slurmstepd-{node}` where several slurmd share a machine (src/slurmd/slurmstepd/mgr.c, MULTIPLE_SLURMD).
const SLURM = /^(srun|sbatch|salloc|slurmstepd(?:-[\w.-]+)?): (?:(error|fatal|warning|debug[2-5]?): +)?/;

/** A line Slurm's srun or slurmstepd wrote into the job's output (no time: a line states its own where it does). */
export function readSlurmHead(line: string): SlurmHead | null {
  const m = SLURM.exec(line);
  if (m === null) return null;
  const level = m[2] === undefined ? "info" : m[2].startsWith("debug") ? "debug" : m[2];
  return { program: m[1]!, level, msgStart: m[0].length };
}

export interface RayHead {
  tsUs: number;
  level: string;
  /** `node_manager.cc:3049`. */
  source?: string;
  msgStart: number;
}

// Ray's C++ logger (src/ray/util/logging.cc kLogFormatTextPattern `[%Y-%m-%d %H:%M:%S,%e %L %P %t] %v`:
// spdlog's one-letter level, the pid and the thread), the message opening with the component and the
// place in newer releases: `[2023-04-09 07:23:59,445 E 395 395] (raylet) node_manager.cc:3049: `.
const RAY = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) ([TDIWEC]) \d+ \d+\] (?:\([\w-]+\) )?(?:([\w.-]+\.(?:cc|h|cpp):\d+): )?/;
const RAY_LEVELS: Readonly<Record<string, string>> = { T: "TRACE", D: "DEBUG", I: "INFO", W: "WARNING", E: "ERROR", C: "CRITICAL" };

/** A line of a Ray daemon's own log (the raylet's, the GCS's), as its driver forwards it; the time read in `tzOffsetMinutes`. */
export function readRayHead(line: string, tzOffsetMinutes: number): RayHead | null {
  const m = RAY.exec(line);
  if (m === null) return null;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  const head: RayHead = { tsUs: civilToUs(civil, Number(m[7]) * 1000, tzOffsetMinutes), level: RAY_LEVELS[m[8]!]!, msgStart: m[0].length };
  if (m[9] !== undefined) head.source = m[9];
  return head;
}

export interface CudaToolHead {
  /** `nvcc`, `ptxas`, `nvlink`, … */
  tool: string;
  level: string;
  msgStart: number;
}

// The CUDA toolkit's compiler drivers and assemblers (closed source) report on stderr as `{tool} {level} : {msg}`, the
// level padded to seven (`nvcc fatal   : Unsupported gpu architecture 'compute_89'`, `nvcc warning : …`, `ptxas info    :
// Used 64 registers`), ptxas with the input and line before the level (`ptxas /tmp/tempfile-…, line 10; fatal   : …`,
// `ptxas application ptx input, line 36; error   : …`). Quoted so by XLA's ptxas wrapper (xla/stream_executor/cuda/
// ptx_compiler_helpers / subprocess_compilation.cc, which matches `ptxas fatal   : Value '`), Numba's CUDA driver
// (`ptxas fatal   : Internal error: …`) and Triton's PTXASError, which quotes ptxas's stderr.
const CUDA_TOOL = /^(nvcc|ptxas|nvlink|fatbinary|cicc|cudafe\+\+|nvdisasm|cuobjdump)(?: [^;\n]*, line \d+;)? (fatal|error|warning|info) *: /;

/** A line of the CUDA toolkit's compilers (a JIT build's or an install's), with no time. */
export function readCudaToolHead(line: string): CudaToolHead | null {
  const m = CUDA_TOOL.exec(line);
  return m === null ? null : { tool: m[1]!, level: m[2]!, msgStart: m[0].length };
}
