// NIXL / Mooncake connector lines (docs/log-templates.md "SGLang: transfer and
// bootstrap thread"; docs/protocol.md §3.1–§3.3, §7.4):
// notifications sent, the bootstrap thread's frames, abort notifications and
// their acks, transport errors, the Mooncake engine wrapper's failed
// transfers. Most are debug level, so a run shows them only with
// --log-level debug.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { execAt, reprString, type MatchResult } from "./match.js";
import { readBootstrapped, readGotInfo, readKvNotifSent } from "./hotTransferLines.js";
import { parseNotifTag } from "../../../domain/notifTag.js";
import { putNotifTag } from "../notifFields.js";

const WITH_NOTIF = " with notif ";
const SENDING = "sending kvcache to ";
const GOT_INFO_HEAD = "got info ";

const GOT_INFO = /got info room=(\d+) agent_name=(?:'([^']*)'|"([^"]*)") required_dst_info_num=(\d+)/ys;
const BOOTSTRAPPED = /room=(\d+) is bootstrapped/ys;
const REGISTER = /Register KVArgs from (.+) successfully/ys;
const ABORT_RECEIVED =
  /Received abort notification for room (\d+), (?:(marked as Failed)(; ACK deferred until transfer drains)?|(ignoring) \(already completed or unknown\))/ys;
const ACK_RECEIVED = /Received ABORT_ACK for room (\d+)/ys;
const AUX_RECEIVED = /Received AUX_DATA for bootstrap_room (\d+) with length: ?(\d+)/ys;
const ABORT_SENT = /Sent abort notification for room (\d+) to (\S+)/ys;
const ACK_SENT = /Sent ABORT_ACK for room (\d+) to (\S+)/ys;
const SESSION_FAILED = /Session (\S+) failed\./ys;
// mooncake/conn.py and nixl/conn.py transfer_worker: "because it has already failed or been aborted";
// NIXL with the deferred-release drain also "because it has been cleared" (the room is gone, not failed).
const SKIPPING = /Skipping chunk for room (\d+) because it has (already failed or been aborted|been cleared)/ys;
const SENDING_METADATA = /Sending to prefill server with bootstrap room (\d+) is_dummy=(True|False)/ys;
const SEND_FAILED = /Failed to send (abort notification|ABORT_ACK|drained ABORT_ACK) for room (\d+): (.*)$/ys;
const MALFORMED_ABORT = /Ignoring malformed abort notification: (.*)$/ys;
const AUX_MISMATCH = /AUX_DATA length mismatch for bootstrap_room (\d+)/ys;
const TRANSPORT_ERROR = /NIXL transport error for room (\d+): (.*)$/ys;
const KV_MANAGER = /NIXL KVManager initialized with backend: (\S+)/ys;
const WORKER_ERROR = /Unexpected transfer worker error for room (\d+)/ys;
const DEFERRED_TIMEOUT = /Deferred KV release for room (\d+) timed out after ([0-9.]+)s/ys;
const DEFERRED_FAILED = /Deferred KV release failed for room (\d+)/ys;
// distributed/device_communicators/mooncake_transfer_engine.py transfer_sync / batch_transfer_sync (debug).
const SYNC_FAILED = /Failed to transfer data from (\S+) to (\S+) - (\S+?)\.$/ys;
const BATCH_FAILED = /Failed to batch transfer data\. Buffers: (.*), Session: (\S+), Peer addresses: (.*)$/ys;

export function parseTransferLine(line: string, at: number, ev: ParsedEvent): MatchResult {
  switch (line.charCodeAt(at)) {
    case 115 /* s */:
      return line.startsWith(SENDING, at) ? notifSent(line, at, ev) : false;
    case 103 /* g */:
      return line.startsWith(GOT_INFO_HEAD, at) ? gotInfo(line, at, ev) : false;
    case 114 /* r */:
      return line.startsWith("room=", at) ? bootstrapped(line, at, ev) : false;
    case 82 /* R */:
      return received(line, at, ev);
    case 83 /* S */:
      return sent(line, at, ev);
    case 70 /* F */:
      if (line.startsWith("Failed to send ", at)) return sendFailed(line, at, ev);
      return line.startsWith("Failed to ", at) ? engineCallFailed(line, at, ev) : false;
    case 73 /* I */:
      return line.startsWith("Ignoring malformed abort notification", at) ? malformedAbort(line, at, ev) : false;
    case 65 /* A */:
      return line.startsWith("AUX_DATA length mismatch", at) ? auxMismatch(line, at, ev) : false;
    case 78 /* N */:
      return nixl(line, at, ev);
    case 85 /* U */:
      return line.startsWith("Unexpected transfer worker error", at) ? workerError(line, at, ev) : false;
    case 68 /* D */:
      return line.startsWith("Deferred KV release ", at) ? deferredRelease(line, at, ev) : false;
    default:
      return false;
  }
}

