// How a line of another logger opens its record, whichever reader found its head: the record's head (dialect, level,
// where the message starts), the templates its message goes through, and the time the line states. The parser
// (../logParser.ts) tries the readers in the order below and opens the record the first one describes; the order
// matters where two heads could read one line (UCX's `[sec.usec]` before the kernel's `[sec.usec]`, an access line
// before Python logging's `INFO:`).

import { LogKind } from "../../../../domain/kinds.js";
import type { ParsedEvent } from "../../../../domain/event.js";
import { slurmStatedUs } from "../../templates/platform/slurm.js";
import type { TorchStamp } from "../../sglang/torchLines.js";
import { ANY_MESSAGES, ENGINE_MESSAGES, KERNEL_MESSAGES, SLURM_MESSAGES, type MessageMatcher } from "../messages.js";
import { levelOfWord, type RecordHead } from "../unread.js";
import { readHipHead } from "./hipHead.js";
import { readIsoHead } from "./isoHead.js";
import { readLlamaCppHead } from "./llamaCppHead.js";
import { readNvshmemHead } from "./nvshmemHead.js";
import {
  readCufileHead,
  readKernelHead,
  readLmcacheUntimedHead,
  readNcclHead,
  readPythonLoggingHead,
  readPythonWarningHead,
  readRayHead,
  readSlurmHead,
  readCudaToolHead,
  readUcxHead,
  readVllmHead,
  ucxMetadataStart,
  type KernelHead,
} from "./otherDialects.js";
import { readThreeFsHead } from "./threeFsHead.js";
import { readTrtllmHead, readTrtllmPythonHead } from "./trtllmHead.js";
import { readTslHead } from "./tslHead.js";
import { ucxFatalMessageStart } from "./ucxFatalHead.js";

export interface DialectHead {
  how: RecordHead;
  matchers: readonly MessageMatcher[];
  /** The time the line states, µs since the epoch; -1 when it states none (the wrapper's, else the dater's). */
  ownUs: number;
  /** A time of day without a year (glog's, vLLM's): the wrapper's time gives the year, else the dater does. */
  stamp?: TorchStamp;
  /** The line may re-log the next line of the open record's traceback under the same head. */
  relogs?: boolean;
  /** Attributes the head states, added after the templates' own. */
  attrs?: Record<string, unknown>;
  /** The kind of a line no template read, where the head alone says what it is (NCCL's `WARN`). */
  unreadKind?: string;
  /** A kernel line: timed by the kernel's clock (../kernelClock.ts), not by its head alone. */
  kernel?: KernelHead;
}

type HeadReader = (line: string, tzOffsetMinutes: number) => DialectHead | null;

/** UCX's `UCX  ERROR …`: the level after its component word. */
const UCX_LEVEL = /^UCX\s+([A-Z]+)/;

function ucxLevel(line: string, msgStart: number): RecordHead["level"] {
  return levelOfWord(UCX_LEVEL.exec(line.substring(msgStart))?.[1]);
}

const ucx: HeadReader = (s) => {
  const h = s.charCodeAt(0) === 91 /* [ */ ? readUcxHead(s) : null;
  return h === null ? null : { how: { dialect: "ucx", level: ucxLevel(s, h.msgStart), msgStart: h.msgStart }, matchers: ENGINE_MESSAGES, ownUs: h.tsUs };
};

const ucxUntimed: HeadReader = (s) => {
  const at = ucxMetadataStart(s);
  return at < 0 ? null : { how: { dialect: "ucx", level: ucxLevel(s, at), msgStart: at }, matchers: ENGINE_MESSAGES, ownUs: -1 };
};

/** UCX's fatal-error lines (./ucxFatalHead.ts): fatal by the path that prints them. */
const ucxFatal: HeadReader = (s) => {
  const at = ucxFatalMessageStart(s);
  return at < 0 ? null : { how: { dialect: "ucx", level: "fatal", msgStart: at }, matchers: ENGINE_MESSAGES, ownUs: -1 };
};

