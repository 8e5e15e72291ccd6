// State that later lines imply, for time travel (DESIGN.md "The reference
// model": shown as inferred, with the line it rests on). A replay knows a
// room only from the events it has applied; a timeout line says more about
// the time before it: `timed out after 300.0s in KVPoll.WaitingForInput`
// (decode) or `… in KVPoll.Bootstrapping` (prefill, `Prefill bootstrap
// failed`) puts its room in that state from 300 s before the line
// (docs/protocol.md §3.5, §5.1–§5.2), and a batch line's
// `#transfer-req` / `#inflight-req` / `#bootstrap-req` says how many rooms sat
// in that queue when it was written (§2.1, §2.2; queueGauges.ts).

import { type Inferred, type ModelStateView, type RoomView } from "../model/api.js";
import { KVPoll, type KVPollValue } from "../../domain/vocabulary.js";
import { kvPollFromName } from "../../domain/vocabulary.js";
import { rankLabel } from "../model/ranks.js";
import type { ModelOptions } from "../model/index.js";
import { LogKind } from "../../domain/kinds.js";
import type { IncidentDb } from "../../store/db.js";
import { recordStamps, type RecordStamp } from "../../store/read/records.js";
import { GAUGES, queueGauges, type QueueGauges } from "./queueGauges.js";

/** A room in a state from `since` until the line that says so. */
export interface InferredSpan {
  room: string;
  side: "prefill" | "decode";
  state: KVPollValue;
  rank: string;
  since: number;
  until: number;
  seq: number;
  reason: string;
}

export interface Inference {
  spans: InferredSpan[];
  gauges: QueueGauges;
}

const TIMEOUT_KINDS = [LogKind.transferFailed, LogKind.handshakeFailed, LogKind.bootstrapFailed, "kv.timeout", LogKind.roomTimeout];

/** `waitingTimeoutS`: the profile's, for a timeout line that names its state but not how long it waited. */
export function inferenceOf(db: IncidentDb, options: ModelOptions, waitingTimeoutS: number): Inference {
  const label = (r: Pick<RecordStamp, "host" | "role" | "pp" | "tp">, role: string): string => rankLabel(r.host, r.role ?? role, r.pp, r.tp, options.qualifyHosts ?? false);
  const spans: InferredSpan[] = [];
  for (const r of recordStamps(db, TIMEOUT_KINDS)) {
    const t = timeoutOf(r, waitingTimeoutS);
    if (!t || r.room === null) continue;
    const side = t.state === KVPoll.Bootstrapping && r.role !== "decode" ? "prefill" : "decode";
    const name = Object.entries(KVPoll).find(([, v]) => v === t.state)![0];
    spans.push({
      room: r.room,
      side,
      state: t.state,
      rank: label(r, side),
      since: r.tsUs - t.afterS * 1e6,
      until: r.tsUs,
      seq: r.seq,
      reason: `it timed out after ${t.afterS.toFixed(1)} s in KVPoll.${name} on ${side}: in ${name} from ${t.afterS.toFixed(1)} s before that line${t.assumed ? " (the line names no duration: the profile's waiting timeout)" : ""}`,
    });
  }
  return { spans: spans.sort((a, b) => a.since - b.since), gauges: queueGauges(db, options) };
}

function timeoutOf(r: RecordStamp, waitingTimeoutS: number): { state: KVPollValue; afterS: number; assumed: boolean } | undefined {
  const a = r.attrs ?? {};
  if (r.room === null) return undefined;
  const stated = typeof a.timeoutS === "number" ? a.timeoutS : typeof a.after_s === "number" ? a.after_s : undefined;
  if (stated === undefined && a.timeoutState !== "WaitingForInput") return undefined;
  const afterS = stated ?? waitingTimeoutS;
  if (a.reasonKind !== undefined && a.reasonKind !== "timeout") return undefined;
  const name = typeof a.timeoutState === "string" ? a.timeoutState : typeof a.state === "string" ? a.state : undefined;
  const state = name !== undefined ? kvPollFromName(name) : r.state !== null && r.state >= 0 && r.state <= 4 ? (r.state as KVPollValue) : null;
  return state === null || state === undefined ? undefined : { state, afterS, assumed: stated === undefined };
}

/**
 * The view at (atSeq, atUs) with what later lines imply: rooms the replay
 * does not know yet, or knows without that side's state, in the state a
 * timeout line implies; and each rank's queue gauges from its last batch line.
 */
export function withInferred(view: ModelStateView, inf: Inference, atSeq: number, atUs: number, room?: string): ModelStateView {
  const rooms = [...view.rooms];
  const byRoom = new Map(rooms.map((r, i) => [r.room, i]));
  for (const s of inf.spans) {
    if (s.since > atUs) break;
    if (s.until <= atUs || s.seq <= atSeq || (room !== undefined && s.room !== room)) continue;
    const i = byRoom.get(s.room);
    const known = i === undefined ? undefined : rooms[i]!;
    // Another rank's timeout line for a room already inferred on that side adds the rank.
    if (known?.inferred && known[s.side].state === s.state) {
      if (!known[s.side].ranks.includes(s.rank)) rooms[i!] = { ...known, [s.side]: { ...known[s.side], ranks: [...known[s.side].ranks, s.rank] } };
      continue;
    }
    if (known && known[s.side].state !== null) continue;
    const inferred: Inferred = { since: s.since, seq: s.seq, reason: s.reason };
    const base = known ?? emptyRoom(s.room);
    const side = { ...base[s.side], state: s.state, ranks: base[s.side].ranks.length ? base[s.side].ranks : [s.rank] };
    const next: RoomView = { ...base, [s.side]: side, inferred };
    if (i === undefined) {
      byRoom.set(s.room, rooms.length);
      rooms.push(next);
    } else rooms[i] = next;
  }
  const queues = [...view.queues];
  if (room === undefined) {
    for (const last of inf.gauges.at(atSeq)) {
      if (last.value === 0) continue;
      queues.push({
        rank: last.rank,
        queue: -1,
        depth: last.value,
        changedAt: last.seq,
        gauge: last.gauge,
        inferred: { since: last.tsUs, seq: last.seq, reason: `${last.gauge}: ${last.value} on the last batch line of ${last.rank}: ${last.value} room(s) in ${GAUGES.find((g) => g.field === last.gauge)!.queue}` },
      });
    }
  }
  return { ...view, rooms, queues };
}

function emptyRoom(room: string): RoomView {
  return {
    room,
    prefill: { state: null, ranks: [], chunksPosted: 0, chunksDone: 0, queue: null, changedAt: null },
    decode: { state: null, ranks: [], chunksNotified: 0, auxReceived: false, pages: [], changedAt: null },
  };
}
