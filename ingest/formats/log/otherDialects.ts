// The dialects of lines that are not SGLang's own, as they reach a server's
// stdout/stderr beside it (DESIGN.md "Inputs"): ISO-dated lines of other
// loggers (Python's `%(asctime)s`, loguru, Mooncake's Python client), NCCL's
// `host:pid:tid [rank] NCCL INFO|WARN …` (no time at all), and Python's
// `logging` default `LEVEL:name:message` (no time either). glog/absl and the
// torch c10 forms are read by ../sglang/torchLines.ts. Each reader says where
// the message starts, so the message templates run on the message alone.
// UCX's `[sec.usec] [host:pid:tid] file:line UCX LEVEL …` carries its own unix time.

import { civilToUs, isValidCivil } from "../sglang/prefix.js";

export interface IsoHead {
  tsUs: number;
  msgStart: number;
  level?: string;
}

const ISO_TIME = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(?: ?(Z|[+-]\d\d:?\d\d))?(?=[\s|\]]|$)/;
// What follows the time before the message: ` - name - LEVEL - `, ` | LEVEL | where - `, ` LEVEL name: `, `] `.
const AFTER_TIME = /^\]?\s*(?:(?:-\s+)?(?:[\w.\-[\]]+\s+-\s+)?\[?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE)\]?\s*(?:\|\s*[\w.:<>-]+\s*)?(?:[-|:]\s+)?)?/;

/** A line that opens with an ISO-8601 date and time; local times are read in `tzOffsetMinutes`. */
export function readIsoHead(line: string, tzOffsetMinutes: number): IsoHead | null {
  const c0 = line.charCodeAt(0);
  if (c0 < 48 || c0 > 57 || line.charCodeAt(4) !== 45) return null;
  const m = ISO_TIME.exec(line);
  if (!m) return null;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  const fractionUs = m[7] === undefined ? 0 : Number(m[7].padEnd(6, "0").substring(0, 6));
  const zone = m[8];
  const offset = zone === undefined ? tzOffsetMinutes : zone === "Z" ? 0 : zoneMinutes(zone);
  const rest = AFTER_TIME.exec(line.substring(m[0].length, m[0].length + 200));
  const head: IsoHead = { tsUs: civilToUs(civil, fractionUs, offset), msgStart: m[0].length + (rest ? rest[0].length : 0) };
  if (rest?.[1] !== undefined) head.level = rest[1];
  return head;
}

function zoneMinutes(zone: string): number {
  const sign = zone.charCodeAt(0) === 45 ? -1 : 1;
  const digits = zone.substring(1).replace(":", "");
  return sign * (Number(digits.substring(0, 2)) * 60 + Number(digits.substring(2, 4)));
}

export interface NcclHead {
  ncclHost: string;
  pid: number;
  cudaDev: number;
  level: string;
  msgStart: number;
}

const NCCL = /^([\w.-]+):(\d+):(\d+) \[(\d+)\] (?:[\w/.-]+:\d+ )?NCCL (INFO|WARN|ERROR|TRACE|ABORT) /;

/** `gpu-node-3:2215:2301 [3] NCCL INFO …` (NCCL_DEBUG); the bracket holds the CUDA device. */
export function readNcclHead(line: string): NcclHead | null {
  if (line.indexOf(" NCCL ") < 0) return null;
  const m = NCCL.exec(line);
  if (!m) return null;
  return { ncclHost: m[1]!, pid: Number(m[2]), cudaDev: Number(m[4]), level: m[5]!, msgStart: m[0].length };
}

export interface UcxHead {
  tsUs: number;
  /** Where `UCX  ERROR …` starts (the UCX templates read the component and level themselves). */
  msgStart: number;
}

const UCX = /^\[(\d{9,11})\.(\d{1,6})\] \[[^\]]*\] +[\w.-]+:\d+ +(?=UCX )/;

/** UCX's own prefix (src/ucs/debug/log.c): `[1718093587.554102] [host:88213:0]     ib_mlx5_log.c:177  UCX  ERROR …`. */
export function readUcxHead(line: string): UcxHead | null {
  const c1 = line.charCodeAt(1);
  if (c1 < 48 || c1 > 57) return null;
  const m = UCX.exec(line);
  return m ? { tsUs: Number(m[1]) * 1_000_000 + Number(m[2]!.padEnd(6, "0")), msgStart: m[0].length } : null;
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
