// Scheduler-side PD lines (docs/log-templates.md "SGLang: request failures",
// "node failure and timeouts"; docs/protocol.md §3.1, §3.4):
// request failures with their reason, the two warning_once timeout hints,
// metadata collisions, peer loss, per-room timeouts, aborts by queue.
// `{x=}` f-strings print rids as Python reprs (`req.rid='…'`) and rooms bare.

import type { ParsedEvent } from "../../../domain/event.js";
import type { Role } from "../../../domain/vocabulary.js";
import { LogKind } from "../../../domain/kinds.js";
import { classifyFailure, type FailureClass } from "../messages/failureClass.js";
import { decodeFailureReason, type ReasonKind } from "./failureReason.js";
import { execAt, reprString, type MatchResult } from "./match.js";

const RID = `(?:'([^']*)'|"([^"]*)"|None)`;
const HOLDER = `(?:(?:decode_req|prefill_req)\\.)?`;

// decode.py / prefill.py: `{Side} {what} failed for request rank={tp}` then, by era,
//   ` {decode_req.req.rid=} {decode_req.req.bootstrap_room=}` (decode; `prefill_req.` in early decode.py),
//   ` {req.rid=} {req.bootstrap_room=}` (prefill), optionally ` {self.pp_rank=}`,
//   or ` rid={rid} bootstrap_room={room}` with `: {detail}`; then an optional ` with exception {e}`.
const FAILED = new RegExp(
  `(Decode|Prefill) (handshake|transfer|bootstrap) failed for request rank=(\\d+) ` +
    `(?:${HOLDER}req\\.rid=${RID}(?: ${HOLDER}req\\.bootstrap_room=(\\d+|None))?(?: self\\.pp_rank=(\\d+))?` +
    `|rid=(\\S+) bootstrap_room=(\\d+|None)(?:: (.*?))?)` +
    `(?: with exception (.*))?$`,
  "ys",
);
const CORRUPTION =
  /Context corruption detected: Request (\S+) \(bootstrap_room=(\d+|None)\) received metadata from bootstrap_room=(\d+|None)\. Metadata buffer index: (-?\d+)\./ys;
const NOT_READY =
  /Metadata unexpectedly not ready after readiness gate: request ([^,]+), bootstrap_room=(\d+|None), metadata_buffer_index=(-?\d+)/ys;
// common/conn.py `_handle_node_failure` counts `requests`; NIXL's override counts `transfers`; older
// mooncake/conn.py says `Losing connection …`.
const LOST = /Los(?:t|ing) connection with prefill instance \(bootstrap_addr: ([^)]*)\), (\d+) (requests|transfers) affected/ys;
// nixl/conn.py `_handle_node_failure`, once per affected room.
const LET_FAIL = /Let room (\d+) be failed due to prefill down/ys;
// nixl/conn.py NixlKVReceiver.poll.
const WAITING_TIMEOUT = /Request (\d+) waiting_timeout$/ys;
const NODE_FAILURE_ROOM = /Transfer for room (\d+) failed due to node failure/ys;
const ABORT = new RegExp(`Abort ([a-z ]+) request\\. (decode_req\\.)?req\\.rid=${RID}`, "ys");

const BOOTSTRAP_HINT = "Some requests timed out when bootstrapping";
const WAITING_HINT = "Some requests fail to receive KV Cache transfer done signal after bootstrapping";

/** Queues that exist on one side only (§3.4 `abort_request`). */
const QUEUE_ROLE: Record<string, Role> = {
  "bootstrap queue": "prefill",
  "inflight queue": "prefill",
  "prealloc queue": "decode",
  "transfer queue": "decode",
};

/** Reason kinds whose failure class is known without reading the text again (docs/log-templates.md "Failure reasons"). */
const REASON_CLASS: Partial<Record<ReasonKind, FailureClass>> = {
  timeout: "timeout",
  peer_loss: "transport",
  mooncake_transfer: "transport",
  nixl_error: "transport",
  abort: "other",
  propagated: "other",
};

const FAILED_KIND: Record<string, string> = {
  handshake: LogKind.handshakeFailed,
  transfer: LogKind.transferFailed,
  bootstrap: LogKind.bootstrapFailed,
};

export function parsePdLine(line: string, at: number, ev: ParsedEvent): MatchResult {
  switch (line.charCodeAt(at)) {
    case 68 /* D */:
      return line.startsWith("Decode handshake failed", at) || line.startsWith("Decode transfer failed", at)
        ? failed(line, at, ev)
        : false;
    case 80 /* P */:
      return line.startsWith("Prefill bootstrap failed", at) || line.startsWith("Prefill transfer failed", at)
        ? failed(line, at, ev)
        : false;
    case 67 /* C */:
      return line.startsWith("Context corruption detected:", at) ? corruption(line, at, ev) : false;
    case 77 /* M */:
      return line.startsWith("Metadata unexpectedly not ready", at) ? notReady(line, at, ev) : false;
    case 76 /* L */:
      return lost(line, at, ev);
    case 82 /* R */:
      return line.startsWith("Request ", at) ? waitingTimeout(line, at, ev) : false;
    case 84 /* T */:
      return line.startsWith("Transfer for room ", at) ? nodeFailureRoom(line, at, ev) : false;
    case 65 /* A */:
      return line.startsWith("Abort ", at) ? abortRequest(line, at, ev) : false;
    case 83 /* S */:
      return timeoutHint(line, at, ev);
    default:
      return false;
  }
}

