// Stalls: the PD failure lines, decode's waiting timeout and prefill's
// bootstrap timeout, and the cause the model assigns a room that never
// completed (docs/protocol.md §3.4–§3.5, §5.1–§5.2, §7.1).

import { type EventPlace } from "./api.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { deliverAbortFromDecode } from "./abortPath.js";
import { drainsBeforeTimeoutFor } from "./profile.js";
import { DECODE, PREFILL } from "./ranks.js";
import type { DecodeReceiver } from "./receiver.js";
import { FLAG, type RoomRec } from "./rooms.js";
import type { PrefillSender } from "./sender.js";
import type { ModelState } from "./state.js";
import { LogKind } from "../../domain/kinds.js";
import type { EventOf } from "../../domain/domainEvent.js";

/**
 * The PD failure lines (§3.4, reasons §3.5), as analyzer/events decodes them:
 * the side that logged it, the reason and its kind (timeout, abort,
 * propagated, ...), and for a timeout the KVPoll state it fired in.
 */
export function onFailureLine(s: ModelState, ev: EventOf<"pd.handshake_failed" | "pd.transfer_failed" | "pd.bootstrap_failed">): void {
  if (ev.room === undefined) return;
  const reason = ev.reason ?? ev.reasonKind ?? "failed";
  const r = s.room(ev.room, ev);
  if (!ev.timedOut) s.count("transfer-stall");
  if (ev.side === "prefill") {
    const sender = s.sender(r, s.rankOf(ev, PREFILL), ev);
    if (ev.timedOut && ev.timeoutPoll === KVPoll.Bootstrapping) prefillTimedOut(s, r, sender, ev, "log");
    else sender.set(s.profile.backend, KVPoll.Failed, ev.seq, reason);
    return;
  }
  const d = s.receiver(r, s.rankOf(ev, DECODE), ev);
  // "Decode transfer failed" comes from the transfer queue: the request had
  // been initialised and had sent its metadata, whether or not that was seen.
  if (ev.kind === LogKind.transferFailed && d.status === KVPoll.Bootstrapping) d.set(s.profile.backend, KVPoll.WaitingForInput, ev.seq);
  if (ev.timedOut && ev.timeoutPoll === KVPoll.WaitingForInput) decodeTimedOut(s, r, d, ev, "log");
  else if (ev.reasonKind === "abort") {
    if (d.abort(s.profile, ev.seq, reason)) deliverAbortFromDecode(s, r, d.rank, ev);
  } else d.set(s.profile.backend, KVPoll.Failed, ev.seq, reason);
}

/** NIXL's receiver logged `Request {room} waiting_timeout`: the room timed out in WaitingForInput on that decode rank. */
export function onRoomTimeout(s: ModelState, ev: EventOf<"pd.room_timeout">): void {
  if (ev.room === undefined) return;
  const r = s.room(ev.room, ev);
  decodeTimedOut(s, r, s.receiver(r, s.rankOf(ev, DECODE), ev), ev, "log");
}

/**
 * Decode's WaitingForInput timeout: Failed, and ABORT to prefill in versions
 * that send it (§5.2). A room that had to time out is a transfer stall;
 * the cause names what the model knows of the prefill side.
 */
export function decodeTimedOut(s: ModelState, r: RoomRec, d: DecodeReceiver, ev: EventPlace, basis: "log" | "model"): void {
  s.count("transfer-stall");
  const falseTimeout = s.profile.backend === "nixl" && d.transfer.isDone();
  if (!(r.flags & FLAG.stall)) {
    r.flags |= FLAG.stall;
    const c = stallCause(s, r, d.rank);
    // Before #32267 NIXL checked the deadline before draining notifications:
    // a room whose transfer was complete could still time out.
    const drains = s.profile.drainsBeforeTimeout ?? drainsBeforeTimeoutFor(s.profile.backend, s.profile.version);
    // From #32267 on, a complete transfer cannot time out: the evidence then
    // disagrees with the model (e.g. a notification logged but not polled).
    const cause = falseTimeout ? (drains ? "completed-before-timeout" : "false-timeout") : c.cause;
    s.violation(
      "transfer-stall",
      ev,
      [...c.witness, d.metaSeq ?? d.createdSeq, r.progressSeq, ev.seq],
      `room ${r.room} timed out in WaitingForInput on ${s.ranks.label(d.rank)} (${cause})`,
      { ...c.detail, cause, basis, side: "decode", waitingTimeoutS: s.profile.waitingTimeoutS },
      r.room,
      d.rank,
    );
  }
  const reason = `Request ${r.room} timed out after ${s.profile.waitingTimeoutS.toFixed(1)}s in KVPoll.WaitingForInput`;
  if (d.abort(s.profile, ev.seq, reason)) deliverAbortFromDecode(s, r, d.rank, ev);
}

