// Handlers of the bootstrap thread and the abort paths: frames the prefill
// bootstrap thread takes, ABORT from decode (sent on abort() or waiting
// timeout) and what it does per backend/version, thread death
// (docs/protocol.md §3.2–§3.4, §7.1–§7.2, §8 "Abort", §9).

import { type EventPlace } from "./api.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { frameFromName, type BootstrapThread } from "./bootstrap.js";
import { DECODE, PREFILL } from "./ranks.js";
import type { RoomRec } from "./rooms.js";
import { SEEN, type ModelState } from "./state.js";
import type { EventOf } from "../../domain/domainEvent.js";

const GUARD_FAILURE = /Foreign traffic|NixlMsgGuard|First message should be/;

/**
 * One ABORT frame reaches the bootstrap thread of `prefillRank`: taken, as its
 * own probe records it (`boot.msg`), or sent to it by decode. In a
 * fatal-assert profile (NIXL 0.5.13–0.5.15) the thread ends here; from then on
 * no room on that rank leaves Bootstrapping (UNVERIFIED at runtime per §7.1).
 * The death is reported once, when the logs show it or at the end (reportDeath).
 */
export function deliverAbort(s: ModelState, prefillRank: number, room: string, ev: EventPlace, via: string): void {
  s.count("unhandled-abort");
  const t = s.thread(prefillRank);
  if (via === "boot.msg") t.taken ??= { seq: ev.seq, room };
  else t.sent ??= { seq: ev.seq, room };
  const out = t.take(s.profile.backend, s.profile.abortHandling, "ABORT", ev.seq);
  if (out.died) t.diedTsUs = ev.tsUs;
  if (out.roomFailed) {
    const sender = s.rooms.find(room)?.prefill.get(prefillRank);
    if (sender !== undefined && sender.poll() !== KVPoll.Success) {
      sender.set(s.profile.backend, KVPoll.Failed, ev.seq, "Aborted by decode-side abort notification.");
    }
  }
}

/** Decode's receiver sent ABORT (§8): to the prefill ranks that hold the room for it (state.ts abortPeers). */
export function deliverAbortFromDecode(s: ModelState, r: RoomRec, decodeRank: number, ev: EventPlace): void {
  s.lastAbortSeq = ev.seq;
  s.lastAbortRoom = r.room;
  for (const p of s.abortPeers(r, decodeRank)) deliverAbort(s, p, r.room, ev, ev.kind);
}

/**
 * The ABORT behind a thread's death, decided once for the replay and the
 * rules alike: the first the thread took as its probe records it, else the
 * first decode sent to its rank, else the last decode sent to any.
 */
function abortBehind(s: ModelState, t: BootstrapThread): { seq: number; room: string | null; how: "taken" | "sent" | "last-sent" } | null {
  if (t.taken) return { ...t.taken, how: "taken" };
  if (t.sent) return { ...t.sent, how: "sent" };
  return s.lastAbortSeq >= 0 ? { seq: s.lastAbortSeq, room: s.lastAbortRoom, how: "last-sent" } : null;
}

/**
 * One violation per dead thread: its end as the logs show it (or, with no
 * such record, the frame the profile says killed it), the ABORT behind it,
 * and every record of its end that came before.
 */
function reportDeath(s: ModelState, t: BootstrapThread, end: { seq: number; tsUs: number }, error: string, basis: "log" | "profile", modelled: number | null): void {
  const abort = abortBehind(s, t);
  if (basis === "log" && abort === null && !GUARD_FAILURE.test(error)) return;
  t.reported = true;
  const rank = s.ranks.label(t.rank);
  s.violation(
    "unhandled-abort",
    end,
    [abort?.seq ?? -1, modelled ?? -1, t.pendingEnd?.seq ?? -1, end.seq],
    basis === "log"
      ? `the prefill bootstrap thread of ${rank} ended${abort ? ` after the ABORT for room ${abort.room ?? "?"}` : ""}: ${error}`
      : `ABORT for room ${abort?.room ?? "?"} reaches the NIXL ${s.profile.version} bootstrap thread of ${rank}, which has no handler: the GUARD assertion ends the thread and later rooms on that rank stay in Bootstrapping/WaitingForInput`,
    {
      basis, error, confirms: modelled, abortHandling: s.profile.abortHandling, version: s.profile.version, prefillRank: rank,
      abortSeq: abort?.seq ?? null, abortRoom: abort?.room ?? null, abortHow: abort?.how ?? null,
    },
    abort?.room ?? null,
    t.rank,
  );
  t.pendingEnd = null;
}