function failed(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(FAILED, line, at);
  if (!m) return "request failure line";
  ev.kind = FAILED_KIND[m[2]];
  ev.role = m[1] === "Decode" ? "decode" : "prefill";
  const room = m[6] ?? m[9];
  if (m[4] !== undefined || m[5] !== undefined) ev.rid = reprString(m, 4);
  else if (m[8] !== undefined && m[8] !== "None") ev.rid = m[8];
  if (room !== undefined && room !== "None") ev.room = room;
  ev.state = 0; // KVPoll.Failed
  const attrs: Record<string, unknown> = { rank: Number(m[3]) };
  if (m[7] !== undefined) attrs.pp = Number(m[7]);
  if (m[10] !== undefined) attrs.detail = m[10];
  const exception = m[11];
  if (exception !== undefined) {
    const reason = decodeFailureReason(exception);
    Object.assign(attrs, reason);
    attrs.failureClass = REASON_CLASS[reason.reasonKind] ?? classifyFailure(undefined, exception);
  }
  ev.attrs = attrs;
  return true;
}

function corruption(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(CORRUPTION, line, at);
  if (!m) return "context corruption line";
  ev.kind = LogKind.contextCorruption;
  ev.role = "decode";
  ev.rid = m[1];
  if (m[2] !== "None") ev.room = m[2];
  ev.attrs = { actualRoom: m[3], metadataBufferIndex: Number(m[4]) };
  return true;
}

function notReady(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(NOT_READY, line, at);
  if (!m) return "metadata not ready line";
  ev.kind = LogKind.metadataNotReady;
  ev.role = "decode";
  ev.rid = m[1];
  if (m[2] !== "None") ev.room = m[2];
  ev.attrs = { metadataBufferIndex: Number(m[3]) };
  return true;
}

function lost(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.startsWith("Let room ", at)) {
    const m = execAt(LET_FAIL, line, at);
    if (!m) return "room failed by node failure line";
    return roomNodeFailure(ev, m[1], "prefill_down");
  }
  if (!line.startsWith("Lost connection with prefill instance (", at) && !line.startsWith("Losing connection with prefill instance (", at)) {
    return false;
  }
  const m = execAt(LOST, line, at);
  if (!m) return "lost connection line";
  ev.kind = LogKind.nodeFailure;
  ev.role = "decode";
  ev.attrs = { bootstrapAddr: m[1], affected: Number(m[2]), failureClass: "transport" };
  return true;
}

function nodeFailureRoom(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(NODE_FAILURE_ROOM, line, at);
  if (!m) return "transfer node failure line";
  return roomNodeFailure(ev, m[1], "transfer_failed");
}

/** One room failed because its prefill peer is gone (NIXL decode, after the heartbeat declared it dead). */
function roomNodeFailure(ev: ParsedEvent, room: string, cause: string): true {
  ev.kind = LogKind.nodeFailure;
  ev.role = "decode";
  ev.room = room;
  ev.state = 0;
  ev.attrs = { cause, failureClass: "transport" };
  return true;
}

function waitingTimeout(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(WAITING_TIMEOUT, line, at);
  if (!m) return false; // "Request …" opens other messages (capacity, …)
  ev.kind = LogKind.roomTimeout;
  ev.role = "decode";
  ev.room = m[1];
  ev.state = 0;
  ev.attrs = { timeoutState: "WaitingForInput", failureClass: "timeout" };
  return true;
}

function abortRequest(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(ABORT, line, at);
  if (!m) return false; // "Abort" opens many unrelated messages
  ev.kind = LogKind.abortRequest;
  const queue = m[1];
  const role = m[2] !== undefined ? "decode" : QUEUE_ROLE[queue];
  if (role !== undefined) ev.role = role;
  ev.rid = reprString(m, 3);
  ev.attrs = { queue };
  return true;
}

function timeoutHint(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.startsWith(BOOTSTRAP_HINT, at)) {
    // §3.1 `_check_bootstrap_timeout`: the prefill sender's Bootstrapping limit.
    ev.kind = LogKind.timeoutWarning;
    ev.role = "prefill";
    ev.attrs = { phase: "bootstrap", timeoutState: "Bootstrapping" };
    return true;
  }
  if (line.startsWith(WAITING_HINT, at)) {
    // §3.1 `_check_waiting_timeout`: the decode receiver's WaitingForInput limit.
    ev.kind = LogKind.timeoutWarning;
    ev.role = "decode";
    ev.attrs = { phase: "waiting", timeoutState: "WaitingForInput" };
    return true;
  }
  return false;
}
