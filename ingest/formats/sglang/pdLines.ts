// Scheduler-side PD lines (sglang-pd-logs-and-protocol.md §3.1 common, §3.4
// decode/prefill/scheduler): request failures with their reason, the two
// warning_once timeout hints, metadata collisions, peer loss, aborts by queue.
// `{x=}` f-strings print rids as Python reprs (`req.rid='…'`) and rooms bare.

import type { ParsedEvent, Role } from "../../event.js";
import { LogKind } from "../../event.js";
import { decodeFailureReason } from "./failureReason.js";
import { execAt, reprString, type MatchResult } from "./match.js";

const RID = `(?:'([^']*)'|"([^"]*)"|None)`;

// §3.4: `Decode handshake|transfer failed for request rank=R decode_req.req.rid='…' decode_req.req.bootstrap_room=B`
// and `Prefill bootstrap|transfer failed for request rank=R req.rid='…' req.bootstrap_room=B`,
// each with an optional ` with exception {e}` (§3.5).
const FAILED = new RegExp(
  `(Decode|Prefill) (handshake|transfer|bootstrap) failed for request rank=(\\d+) (?:decode_req\\.)?req\\.rid=${RID} ` +
    `(?:decode_req\\.)?req\\.bootstrap_room=(\\d+|None)(?: with exception (.*))?$`,
  "ys",
);
const CORRUPTION =
  /Context corruption detected: Request (\S+) \(bootstrap_room=(\d+|None)\) received metadata from bootstrap_room=(\d+|None)\. Metadata buffer index: (-?\d+)\./ys;
const NOT_READY =
  /Metadata unexpectedly not ready after readiness gate: request ([^,]+), bootstrap_room=(\d+|None), metadata_buffer_index=(-?\d+)/ys;
const LOST = /Lost connection with prefill instance \(bootstrap_addr: ([^)]*)\), (\d+) requests affected/ys;
const ABORT = new RegExp(`Abort ([a-z ]+) request\\. (decode_req\\.)?req\\.rid=${RID}`, "ys");

const BOOTSTRAP_HINT = "Some requests timed out when bootstrapping";
const WAITING_HINT = "Some requests fail to receive KV Cache transfer done signal after bootstrapping";
const SCHEDULER_EXCEPTION = "Scheduler hit an exception: ";

/** Queues that exist on one side only (§3.4 `abort_request`). */
const QUEUE_ROLE: Record<string, Role> = {
  "bootstrap queue": "prefill",
  "inflight queue": "prefill",
  "prealloc queue": "decode",
  "transfer queue": "decode",
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
      return line.startsWith("Lost connection with prefill instance (", at) ? lost(line, at, ev) : false;
    case 65 /* A */:
      return line.startsWith("Abort ", at) ? abortRequest(line, at, ev) : false;
    case 83 /* S */:
      return someOrScheduler(line, at, ev);
    default:
      return false;
  }
}

function failed(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(FAILED, line, at);
  if (!m) return "request failure line";
  const side = m[1];
  ev.kind = FAILED_KIND[m[2]];
  ev.role = side === "Decode" ? "decode" : "prefill";
  ev.rid = reprString(m, 4);
  if (m[6] !== "None") ev.room = m[6];
  ev.state = 0; // KVPoll.Failed
  const attrs: Record<string, unknown> = { rank: Number(m[3]) };
  if (m[7] !== undefined) Object.assign(attrs, decodeFailureReason(m[7]));
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
  const m = execAt(LOST, line, at);
  if (!m) return "lost connection line";
  ev.kind = LogKind.nodeFailure;
  ev.role = "decode";
  ev.attrs = { bootstrapAddr: m[1], affected: Number(m[2]) };
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

function someOrScheduler(line: string, at: number, ev: ParsedEvent): MatchResult {
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
  if (line.startsWith(SCHEDULER_EXCEPTION, at)) {
    // The scheduler's last words: the traceback follows in the message itself.
    ev.kind = LogKind.exception;
    ev.attrs = { thread: "scheduler" };
    return true;
  }
  return false;
}