/** `sending kvcache to {peer_name} with notif {notif}` (§3.2), the notif decoded per §6. */
function notifSent(line: string, at: number, ev: ParsedEvent): MatchResult {
  const sep = line.lastIndexOf(WITH_NOTIF);
  const peerStart = at + SENDING.length;
  if (sep <= peerStart) return "sending kvcache line";
  if (readKvNotifSent(line, peerStart, sep, sep + WITH_NOTIF.length, ev)) return true;
  const tagText = line.substring(sep + WITH_NOTIF.length);
  const tag = parseNotifTag(tagText);
  if (tag === null) return "notif tag";
  ev.kind = LogKind.notifSent;
  ev.role = "prefill";
  const attrs: Record<string, unknown> = { peer: line.substring(peerStart, sep), tag: tagText };
  putNotifTag(ev, tag, attrs);
  ev.attrs = attrs;
  return true;
}

function gotInfo(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (readGotInfo(line, at + GOT_INFO_HEAD.length, ev)) return true;
  const m = execAt(GOT_INFO, line, at);
  if (!m) return "got info line";
  ev.kind = LogKind.gotInfo;
  ev.role = "prefill";
  ev.room = m[1];
  ev.attrs = { agentName: reprString(m, 2), requiredDstInfoNum: Number(m[4]) };
  return true;
}

function bootstrapped(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (readBootstrapped(line, at, ev)) return true;
  const m = execAt(BOOTSTRAPPED, line, at);
  if (!m) return false;
  ev.kind = LogKind.bootstrapped;
  ev.role = "prefill";
  ev.room = m[1];
  // [inference] Logged where the room has all its destinations, when the
  // bootstrap thread moves it Bootstrapping -> WaitingForInput (§5.1).
  ev.state = 2;
  return true;
}

function received(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.startsWith("Register KVArgs from ", at)) {
    const m = execAt(REGISTER, line, at);
    if (!m) return "register KVArgs line";
    ev.kind = LogKind.registerKvArgs;
    ev.role = "prefill";
    ev.attrs = { peer: m[1] };
    return true;
  }
  if (line.startsWith("Received abort notification", at)) return abortReceived(line, at, ev);
  if (line.startsWith("Received ABORT_ACK", at)) {
    const m = execAt(ACK_RECEIVED, line, at);
    if (!m) return "ABORT_ACK received line";
    ev.kind = LogKind.abortAckReceived;
    ev.role = "decode";
    ev.room = m[1];
    return true;
  }
  if (line.startsWith("Received AUX_DATA", at)) {
    const m = execAt(AUX_RECEIVED, line, at);
    if (!m) return "AUX_DATA received line";
    ev.kind = LogKind.auxReceived;
    ev.role = "decode";
    ev.room = m[1];
    ev.attrs = { length: Number(m[2]) };
    return true;
  }
  return false;
}

/** §3.2 `_handle_abort_notification`, and §7.4's deferred-ack variant. */
function abortReceived(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(ABORT_RECEIVED, line, at);
  if (!m) return "abort notification line";
  ev.kind = LogKind.abortReceived;
  ev.role = "prefill";
  ev.room = m[1];
  if (m[2] !== undefined) {
    ev.state = 0; // marked KVPoll.Failed
    ev.attrs = { outcome: m[3] !== undefined ? "ack_deferred" : "marked_failed" };
  } else {
    ev.attrs = { outcome: "ignored" };
  }
  return true;
}

function sent(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.startsWith("Sent abort notification", at)) {
    const m = execAt(ABORT_SENT, line, at);
    if (!m) return "abort notification sent line";
    ev.kind = LogKind.abortSent;
    ev.role = "decode";
    ev.room = m[1];
    ev.attrs = { to: m[2] };
    return true;
  }
  if (line.startsWith("Sent ABORT_ACK", at)) {
    const m = execAt(ACK_SENT, line, at);
    if (!m) return "ABORT_ACK sent line";
    ev.kind = LogKind.abortAckSent;
    ev.role = "prefill";
    ev.room = m[1];
    ev.attrs = { to: m[2] };
    return true;
  }
  if (line.startsWith("Session ", at)) {
    const m = execAt(SESSION_FAILED, line, at);
    if (!m) return false;
    ev.kind = LogKind.transportError;
    ev.role = "prefill";
    ev.attrs = { errorKind: "mooncake_session", session: m[1], failureClass: "transport" };
    return true;
  }
  if (line.startsWith("Skipping chunk for room", at)) {
    const m = execAt(SKIPPING, line, at);
    if (!m) return "skipping chunk line";
    ev.kind = LogKind.skipChunk;
    ev.role = "prefill";
    ev.room = m[1];
    if (m[2] === "been cleared") {
      ev.attrs = { because: "cleared" };
    } else {
      ev.state = 0; // "already failed or been aborted"
    }
    return true;
  }
  if (line.startsWith("Sending to prefill server with bootstrap room", at)) {
    const m = execAt(SENDING_METADATA, line, at);
    if (!m) return "sending metadata line";
    ev.kind = LogKind.metadataSent;
    ev.role = "decode";
    ev.room = m[1];
    ev.attrs = { isDummy: m[2] === "True" };
    return true;
  }
  return false;
}

