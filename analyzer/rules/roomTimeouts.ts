// Rooms past a PD timeout, one finding per state and cause naming every room
// and every rank that timed one out. When a replay ran, the model decides
// which rooms stalled and why (model/stalls.ts: transfer-in-flight,
// prefill-not-bootstrapped, bootstrap-thread-dead, ...), whether a
// `timed out after {s}s in KVPoll.{state}` line (docs/protocol.md §3.5) or a
// probe `kv.timeout` says so or the model's own deadline or a dead bootstrap
// thread does; those records are the findings' witnesses. Records the model
// could not place (no room, a state it does not time) and incidents without a
// replay are read here.

import { LogKind } from "../../domain/kinds.js";
import type { StoredEvent } from "../../store/read/events.js";
import { roomFirstRecord } from "../../store/read/seqs.js";
import { decodeAs } from "../events/decode.js";
import { KVPoll } from "../../domain/vocabulary.js";
import { isoTime, uniqueEvents, type Evidence } from "./evidence.js";
import type { Violation } from "../model/api.js";
import { violationsOf, type ReplayEvidence } from "./replayEvidence.js";
import type { DraftFinding } from "./rule.js";

export interface TimeoutRecord {
  ev: StoredEvent;
  room: string | undefined;
  state: string;
  afterS: number | undefined;
  /** For a stall no record states (its deadline passed, or the room can never bootstrap): the model's statement, rank and witness. */
  modelled?: { message: string; rank: string | undefined; witness: StoredEvent[] };
}

const FAILURE_KINDS = [LogKind.transferFailed, LogKind.handshakeFailed, LogKind.bootstrapFailed];

/** Rooms in this many timeouts make each of them a high-severity finding: the path is stalling, not one room. */
const MANY_ROOMS = 3;

const FALSIFY =
  "Replay the same arrivals with the transfer path instrumented (probe kv.post/kv.done per queue); a path with headroom finishes every room within the waiting timeout.";

/** Every timeout record (one per rank that logged it), from log lines and probe kv.timeout. */
export function timeoutEvents(evidence: Evidence): TimeoutRecord[] {
  const out: TimeoutRecord[] = [];
  for (const ev of evidence.ofKinds(...FAILURE_KINDS, "kv.timeout", LogKind.roomTimeout)) {
    const t = decodeAs(ev, "kv.timeout", LogKind.roomTimeout, ...FAILURE_KINDS)!;
    if (t.kind === "kv.timeout") out.push({ ev, room: t.room, state: t.stateName ?? pollName(ev.state), afterS: t.after_s });
    // NIXL's receiver `Request {room} waiting_timeout` names the state, not the duration.
    else if (t.kind === LogKind.roomTimeout) out.push({ ev, room: t.room, state: t.timeoutState ?? "WaitingForInput", afterS: undefined });
    else if (t.timedOut) out.push({ ev, room: t.room, state: t.timeoutState ?? "unknown", afterS: t.timeoutS });
  }
  return out;
}

/**
 * Requests aborted or timed out on the PD path: each made decode release its
 * pages before the transfer was known to be done (§8 abort, §5.2 timeout).
 * Rooms where the records name them; aborts logged by rid only are counted.
 */
export function earlyReleases(evidence: Evidence): { rooms: Set<string>; count: number } {
  const rooms = new Set(timeoutEvents(evidence).flatMap((t) => (t.room ? [t.room] : [])));
  const aborted = (ev: StoredEvent): boolean => {
    if (ev.kind === "req.abort") return true;
    if (ev.kind === LogKind.abortSent) return decodeAs(ev, LogKind.abortSent)!.failed !== true;
    return decodeAs(ev, ...FAILURE_KINDS)?.reasonKind === "abort";
  };
  for (const ev of evidence.ofKinds("req.abort", LogKind.abortSent, ...FAILURE_KINDS)) if (ev.room && aborted(ev)) rooms.add(ev.room);
  const byRid = new Set(evidence.of(LogKind.abortRequest).flatMap((e) => (e.rid ? [e.rid] : [])));
  return { rooms, count: rooms.size + byRid.size };
}

/** KVPoll's name for a stored state (docs/protocol.md §5). */
function pollName(state: number | null): string {
  const name = state === null ? undefined : (Object.entries(KVPoll) as [string, number][]).find(([, v]) => v === state)?.[0];
  return name ?? "unknown";
}

/** A stall the model decided that no record states: at its deadline, or on a dead bootstrap thread at the end. */
function modelledTimeout(evidence: Evidence, v: Violation, ev: StoredEvent, replay: ReplayEvidence): TimeoutRecord {
  const decode = v.detail.side === "decode";
  const afterS = decode ? replay.profile.waitingTimeoutS : v.detail.cause === "bootstrap-thread-dead" && v.detail.bootstrapTimeoutS === undefined ? undefined : replay.profile.bootstrapTimeoutS;
  const witness = v.witness.flatMap((seq) => (seq >= 0 ? evidence.event(seq) ?? [] : []));
  return { ev, room: v.room, state: decode ? "WaitingForInput" : "Bootstrapping", afterS, modelled: { message: v.message, rank: v.rank, witness } };
}

/** The model's cause for a stalled room, and the record of it when there is one (the bootstrap thread's death). */
interface StallCause {
  cause: string;
  causeSeq?: number;
}

