// The causal chain of one room, as arrows between its events:
//   post -> notify -> poll -> read   (a chunk's RDMA write reaching a reader)
//   abort -> ABORT frame -> bootstrap thread   (how a decode abort lands on prefill)
// A post's arrow goes to the notify the reference model landed it by
// (analyzer/model/transferPairing.ts: the decode rank it wrote to, §5.2, and
// the chunk, §6); each other arrow joins an event to the first later event
// that can be its effect; the pairs follow docs/protocol.md §5-§7.

import type { IncidentDb } from "../../store/db.js";
import { eventsFollowing, eventsOfRoom, type StoredEvent } from "../../store/read/events.js";
import { roomsPresent } from "../../store/read/incident.js";
import { LogKind } from "../../domain/kinds.js";
import { decodeAs } from "../events/index.js";
import type { LandingColumns } from "./timelineIndex.js";

export type FlowStep = "post" | "notify" | "poll" | "read" | "abort" | "abort-frame" | "bootstrap";

export interface FlowEdge {
  from: number;
  to: number;
  label: string;
}

export interface RoomFlow {
  room: string;
  events: { seq: number; tsUs: number; kind: string; step: FlowStep }[];
  edges: FlowEdge[];
  /** True when the room had more events than were looked at. */
  truncated: boolean;
}

const MAX_ROOM_EVENTS = 20_000;

/** An abort a decode rank logged for a room: a request abort, its ABORT sent, or a transfer failure the abort caused. */
function isDecodeAbort(ev: StoredEvent): boolean {
  if (ev.role === "prefill") return false;
  if (ev.kind === "req.abort" || ev.kind === "abort.request" || ev.kind === "abort.sent") return true;
  return decodeAs(ev, LogKind.transferFailed)?.reasonKind === "abort";
}

function stepOf(ev: StoredEvent): FlowStep | null {
  switch (ev.kind) {
    case "kv.post":
    case "xfer.notif_sent": // NIXL "sending kvcache to ... with notif {room}_kv_{chunk}_..." (§3.2)
      return "post";
    case "kv.notify":
      return "notify";
    case "kv.poll":
      return "poll";
    case "kernel.read":
      return "read";
    case "abort.received":
      return "abort-frame";
    case "boot.msg":
      return decodeAs(ev, "boot.msg")?.frame === "ABORT" ? "abort-frame" : null;
    case "abort.ack_sent":
      return "bootstrap";
    default:
      return isDecodeAbort(ev) ? "abort" : null;
  }
}


const sameRank = (a: StoredEvent, b: StoredEvent) => a.host === b.host && a.role === b.role && a.dp === b.dp && a.pp === b.pp && a.tp === b.tp;

interface FlowNode {
  seq: number;
  tsUs: number;
  kind: string;
}

/** The notifies that landed each post, by the post's seq, as the model paired them. */
function notifyLandings(landed: LandingColumns): Map<number, number[]> {
  const by = new Map<number, number[]>();
  for (let i = 0; i < landed.post.length; i++) {
    if (landed.byDone[i]) continue;
    const post = landed.post[i]!;
    const list = by.get(post);
    if (list === undefined) by.set(post, [landed.landing[i]!]);
    else if (!list.includes(landed.landing[i]!)) list.push(landed.landing[i]!);
  }
  return by;
}

/** The room's chain; a post's arrows go to the notifies the reference model landed its writes by (`landed`, the timeline index's). */
export function roomFlow(db: IncidentDb, room: string, landed: LandingColumns): RoomFlow {
  return chainOfRoom(db, room, notifyLandings(landed));
}

