// What SGLang's request tracing puts in a span's name and attributes
// (docs/telemetry.md "OpenTelemetry traces"). Three generations of
// python/sglang/srt/tracing/trace.py, then python/sglang/srt/observability/trace.py:
//
//   root      `Bootstrap Room 0x<room hex>`, attribute bootstrap_room = "0x<hex>"
//             (trace_req_start, the revision with SglangTraceReqContext.bootstrap_room_span);
//   request   `<role> Req <rid[:8]>` (role "prefill"/"decode", empty when unified),
//             attributes rid, module and, in the newest revision, bootstrap_room = "0x<hex>"
//             (SGLangTraceReqContext / TraceReqContext.trace_req_start); the oldest
//             revision names it `Req <rid[:8]>` with bootstrap_room as a decimal integer;
//   thread    `<label>[ [TP n] ](host:<machine-id[:8]> | pid:<pid>)`, attributes tp_rank,
//             host_id, pid, thread_label (__create_thread_context; labels such as
//             "Prefill Scheduler", "Decode Tokenizer");
//   slice     the stage's name (RequestStage in tracing/trace_metric_wrapper.py, later
//             observability/req_time_stats.py: prefill_bootstrap, decode_waiting, …), no
//             room, rid or rank of its own: its parent is its thread span (or an
//             enclosing slice), its trace id the request's.
//
// Trace and span ids are 64-bit random numbers (SGLangTraceCustomIdGenerator):
// the trace id carries no room. A slice is tied to its room only through a
// span of its trace that names the room (./spanTree.ts).

import type { Role } from "../../../domain/vocabulary.js";

const ROOT_SPAN = /^Bootstrap Room (0x[0-9a-fA-F]+|\d+)$/;
const REQ_SPAN = /^\s*(?:([A-Za-z]+) )?Req \S+$/;
const THREAD_SPAN = /^(.*?)\s*(?:\[TP (\d+)\]\s*)?\(host:([^|)]*?) \| pid:(\d+)\)$/;
/** A stage slice's name: snake_case, as every RequestStage name is. */
const STAGE_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** A room from `0x<hex>`, a decimal string or a safe integer, as its exact decimal string; 0 and "None" are no room. */
export function roomFromTraceValue(v: unknown): string | undefined {
  let room: bigint | undefined;
  if (typeof v === "string" && /^0x[0-9a-fA-F]{1,16}$/.test(v)) room = BigInt(v);
  else if (typeof v === "string" && /^\d{1,20}$/.test(v)) room = BigInt(v);
  else if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) room = BigInt(v);
  return room !== undefined && room > 0n ? room.toString() : undefined;
}

function roleWord(word: string | undefined): Role | undefined {
  const w = word?.toLowerCase();
  return w === "prefill" || w === "decode" ? w : undefined;
}

/** A thread span's facts, from its name (and tp_rank/host_id/thread_label attributes where it has them). */
export interface ThreadFacts {
  name: string;
  label: string;
  tp?: number;
  hostId: string;
}

/** What one span says of itself, before its ancestors are consulted. */
export interface OwnFacts {
  room?: string;
  rid?: string;
  role?: Role;
  thread?: ThreadFacts;
  stage?: string;
}

export function ownFacts(name: string, attrs: Record<string, unknown>): OwnFacts {
  const facts: OwnFacts = {};
  const room = roomFromTraceValue(attrs.bootstrap_room) ?? roomFromTraceValue(ROOT_SPAN.exec(name)?.[1]);
  if (room !== undefined) facts.room = room;
  const req = REQ_SPAN.exec(name);
  if (req) {
    const role = roleWord(req[1]);
    if (role) facts.role = role;
    // Both rid forms are set on the span (the MultiTokenizer-prefixed one last): the original is after the last "_".
    if (typeof attrs.rid === "string" && attrs.rid !== "") facts.rid = attrs.rid.split("_").pop()!;
    return facts;
  }
  const thread = THREAD_SPAN.exec(name);
  if (thread) {
    const label = typeof attrs.thread_label === "string" ? attrs.thread_label : thread[1]!.trim();
    const tp = typeof attrs.tp_rank === "number" ? attrs.tp_rank : thread[2] !== undefined ? Number(thread[2]) : undefined;
    facts.thread = { name, label, hostId: typeof attrs.host_id === "string" ? attrs.host_id : thread[3]!.trim(), ...(tp !== undefined ? { tp } : {}) };
    const role = roleWord(label.split(" ")[0]);
    if (role) facts.role = role;
    return facts;
  }
  if (room === undefined && STAGE_NAME.test(name)) {
    facts.stage = name;
    const role = roleWord(name.split("_")[0]);
    if (role) facts.role = role;
  }
  return facts;
}