function sendFailed(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(SEND_FAILED, line, at);
  if (!m) return false; // "Failed to send" opens other messages too
  const isAck = m[1] !== "abort notification";
  ev.kind = isAck ? LogKind.abortAckSent : LogKind.abortSent;
  ev.role = isAck ? "prefill" : "decode";
  ev.room = m[2];
  ev.attrs = isAck && m[1] === "drained ABORT_ACK" ? { failed: true, drained: true, error: m[3] } : { failed: true, error: m[3] };
  return true;
}

/** The Mooncake engine wrapper's rc < 0: the session is the peer `host:rpc_port` (it is then blacklisted, `Session … failed.`). */
function engineCallFailed(line: string, at: number, ev: ParsedEvent): MatchResult {
  const one = execAt(SYNC_FAILED, line, at);
  if (one) {
    ev.kind = LogKind.transportError;
    ev.attrs = { errorKind: "mooncake_transfer_sync", session: one[2], buffer: one[1], peerAddr: one[3], failureClass: "transport" };
    return true;
  }
  const batch = execAt(BATCH_FAILED, line, at);
  if (!batch) return false;
  ev.kind = LogKind.transportError;
  ev.attrs = { errorKind: "mooncake_batch_transfer", session: batch[2], failureClass: "transport" };
  return true;
}

function malformedAbort(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(MALFORMED_ABORT, line, at);
  if (!m) return "malformed abort line";
  ev.kind = LogKind.abortReceived;
  ev.role = "prefill";
  ev.attrs = { outcome: "malformed", error: m[1] };
  return true;
}

function auxMismatch(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(AUX_MISMATCH, line, at);
  if (!m) return "AUX_DATA mismatch line";
  ev.kind = LogKind.transportError;
  ev.role = "decode";
  ev.room = m[1];
  ev.attrs = { errorKind: "aux_length_mismatch", failureClass: "transport" };
  return true;
}

function nixl(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.startsWith("NIXL transport error", at)) {
    const m = execAt(TRANSPORT_ERROR, line, at);
    if (!m) return "NIXL transport error line";
    ev.kind = LogKind.transportError;
    ev.role = "prefill";
    ev.room = m[1];
    ev.state = 0; // the worker records the failure (§6 worker loop step 5)
    ev.attrs = { errorKind: "nixl_transport", error: m[2], failureClass: "transport" };
    return true;
  }
  if (line.startsWith("NIXL KVManager initialized", at)) {
    const m = execAt(KV_MANAGER, line, at);
    if (!m) return "NIXL KVManager line";
    ev.kind = LogKind.config;
    ev.attrs = { backend: "nixl", nixlBackend: m[1] };
    return true;
  }
  return false;
}

/** `logger.exception`: the traceback that follows is attached by the record assembler. */
function workerError(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(WORKER_ERROR, line, at);
  if (!m) return "transfer worker error line";
  ev.kind = LogKind.transportError;
  ev.role = "prefill";
  ev.room = m[1];
  ev.state = 0;
  ev.attrs = { errorKind: "worker" };
  return true;
}

/** §7.4 (main after v0.5.18): decode gave up waiting for prefill's drain ack. */
function deferredRelease(line: string, at: number, ev: ParsedEvent): MatchResult {
  const timedOut = execAt(DEFERRED_TIMEOUT, line, at);
  if (timedOut) {
    ev.kind = LogKind.deferredRelease;
    ev.role = "decode";
    ev.room = timedOut[1];
    ev.attrs = { outcome: "timed_out", timeoutS: Number(timedOut[2]), failureClass: "timeout" };
    return true;
  }
  const failed = execAt(DEFERRED_FAILED, line, at);
  if (!failed) return "deferred KV release line";
  ev.kind = LogKind.deferredRelease;
  ev.role = "decode";
  ev.room = failed[1];
  ev.attrs = { outcome: "failed" };
  return true;
}