function chainOfRoom(db: IncidentDb, room: string, landedBy: Map<number, number[]>): RoomFlow {
  const all = eventsOfRoom(db, room);
  const truncated = all.length > MAX_ROOM_EVENTS;
  const steps = all
    .slice(0, MAX_ROOM_EVENTS)
    .map((ev) => ({ ev, step: stepOf(ev) }))
    .filter((s): s is { ev: StoredEvent; step: FlowStep } => s.step !== null);
  const events: RoomFlow["events"] = steps.map(({ ev, step }) => ({ seq: ev.seq, tsUs: ev.tsUs, kind: ev.kind, step }));

  const edges: FlowEdge[] = [];
  const notifyBySeq = new Map(steps.filter((s) => s.step === "notify").map((s) => [s.ev.seq, s.ev]));
  const notifiesLanding = (post: number) => (landedBy.get(post) ?? []).flatMap((seq) => notifyBySeq.get(seq) ?? []);
  const firstAfter = (from: StoredEvent, pick: (s: { ev: StoredEvent; step: FlowStep }) => boolean) =>
    steps.find((s) => s.ev.seq > from.seq && pick(s))?.ev;
  const link = (from: StoredEvent, to: FlowNode | undefined, label: string) => {
    if (to) edges.push({ from: from.seq, to: to.seq, label });
  };
  const addNode = (node: FlowNode | undefined) => {
    if (node && !events.some((e) => e.seq === node.seq)) events.push({ ...node, step: "bootstrap" });
  };

  for (const { ev, step } of steps) {
    if (step === "post") {
      for (const notify of notifiesLanding(ev.seq)) link(ev, notify, `chunk ${ev.chunk ?? "?"}`);
    } else if (step === "notify") {
      link(ev, firstAfter(ev, (s) => s.step === "poll" && sameRank(s.ev, ev)), "polled");
    } else if (step === "poll" && ev.state === 4 && ev.role === "decode") {
      link(ev, firstAfter(ev, (s) => s.step === "read" && s.ev.role === "decode"), "read");
    } else if (step === "abort") {
      // Decode rank k sends its ABORT to the prefill rank it was paired with, which has the same TP.
      const frame = firstAfter(ev, (s) => s.step === "abort-frame" && s.ev.tp === ev.tp);
      if (frame) link(ev, frame, "ABORT");
      else {
        // Default logs show no ABORT frame arriving on prefill; link straight to the thread it ended, if one did.
        const end = bootstrapThreadEnd(db, ev.seq, { host: undefined, role: "prefill", tp: ev.tp });
        addNode(end);
        link(ev, end, "ABORT → bootstrap thread");
      }
    } else if (step === "abort-frame") {
      const answered = firstAfter(ev, (s) => s.step === "bootstrap" && sameRank(s.ev, ev));
      const end = answered ? undefined : bootstrapThreadEnd(db, ev.seq, { host: ev.host, role: ev.role, tp: ev.tp });
      addNode(end);
      link(ev, answered ?? end, "bootstrap thread");
    }
  }
  return { room, events, edges, truncated };
}

/** The chain of every room of the incident, room by room in string order. */
export function* incidentFlows(db: IncidentDb, landed: LandingColumns): Generator<RoomFlow> {
  // The landings are indexed once for every room: per room they would cost the whole incident's landings each time.
  const landedBy = notifyLandings(landed);
  for (const room of roomsPresent(db)) yield chainOfRoom(db, room, landedBy);
}

/** A thread is the bootstrap thread when its name says so (`Thread-3 (bootstrap_thread)`, §7.1). */
function isBootstrapThread(ev: StoredEvent): boolean {
  const exception = decodeAs(ev, LogKind.exception);
  return /bootstrap/i.test(`${exception?.thread ?? ""} ${exception?.threadName ?? ""}`);
}

/**
 * How a prefill bootstrap thread took a frame it did not answer: the thread's
 * exit (probe `boot.exit`) on that rank, or else the `Exception in thread …
 * (bootstrap_thread)` record that its failed GUARD assertion leaves in the log
 * of that host (§7.1; a traceback block names no TP).
 */
function bootstrapThreadEnd(
  db: IncidentDb,
  afterSeq: number,
  rank: { host: string | null | undefined; role: string | null; tp: number | null },
): FlowNode | undefined {
  const where = { afterSeq, role: rank.role, ...(rank.host !== undefined && { host: rank.host }) };
  const exit = first(eventsFollowing(db, { ...where, kinds: ["boot.exit"], tpOrNone: rank.tp }), (ev) => ev.tp === rank.tp);
  const ended = exit ?? first(eventsFollowing(db, { ...where, kinds: ["log.exception"], tpOrNone: rank.tp }), isBootstrapThread);
  return ended && { seq: ended.seq, tsUs: ended.tsUs, kind: ended.kind };
}

function first<T>(items: Iterable<T>, pick: (item: T) => boolean): T | undefined {
  for (const item of items) if (pick(item)) return item;
  return undefined;
}
