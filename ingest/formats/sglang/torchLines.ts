// PyTorch distributed lines that land in a server's stderr between SGLang's
// own: c10 / glog lines (`[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] ...`,
// older `[E ProcessGroupNCCL.cpp:737] ...`, glog `E0321 02:07:08.408271 1234 file.cpp:607] ...`)
// and the collective watchdog's messages. Wording, as printed by ProcessGroupNCCL:
//   {logPrefix}Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE,
//     NumelIn=.., NumelOut=.., Timeout(ms)=600000) ran for 600020 milliseconds before timing out.
// where logPrefix is `[Rank 3] `, `[PG 1 Rank 3] `, `[PG 0 (default_pg) Rank 3] ` or
// `[PG ID 0 PG GUID 0(default_pg) Rank 3] ` by version, and WorkNCCL(...) has
// lost or gained fields over time (no SeqNum, TensorShape=[..] instead of Numel*).
// Gloo has no watchdog line: a timed-out gloo collective raises
// `Timed out waiting {ms}ms for recv|send operation to complete`, read from an
// exception's message instead.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";

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
  msgStart: number;
}

const BRACKETED = /^(?:\[rank(\d+)\]:)?\[([IWEF])(?:(\d{3,4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9}))? ?(?:\d+ )?[\w.]+:\d+\] /;
const GLOG = /^([IWEF])(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{1,9}) +\d+ [\w.]+:\d+\] /;

const TIMEOUT_HEAD = "Watchdog caught collective operation timeout: Work";
const RANK_BEFORE = /Rank (\d+)\] *$/;
const PG_ID = /\[PG ID (\d+) PG GUID ([^\s(\]]+)(?:\(([^)]*)\))? Rank/;
const PG_NAME = /\[PG (\S+)(?: \(([^)]*)\))? Rank/;
const WORK = /^(\w+?)\((.*?)\) ran for (\d+) milliseconds before timing out/;
const SEQ = /SeqNum=(\d+)/;
const OP = /OpType=(\w+)/;
const NUMEL_IN = /NumelIn=(\d+)/;
const NUMEL_OUT = /NumelOut=(\d+)/;
const TIMEOUT_MS = /Timeout\(ms\)=(\d+)/;
const DETECTED =
  /Rank (\d+)\]\s+(?:Exception \(either an error or timeout\) detected by watchdog at work: (\d+), last enqueued NCCL work: (\d+), last completed NCCL work: (\d+)|failure detected by watchdog at work sequence id: (\d+) PG status: last enqueued work: (\d+), last completed work: (\d+))/;
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
  return isLevel(c0) && line.charCodeAt(5) === 32 && isDigit(line.charCodeAt(1));
}

export function readTorchLine(line: string): TorchLine | null {
  const m = BRACKETED.exec(line);
  if (m) {
    const out: TorchLine = { level: m[2], msgStart: m[0].length };
    if (m[1] !== undefined) out.globalRank = Number(m[1]);
    if (m[3] !== undefined) out.stamp = stamp(m[3], m[4], m[5], m[6], m[7]);
    return out;
  }
  const g = GLOG.exec(line);
  if (!g) return null;
  return { level: g[1], msgStart: g[0].length, stamp: stamp(g[2], g[3], g[4], g[5], g[6]) };
}

/** Fills a `coll.watchdog` event from a watchdog message at `at`; false when it is none. */
export function parseWatchdog(line: string, at: number, ev: ParsedEvent): boolean {
  const head = line.indexOf(TIMEOUT_HEAD, at);
  if (head >= 0) return timeout(line, at, head, ev);
  const detected = DETECTED.exec(line.substring(at));
  if (!detected) return false;
  const off = detected[2] === undefined ? 3 : 0;
  ev.kind = LogKind.watchdog;
  ev.attrs = {
    backend: "nccl",
    report: "failure_detected",
    rank: Number(detected[1]),
    seq: Number(detected[2 + off]),
    lastEnqueued: Number(detected[3 + off]),
    lastCompleted: Number(detected[4 + off]),
    ...pgOf(line.substring(at, at + 200)),
  };
  return true;
}

function timeout(line: string, at: number, head: number, ev: ParsedEvent): boolean {
  const work = WORK.exec(line.substring(head + TIMEOUT_HEAD.length));
  if (!work) return false;
  const before = line.substring(at, head);
  const rank = RANK_BEFORE.exec(before);
  const fields = work[2];
  const attrs: Record<string, unknown> = { backend: work[1].toLowerCase(), report: "timeout" };
  if (rank) attrs.rank = Number(rank[1]);
  Object.assign(attrs, pgOf(before));
  setNumber(attrs, "seq", SEQ.exec(fields));
  const op = OP.exec(fields);
  if (op) attrs.op = op[1];
  setNumber(attrs, "numelIn", NUMEL_IN.exec(fields));
  setNumber(attrs, "numelOut", NUMEL_OUT.exec(fields));
  setNumber(attrs, "timeoutMs", TIMEOUT_MS.exec(fields));
  attrs.elapsedMs = Number(work[3]);
  ev.kind = LogKind.watchdog;
  ev.attrs = attrs;
  return true;
}

/** The gloo form, read from an exception message: `{timeoutMs, op}` or null. */
export function glooTimeout(message: string): { timeoutMs: number; op: string } | null {
  const m = GLOO_TIMEOUT.exec(message);
  return m ? { timeoutMs: Number(m[1]), op: m[2] } : null;
}

function pgOf(text: string): Record<string, string> {
  const id = PG_ID.exec(text);
  if (id) return id[3] !== undefined ? { pgId: id[1], pgUid: id[2], pgDesc: id[3] } : { pgId: id[1], pgUid: id[2] };
  const name = PG_NAME.exec(text);
  if (name) return name[2] !== undefined ? { pgName: name[1], pgDesc: name[2] } : { pgName: name[1] };
  return {};
}

function setNumber(attrs: Record<string, unknown>, key: string, m: RegExpExecArray | null): void {
  if (m) attrs[key] = Number(m[1]);
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
