// The causal chain of one room, as arrows between its events:
//   post -> notify -> poll -> read   (a chunk's RDMA write reaching a reader)
//   abort -> ABORT frame -> bootstrap thread   (how a decode abort lands on prefill)
// Each arrow joins an event to the first later event that can be its effect;
// the pairs follow the protocol of sglang-pd-logs-and-protocol.md §5-§7.

import type { IncidentDb } from "../../ingest/store/db.js";
import { eventsOfRoom, type StoredEvent } from "../../ingest/store/queries.js";

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
    case "req.abort":
    case "abort.request":
    case "abort.sent":
      return ev.role === "prefill" ? null : "abort";
    case "abort.received":
      return "abort-frame";
    case "boot.msg":
      return String(ev.attrs?.["kind"] ?? "") === "ABORT" ? "abort-frame" : null;
    case "abort.ack_sent":
      return "bootstrap";
    default:
      return null;
  }
}

/** The chunk id an event names: its column, or the `{room}_kv_{chunk}_...` notification tag (§6). */
function chunkOf(ev: StoredEvent): number | null {
  if (ev.chunk !== null) return ev.chunk;
  const tag = ev.attrs?.["tag"] ?? ev.attrs?.["notif"];
  const m = typeof tag === "string" ? /^\d+_kv_(\d+)_/.exec(tag) : null;
  return m ? Number(m[1]) : null;
}

const sameRank = (a: StoredEvent, b: StoredEvent) => a.host === b.host && a.role === b.role && a.dp === b.dp && a.pp === b.pp && a.tp === b.tp;

interface FlowNode {
  seq: number;
  tsUs: number;
  kind: string;
}

export function roomFlow(db: IncidentDb, room: string): RoomFlow {
  const all = eventsOfRoom(db, room);
  const truncated = all.length > MAX_ROOM_EVENTS;
  const steps = all
    .slice(0, MAX_ROOM_EVENTS)
    .map((ev) => ({ ev, step: stepOf(ev) }))
    .filter((s): s is { ev: StoredEvent; step: FlowStep } => s.step !== null);
  const events: RoomFlow["events"] = steps.map(({ ev, step }) => ({ seq: ev.seq, tsUs: ev.tsUs, kind: ev.kind, step }));

  const edges: FlowEdge[] = [];
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
      const chunk = chunkOf(ev);
      link(ev, firstAfter(ev, (s) => s.step === "notify" && (chunk === null || chunkOf(s.ev) === chunk)), `chunk ${chunk ?? "?"}`);
    } else if (step === "notify") {
      link(ev, firstAfter(ev, (s) => s.step === "poll" && sameRank(s.ev, ev)), "polled");
    } else if (step === "poll" && ev.state === 4 && ev.role === "decode") {
      link(ev, firstAfter(ev, (s) => s.step === "read" && s.ev.role === "decode"), "read");
    } else if (step === "abort") {
      const frame = firstAfter(ev, (s) => s.step === "abort-frame");
      if (frame) link(ev, frame, "ABORT");
      else {
        // Default logs show no ABORT frame arriving on prefill; link straight to the thread it ended.
        const end = bootstrapThreadEnd(db, ev.seq, null);
        addNode(end);
        link(ev, end, "ABORT → bootstrap thread");
      }
    } else if (step === "abort-frame") {
      const answered = firstAfter(ev, (s) => s.step === "bootstrap" && sameRank(s.ev, ev));
      const end = answered ? undefined : bootstrapThreadEnd(db, ev.seq, ev);
      addNode(end);
      link(ev, answered ?? end, "bootstrap thread");
    }
  }
  return { room, events, edges, truncated };
}

/**
 * How a prefill bootstrap thread took a frame it did not answer: the thread's
 * exit (probe `boot.exit`), or the `Exception in thread` record that its failed
 * GUARD assertion leaves in the log (§7.1) — on the rank that took the frame
 * when that is known, else on any prefill rank.
 */
function bootstrapThreadEnd(db: IncidentDb, afterSeq: number, rank: StoredEvent | null): FlowNode | undefined {
  const sameRankAfter = rank ? "seq > ? AND host IS ? AND role IS ? AND tp IS ?" : "seq > ? AND role = 'prefill'";
  const args = rank ? [afterSeq, rank.host, rank.role, rank.tp] : [afterSeq];
  const exit = db
    .prepare(`SELECT seq, ts_us AS tsUs, kind FROM events WHERE kind = 'boot.exit' AND ${sameRankAfter} ORDER BY seq LIMIT 1`)
    .get(...args) as FlowNode | undefined;
  return (
    exit ??
    (db
      .prepare(
        `SELECT seq, ts_us AS tsUs, kind FROM events
          WHERE kind = 'log.exception' AND ${sameRankAfter} AND text LIKE '%bootstrap%' ORDER BY seq LIMIT 1`,
      )
      .get(...args) as FlowNode | undefined)
  );
}