const trtllm: HeadReader = (s, tz) => {
  const h = s.charCodeAt(0) === 91 /* [ */ ? (readTrtllmHead(s) ?? readTrtllmPythonHead(s, tz)) : null;
  if (h === null) return null;
  const head: DialectHead = { how: { dialect: "trtllm", level: levelOfWord(h.level), msgStart: h.msgStart }, matchers: ANY_MESSAGES, ownUs: h.tsUs, relogs: true };
  if (h.rank !== undefined) head.attrs = { globalRank: h.rank };
  return head;
};

const kernel: HeadReader = (s, tz) => {
  const h = s.charCodeAt(0) === 91 /* [ */ ? readKernelHead(s, tz) : null;
  return h === null ? null : { how: { dialect: "kernel", msgStart: h.msgStart }, matchers: KERNEL_MESSAGES, ownUs: -1, kernel: h };
};

const threeFs: HeadReader = (s) => {
  const h = readThreeFsHead(s);
  return h === null ? null : { how: { dialect: "3fs", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.source }, matchers: ENGINE_MESSAGES, ownUs: h.tsUs };
};

/** TensorFlow's and XLA's sink (./tslHead.ts): glog's letters and place after an ISO-like time, read as glog's. */
const tsl: HeadReader = (s, tz) => {
  const h = readTslHead(s, tz);
  return h === null ? null : { how: { dialect: "glog", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.source }, matchers: ENGINE_MESSAGES, ownUs: h.tsUs };
};

const iso: HeadReader = (s, tz) => {
  const h = readIsoHead(s, tz);
  if (h === null) return null;
  // A time and nothing of a logger's own before NCCL's head: a stamp the pipeline that collected the line put there
  // (NCCL prints none before 2.26, src/debug.cc ncclDebugLog); the line behind it is NCCL's, at that time.
  const stamped = h.level === undefined && h.target === undefined ? ncclHeadAt(s, h.msgStart, h.tsUs) : null;
  if (stamped !== null) return stamped;
  return { how: { dialect: "iso", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.target }, matchers: ANY_MESSAGES, ownUs: h.tsUs, relogs: true };
};

const ray: HeadReader = (s, tz) => {
  const h = s.charCodeAt(0) === 91 /* [ */ ? readRayHead(s, tz) : null;
  return h === null ? null : { how: { dialect: "ray", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.source }, matchers: ANY_MESSAGES, ownUs: h.tsUs };
};

/** cuFile's cufile.log (GPUDirect Storage): a day-first date and its own level. */
export const cufile: HeadReader = (s, tz) => {
  const h = readCufileHead(s, tz);
  return h === null ? null : { how: { dialect: "cufile", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.source || undefined }, matchers: ENGINE_MESSAGES, ownUs: h.tsUs };
};

const vllm: HeadReader = (s) => {
  const c1 = s.charCodeAt(1);
  // The second letter of DEBUG, INFO, WARNING, ERROR, CRITICAL.
  const h = c1 === 69 || c1 === 78 || c1 === 65 || c1 === 82 ? readVllmHead(s) : null;
  return h === null ? null : { how: { dialect: "vllm", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.source }, matchers: ANY_MESSAGES, ownUs: -1, stamp: h, relogs: true };
};

/** NCCL's head where it starts at `from` (the line's start, or after a stamp), timed by `ownUs` (-1: none). */
function ncclHeadAt(s: string, from: number, ownUs: number): DialectHead | null {
  const h = readNcclHead(from === 0 ? s : s.substring(from));
  if (h === null) return null;
  return {
    how: { dialect: "nccl", level: levelOfWord(h.level), msgStart: from + h.msgStart },
    matchers: ENGINE_MESSAGES,
    ownUs,
    attrs: { ncclLevel: h.level, ncclHost: h.ncclHost, cudaDev: h.cudaDev },
    unreadKind: h.level !== "INFO" && h.level !== "TRACE" ? LogKind.ncclWarning : undefined,
  };
}

const nccl: HeadReader = (s) => ncclHeadAt(s, 0, -1);

const nvshmem: HeadReader = (s) => {
  const h = readNvshmemHead(s);
  return h === null ? null : { how: { dialect: "nvshmem", level: h.level, msgStart: h.msgStart, source: h.source }, matchers: ENGINE_MESSAGES, ownUs: -1 };
};

const pythonWarning: HeadReader = (s) => {
  const h = readPythonWarningHead(s);
  return h === null ? null : { how: { dialect: "python-warning", level: "warning", msgStart: h.msgStart, source: h.source }, matchers: ANY_MESSAGES, ownUs: -1 };
};