/** The model's cause for each stalled room. */
function stallCauses(replay: ReplayEvidence | undefined): Map<string, StallCause> {
  const out = new Map<string, StallCause>();
  for (const v of violationsOf(replay, "transfer-stall")) {
    if (v.room === undefined || out.has(v.room)) continue;
    const died = v.detail.threadDiedAt;
    out.set(v.room, { cause: typeof v.detail.cause === "string" ? v.detail.cause : "unknown", ...(typeof died === "number" && died >= 0 && { causeSeq: died }) });
  }
  return out;
}

/**
 * The timeout findings: one per KVPoll state and model cause (a wedge's 58
 * rooms that timed out in WaitingForInput because the bootstrap thread was
 * dead are one finding), naming every room and every rank that timed one out.
 */
export function roomTimeoutFindings(evidence: Evidence, records: TimeoutRecord[], replay: ReplayEvidence | undefined): DraftFinding[] {
  const perRoom = new Map<string, TimeoutRecord[]>();
  for (const t of records) {
    const key = t.room ?? `#${t.ev.seq}`;
    perRoom.set(key, [...(perRoom.get(key) ?? []), t]);
  }
  const causeOf = stallCauses(replay);
  for (const v of violationsOf(replay, "transfer-stall")) {
    if (v.room === undefined || perRoom.has(v.room)) continue;
    const ev = evidence.event(v.seq);
    if (ev) perRoom.set(v.room, [modelledTimeout(evidence, v, ev, replay!)]);
  }
  const groups = new Map<string, TimeoutRecord[][]>();
  for (const room of perRoom.values()) {
    const first = room[0]!;
    const key = `${first.state}|${(first.room && causeOf.get(first.room)?.cause) ?? ""}`;
    groups.set(key, [...(groups.get(key) ?? []), room]);
  }
  return [...groups.values()].map((g) => groupFinding(evidence, g, perRoom.size, causeOf));
}

function groupFinding(evidence: Evidence, rooms: TimeoutRecord[][], roomCount: number, causeOf: Map<string, StallCause>): DraftFinding {
  const lead = rooms[0]!;
  const first = lead[0]!;
  const room = first.room;
  const start = room ? roomStart(evidence, room, first.ev.seq) : undefined;
  const all = rooms.flat();
  const ranks = [...new Set(all.map((t) => t.modelled?.rank ?? evidence.rank(t.ev)))].sort();
  const stall = room ? causeOf.get(room) : undefined;
  const cause = stall?.cause;
  const causeEv = stall?.causeSeq !== undefined ? evidence.event(stall.causeSeq) : undefined;
  const roomIds = rooms.flatMap((r) => (r[0]!.room ? [r[0]!.room] : []));
  const others = rooms.slice(1);
  const after = first.afterS ? ` after ${first.afterS} s` : "";
  const title = rooms.length === 1
    ? `Room ${room ?? "?"} timed out in KVPoll.${first.state}${after} on ${ranks.length} rank(s)`
    : `${rooms.length} rooms timed out in KVPoll.${first.state}${after} on ${ranks.length} rank(s)${cause ? ` (${cause})` : ""}`;
  const lastUs = others.at(-1)?.[0]!.ev.tsUs;
  const when = lastUs === first.ev.tsUs ? "at the same time" : `between ${isoTime(first.ev.tsUs)} and ${isoTime(lastUs ?? first.ev.tsUs)}`;
  const span = others.length ? ` The same timeout hit ${others.length} more room(s) ${when}: ${others.slice(0, 10).map((r) => r[0]!.room ?? "?").join(", ")}${others.length > 10 ? " …" : ""}.` : "";
  return {
    rule: "transfer-stall",
    severity: roomCount >= MANY_ROOMS ? "high" : "medium",
    verdict: "violated",
    title,
    ...(room && { room }),
    ...(roomIds.length > 1 && { rooms: roomIds }),
    ranks,
    tsUs: first.ev.tsUs,
    witness: uniqueEvents([...(start ? [start] : []), ...(first.modelled?.witness ?? [first.ev]), ...others.slice(0, 3).map((r) => r[0]!.ev)]),
    explanation:
      `Let room ${room ?? "?"} ${start ? `enter the PD path at ${evidence.where(start)}` : "enter the PD transfer path"}. ` +
      `Then it must reach Success or Failed before the ${first.afterS ?? "configured"} s limit of KVPoll.${first.state} (docs/protocol.md §5.2, §10), ` +
      (first.modelled
        ? `but replayed, the model finds that ${first.modelled.message} (decided at ${evidence.where(first.ev)}; no record states it)`
        : `but it timed out there (${evidence.where(first.ev)}${ranks.length > 1 ? `; ${ranks.length} rank(s) logged the group's timeouts` : ""})`) +
      `${cause && !first.modelled ? `; replayed, the model finds the cause: ${cause}${causeEv ? ` (${evidence.where(causeEv)}${causeEv.timeless ? ", a record whose time is unknown" : ""})` : ""}` : ""}.${span}`,
    falsify: FALSIFY,
    ...(causeEv && !first.modelled && { because: [{ cause: causeEv, effect: first.ev }] }),
    checked: all.length,
    count: Math.max(1, roomIds.length),
    facts: {
      room,
      state: first.state,
      ...(cause && { cause }),
      rooms: roomIds,
      states: { [first.state]: rooms.length },
      causes: cause ? { [cause]: rooms.length } : {},
    },
  };
}

function roomStart(evidence: Evidence, room: string, beforeSeq: number): StoredEvent | undefined {
  const first = roomFirstRecord(evidence.db, room);
  return first && first.seq < beforeSeq ? evidence.event(first.seq) : undefined;
}