/** At the end: deaths no record with its own time reported (a traceback only), and deaths only the profile shows. */
export function reportPendingDeaths(s: ModelState): void {
  for (const t of s.threads.values()) {
    if (t.reported || t.alive) continue;
    if (t.pendingEnd) reportDeath(s, t, t.pendingEnd, t.pendingEnd.error, "log", null);
    else if (t.basis === "profile" && t.diedSeq !== null) reportDeath(s, t, { seq: t.diedSeq, tsUs: t.diedTsUs ?? s.lastTsUs }, t.error ?? "GUARD assertion", "profile", null);
  }
}

/** Evidence that a prefill rank's bootstrap thread processed a frame: it is alive whatever the model assumed. */
function threadAlive(s: ModelState, rank: number, ev: EventPlace): void {
  s.seen |= SEEN.bootFrames;
  s.count("unhandled-abort");
  s.thread(rank).sawAlive(ev.seq);
}

/** A metadata frame (`got info room=... required_dst_info_num=n`): WaitingForInput once every destination sent one. */
function metaFrame(s: ModelState, rank: number, ev: EventOf<"boot.msg" | "boot.got_info">, room: string): void {
  const r = s.room(room, ev);
  const sender = s.sender(r, rank, ev);
  sender.transferInfos++;
  const required = ev.requiredDstInfoNum ?? 1;
  if (sender.transferInfos >= required) sender.set(s.profile.backend, KVPoll.WaitingForInput, ev.seq);
  r.progressSeq = ev.seq;
}

/** `boot.msg` probe: the bootstrap thread took a frame (`attrs.kind`). */
export function onBootMsg(s: ModelState, ev: EventOf<"boot.msg">): void {
  const rank = s.rankOf(ev, PREFILL);
  const frame = frameFromName(ev.frame ?? "foreign");
  threadAlive(s, rank, ev);
  if (frame === "ABORT") {
    if (ev.room !== undefined) deliverAbort(s, rank, ev.room, ev, "boot.msg");
    return;
  }
  const t = s.thread(rank);
  const out = t.take(s.profile.backend, s.profile.abortHandling, frame, ev.seq);
  if (out.died) {
    s.count("unhandled-abort");
    t.diedTsUs = ev.tsUs;
  }
  if (frame === "meta" && ev.room !== undefined) metaFrame(s, rank, ev, ev.room);
}

/**
 * The thread ended (probe boot.exit or an `Exception in thread` record naming
 * it). A record with no time of its own (a traceback) cannot say when the
 * thread died: its death is reported with a later end that has one (the
 * probe's boot.exit), or at the end.
 */
function threadExited(s: ModelState, rank: number, ev: EventPlace, error: string): void {
  s.count("unhandled-abort");
  const t = s.thread(rank);
  const modelled = !t.alive && t.basis === "profile" ? t.diedSeq : null;
  t.observedExit(ev.seq, error);
  if (t.reported) return;
  if (ev.tsInferred) {
    t.pendingEnd ??= { seq: ev.seq, tsUs: ev.tsUs, error };
    return;
  }
  reportDeath(s, t, ev, error, "log", modelled);
}

export function onBootExit(s: ModelState, ev: EventOf<"boot.exit">): void {
  threadExited(s, s.rankOf(ev, PREFILL), ev, ev.error ?? "bootstrap thread exited");
}

/**
 * `log.exception` with `attrs.thread`: an uncaught exception ended a thread.
 * `Exception in thread` records carry no SGLang prefix, so when the rank is
 * unknown (no tp) the record confirms every bootstrap thread of the host the
 * model already holds dead, or else names the host's tp0 rank.
 */
export function onLogException(s: ModelState, ev: EventOf<"log.exception">): void {
  const thread = ev.thread;
  if (thread === undefined || !/bootstrap/i.test(thread) || ev.role === "decode") return;
  const error = ev.error ?? lastLine(ev.text);
  if (ev.tp === null) {
    const dead = [...s.threads.values()].filter((t) => !t.alive && t.basis === "profile" && s.ranks.ranks[t.rank]!.host === ev.host);
    if (dead.length > 0) {
      for (const t of dead) threadExited(s, t.rank, ev, error);
      return;
    }
  }
  threadExited(s, s.rankOf(ev, PREFILL), ev, error);
}