const slurm: HeadReader = (s, tz) => {
  const h = s.charCodeAt(0) === 115 /* s */ ? readSlurmHead(s) : null;
  return h === null ? null : { how: { dialect: "slurm", level: levelOfWord(h.level), msgStart: h.msgStart }, matchers: SLURM_MESSAGES, ownUs: slurmStatedUs(s, h.msgStart, tz) };
};

const cudaTool: HeadReader = (s) => {
  const c0 = s.charCodeAt(0);
  // The first letter of nvcc, nvlink, nvdisasm; ptxas; fatbinary; cicc, cudafe++, cuobjdump.
  const h = c0 === 110 || c0 === 112 || c0 === 102 || c0 === 99 ? readCudaToolHead(s) : null;
  return h === null ? null : { how: { dialect: "cuda-tool", level: levelOfWord(h.level), msgStart: h.msgStart, source: h.tool }, matchers: ENGINE_MESSAGES, ownUs: -1 };
};

/** llama.cpp's common log (./llamaCppHead.ts): a time since the process started, which is no time of day, and its level letter. */
const llamaCpp: HeadReader = (s) => {
  const h = readLlamaCppHead(s);
  return h === null ? null : { how: { dialect: "llama.cpp", level: h.level, msgStart: h.msgStart }, matchers: ENGINE_MESSAGES, ownUs: -1 };
};

/** The HIP runtime's log (./hipHead.ts): a level number, the place, a clock that is no time of day. */
const hip: HeadReader = (s) => {
  const h = readHipHead(s);
  return h === null ? null : { how: { dialect: "hip", level: h.level, msgStart: h.msgStart, source: h.source }, matchers: ENGINE_MESSAGES, ownUs: -1 };
};

/** Heads that say so at their start: UCX (and its fatal-error lines), TensorRT-LLM, the kernel, 3FS, TensorFlow's and XLA's, ISO-dated, Ray's C++ daemons, cuFile, vLLM, NCCL, NVSHMEM's errors, Python warnings, Slurm's srun and slurmstepd, the CUDA toolkit's compilers, llama.cpp's common log, the HIP runtime's log. */
const SELF_NAMED: readonly HeadReader[] = [ucx, ucxUntimed, ucxFatal, trtllm, kernel, threeFs, tsl, iso, ray, cufile, vllm, nccl, nvshmem, pythonWarning, slurm, cudaTool, llamaCpp, hip];

export function readSelfNamedHead(line: string, tzOffsetMinutes: number): DialectHead | null {
  for (const read of SELF_NAMED) {
    const head = read(line, tzOffsetMinutes);
    if (head !== null) return head;
  }
  return null;
}

/** A line that opens with a capital and holds a colon somewhere: the least any head of {@link readLoggerWordHead} needs. */
export function mayOpenWithLoggerWord(line: string): boolean {
  const c0 = line.charCodeAt(0);
  return c0 >= 65 && c0 <= 90 && line.indexOf(":") >= 0;
}

/** Heads of a level word and a logger's name with no time: LMCache's without its time, Python logging's default. */
export function readLoggerWordHead(line: string): DialectHead | null {
  const lmcache = line.charCodeAt(0) === 76 /* L */ ? readLmcacheUntimedHead(line) : null;
  if (lmcache !== null) return { how: { dialect: "lmcache", level: levelOfWord(lmcache.level), msgStart: lmcache.msgStart }, matchers: ANY_MESSAGES, ownUs: -1, relogs: true };
  const py = readPythonLoggingHead(line);
  if (py === null) return null;
  return { how: { dialect: "python", level: levelOfWord(py.level), msgStart: py.msgStart, source: py.logger || undefined }, matchers: ANY_MESSAGES, ownUs: -1, relogs: true };
}

/** Adds a head's attributes and kind to the event its templates filled. */
export function settleHead(ev: ParsedEvent, head: DialectHead): void {
  if (head.unreadKind !== undefined && ev.kind === LogKind.unparsed) ev.kind = head.unreadKind;
  // A new object: a template's attributes may be shared.
  if (head.attrs !== undefined) ev.attrs = { ...ev.attrs, ...head.attrs };
}
