// torch.distributed's collective watchdog (pytorch/pytorch
// torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp), printed through c10 /
// glog lines (`[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] …`,
// older `[E ProcessGroupNCCL.cpp:737] …`, glog `E0321 … file.cpp:607] …`,
// read by ../../sglang/torchLines.ts). The message opens with the watchdog's
// logPrefix, `[Rank 3] `, `[PG 1 Rank 3] `, `[PG 0 (default_pg) Rank 3] ` or
// `[PG ID 0 PG GUID 0(default_pg) Rank 3] ` by version, and the same text is
// quoted again inside `Process group watchdog thread terminated with
// exception: …`: the templates find their words anywhere in the message, and
// read WorkNCCL(...), whose fields came and went over time (no SeqNum,
// TensorShape=[..] instead of Numel*), field by field.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import type { LogTemplate, TemplateComponent } from "../template.js";

const SOURCE = "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp";
const TIMEOUT_HEAD = "Watchdog caught collective operation timeout: Work";
const DETECTED_WORDS = "detected by watchdog at work";
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

/** The templates' words may stand anywhere in the message: they are tried whatever its first character. */
const ANY_FIRST = String.fromCharCode(...Array.from({ length: 129 }, (_, i) => i));

function timeout(line: string, at: number, ev: ParsedEvent): boolean {
  const head = line.indexOf(TIMEOUT_HEAD, at);
  const work = WORK.exec(line.substring(head + TIMEOUT_HEAD.length));
  if (!work) return false;
  const before = line.substring(at, head);
  const rank = RANK_BEFORE.exec(before);
  const fields = work[2]!;
  const attrs: Record<string, unknown> = { backend: work[1]!.toLowerCase(), report: "timeout" };
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

function failureDetected(line: string, at: number, ev: ParsedEvent): boolean {
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

function pgOf(text: string): Record<string, string> {
  const id = PG_ID.exec(text);
  if (id) return id[3] !== undefined ? { pgId: id[1]!, pgUid: id[2]!, pgDesc: id[3] } : { pgId: id[1]!, pgUid: id[2]! };
  const name = PG_NAME.exec(text);
  if (name) return name[2] !== undefined ? { pgName: name[1]!, pgDesc: name[2] } : { pgName: name[1]! };
  return {};
}

function setNumber(attrs: Record<string, unknown>, key: string, m: RegExpExecArray | null): void {
  if (m) attrs[key] = Number(m[1]);
}

const templates: LogTemplate[] = [
  {
    id: "torchC10d.watchdog_timeout",
    level: "ERROR",
    format:
      "{logPrefix}Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)={ms}) ran for {ms} milliseconds before timing out.",
    source: `${SOURCE} WorkNCCL::checkTimeout; WorkNCCL(...)'s fields vary by release (no SeqNum in old ones, TensorShape=[..] instead of Numel* in some)`,
    checked: "◐ printed forms from users' logs",
    head: (line, at) => line.indexOf(TIMEOUT_HEAD, at) >= 0,
    firstChars: ANY_FIRST,
    pattern: /[\s\S]*?Watchdog caught collective operation timeout: Work(?<backend>\w+?)\((?<fields>.*?)\) ran for (?<elapsedMs>\d+) milliseconds before timing out/ys,
    kind: LogKind.watchdog,
    attrs: { backend: "nccl", report: "timeout" },
    read: timeout,
    samples: [
      "[rank2]:[E611 14:16:03.554164257 ProcessGroupNCCL.cpp:632] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48213, OpType=ALLREDUCE, NumelIn=14680064, NumelOut=14680064, Timeout(ms)=600000) ran for 600074 milliseconds before timing out.",
      "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.",
    ],
  },
  {
    id: "torchC10d.failure_detected",
    level: "ERROR",
    format:
      "{logPrefix}Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {n}, last completed NCCL work: {n}. (older) / {logPrefix}failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {n}, last completed work: {n}",
    source: `${SOURCE} the watchdog loop`,
    checked: "◐ printed forms from users' logs",
    head: (line, at) => line.indexOf(DETECTED_WORDS, at) >= 0 && line.indexOf(TIMEOUT_HEAD, at) < 0,
    firstChars: ANY_FIRST,
    pattern: /[\s\S]*?Rank (?<rank>\d+)\]\s+(?:Exception \(either an error or timeout\) detected by watchdog at work: \d+|failure detected by watchdog at work sequence id: \d+)/ys,
    kind: LogKind.watchdog,
    attrs: { backend: "nccl", report: "failure_detected" },
    read: failureDetected,
    samples: [
      "[rank2]:[E611 14:16:03.554164257 ProcessGroupNCCL.cpp:2168] [PG ID 0 PG GUID 0(default_pg) Rank 2] failure detected by watchdog at work sequence id: 48213 PG status: last enqueued work: 48213, last completed work: 48212",
      "[rank0]:[E820 10:30:02.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579.",
    ],
  },
];

export const TORCH_C10D: TemplateComponent = {
  name: "torchC10d",
  dialect: "engine",
  title: "torch c10d: the NCCL watchdog",
  intro:
    "`pytorch/pytorch`, c10 / glog lines. Event: `coll.watchdog` (`backend`, `report`, `rank`, the process group's `pgId`/`pgUid`/`pgDesc` or `pgName`/`pgDesc`, and WorkNCCL's `seq`, `op`, `numelIn`, `numelOut`, `timeoutMs`, `elapsedMs`, or the failure report's `seq`, `lastEnqueued`, `lastCompleted`). Gloo has no watchdog line: a timed-out gloo collective raises `Timed out waiting {ms}ms for recv|send operation to complete`, read from an exception's message (`glooTimeout`).",
  templates,
};