function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  return lines[lines.length - 1]!.trim();
}

export function onGotInfo(s: ModelState, ev: EventOf<"boot.got_info">): void {
  const rank = s.rankOf(ev, PREFILL);
  threadAlive(s, rank, ev);
  if (ev.room !== undefined) metaFrame(s, rank, ev, ev.room);
}

/** `room=... is bootstrapped`: every destination's metadata arrived. */
export function onBootstrapped(s: ModelState, ev: EventOf<"boot.bootstrapped">): void {
  const rank = s.rankOf(ev, PREFILL);
  threadAlive(s, rank, ev);
  if (ev.room === undefined) return;
  const r = s.room(ev.room, ev);
  s.sender(r, rank, ev).set(s.profile.backend, KVPoll.WaitingForInput, ev.seq);
  r.progressSeq = ev.seq;
}

export function onRegister(s: ModelState, ev: EventOf<"boot.register">): void {
  threadAlive(s, s.rankOf(ev, PREFILL), ev);
}

/**
 * Prefill `Received abort notification for room X, marked as Failed` (NIXL
 * ≥0.5.16, Mooncake) or `..., ignoring (already completed or unknown)`: the
 * thread handled ABORT, whatever the profile expected.
 */
export function onAbortReceived(s: ModelState, ev: EventOf<"abort.received">): void {
  const rank = s.rankOf(ev, PREFILL);
  threadAlive(s, rank, ev);
  s.count("unhandled-abort");
  if (ev.room === undefined) return;
  const ignored = ev.outcome === "ignored" || ev.text.includes("ignoring");
  const sender = s.rooms.find(ev.room)?.prefill.get(rank);
  if (!ignored && sender !== undefined && sender.poll() !== KVPoll.Success) {
    sender.set(s.profile.backend, KVPoll.Failed, ev.seq, "Aborted by decode-side abort notification.");
  }
}

export function onAbortAckSent(s: ModelState, ev: EventOf<"abort.ack_sent">): void {
  threadAlive(s, s.rankOf(ev, PREFILL), ev);
}

/** Decode `Sent abort notification for room X to ip:port`: the receiver aborted and ABORT is on the wire. */
export function onAbortSent(s: ModelState, ev: EventOf<"abort.sent">): void {
  if (ev.room === undefined) return;
  const r = s.room(ev.room, ev);
  const d = s.receiver(r, s.rankOf(ev, DECODE), ev);
  if (d.abortNotified) return;
  d.abortNotified = true;
  d.set(s.profile.backend, KVPoll.Failed, ev.seq, "Aborted by AbortReq.");
  deliverAbortFromDecode(s, r, d.rank, ev);
}

/**
 * A request abort (`req.abort` probe, or the scheduler's `Abort ... request.
 * rid=...` line resolved through the room's rid): decode `kv_receiver.abort()`
 * (Failed + ABORT), prefill `sender.abort()` (Failed locally, nothing sent, §9).
 */
export function onRequestAbort(s: ModelState, ev: EventOf<"req.abort" | "abort.request">): void {
  const room = (ev.kind === "req.abort" ? ev.room : undefined) ?? (ev.rid === undefined ? undefined : s.rooms.byRid.get(ev.rid));
  if (room === undefined) return;
  const r = s.room(room, ev);
  if (ev.role === "prefill") {
    s.sender(r, s.rankOf(ev, PREFILL), ev).set(s.profile.backend, KVPoll.Failed, ev.seq, "Aborted by AbortReq.");
    return;
  }
  const d = s.receiver(r, s.rankOf(ev, DECODE), ev);
  if (d.abort(s.profile, ev.seq)) deliverAbortFromDecode(s, r, d.rank, ev);
}

/** `req.arrive`: the sender (prefill) or receiver (decode) is created in Bootstrapping. */
export function onRequestArrive(s: ModelState, ev: EventOf<"req.arrive">): void {
  if (ev.room === undefined) return;
  const r = s.room(ev.room, ev);
  if (ev.rid !== undefined) s.rooms.linkRid(ev.rid, r);
  if (ev.role === "prefill") s.sender(r, s.rankOf(ev, PREFILL), ev);
  else if (ev.role === "decode") s.receiver(r, s.rankOf(ev, DECODE), ev);
}