/** Prefill's Bootstrapping timeout: decode's metadata never arrived. */
export function prefillTimedOut(s: ModelState, r: RoomRec, sender: PrefillSender, ev: EventPlace, basis: "log" | "model"): void {
  s.count("transfer-stall");
  sender.set(s.profile.backend, KVPoll.Failed, ev.seq, `Request ${r.room} timed out after ${s.profile.bootstrapTimeoutS.toFixed(1)}s in KVPoll.Bootstrapping`);
  if (r.flags & FLAG.stall) return;
  r.flags |= FLAG.stall;
  const t = s.threads.get(sender.rank);
  const dead = t !== undefined && !t.alive;
  const cause = dead ? "bootstrap-thread-dead" : "metadata-never-arrived";
  s.violation(
    "transfer-stall",
    ev,
    [dead ? (t.abortSeq ?? -1) : -1, dead ? (t.diedSeq ?? -1) : -1, sender.initSeq, ev.seq],
    `room ${r.room} timed out in Bootstrapping on ${s.ranks.label(sender.rank)} (${cause})`,
    { cause, basis, side: "prefill", bootstrapTimeoutS: s.profile.bootstrapTimeoutS },
    r.room,
    sender.rank,
  );
}

/** A prefill room that never left Bootstrapping on a rank whose bootstrap thread is dead (nothing times it out). */
export function prefillStuck(s: ModelState, r: RoomRec, sender: PrefillSender, ev: EventPlace, diedSeq: number, abortSeq: number | null): void {
  s.count("transfer-stall");
  if (r.flags & FLAG.stall) return;
  r.flags |= FLAG.stall;
  s.violation(
    "transfer-stall",
    ev,
    [abortSeq ?? -1, diedSeq, sender.initSeq],
    `room ${r.room} never left Bootstrapping on ${s.ranks.label(sender.rank)}, whose bootstrap thread had died: no metadata can reach it`,
    { cause: "bootstrap-thread-dead", basis: "model", side: "prefill", prefillBootstrapTimeout: s.profile.prefillBootstrapTimeout },
    r.room,
    sender.rank,
  );
}

interface StallCause {
  cause: string;
  witness: number[];
  detail: Record<string, unknown>;
}

/** Why a room's transfer never completed, from what the model holds of its prefill side. */
export function stallCause(s: ModelState, r: RoomRec, decodeRank: number): StallCause {
  const peers = s.prefillPeers(r, decodeRank);
  for (const p of peers) {
    const t = s.threads.get(p);
    if (t !== undefined && !t.alive) {
      return { cause: "bootstrap-thread-dead", witness: [t.abortSeq ?? -1, t.diedSeq ?? -1], detail: { prefillRank: s.ranks.label(p), threadDiedAt: t.diedSeq, threadBasis: t.basis } };
    }
  }
  const senders = peers.map((p) => r.prefill.get(p)).filter((x) => x !== undefined);
  if (senders.length === 0) return { cause: "no-prefill-evidence", witness: [], detail: {} };
  const sender = senders[0]!;
  const detail: Record<string, unknown> = {
    prefillRank: s.ranks.label(sender.rank),
    prefillState: sender.poll(),
    chunksPosted: sender.chunksPosted,
    chunksDone: sender.chunksDone,
    queue: sender.queue,
  };
  if (sender.queue !== null) detail.queueDepth = s.queues.get(sender.rank * 1024 + sender.queue)?.depth ?? 0;
  if (sender.poll() === KVPoll.Bootstrapping) return { cause: "prefill-not-bootstrapped", witness: [sender.initSeq], detail };
  const pending = r.inflight[0];
  if (pending !== undefined || sender.chunksPosted > sender.chunksDone) {
    return { cause: "transfer-in-flight", witness: pending !== undefined ? [s.shadow.writes.postSeq[pending]!] : [], detail };
  }
  if (sender.chunksPosted === 0) return { cause: "prefill-not-sent", witness: [sender.changedSeq], detail };
  return { cause: "notifications-missing", witness: [sender.changedSeq], detail };
}

