// SGLang's request traces as the checks read them: per room, the stage
// slices each side completed and whether the request finished. SGLang ends
// a request's root span (`Bootstrap Room 0x…`), its `<role> Req …` span and
// its thread span only when the request finishes
// (python/sglang/srt/tracing/trace.py), and an exporter writes a span only
// when it ends; so after a wedge a room's file holds the stages it got
// through and nothing after them: its trace stopped (docs/telemetry.md).

import { TelemetryKind } from "../../domain/kinds.js";
import { SGLANG_STAGES } from "../../domain/telemetry.js";
import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "../rules/evidence.js";

export interface StageSlice {
  ev: StoredEvent;
  stage: string;
  side: "prefill" | "decode";
}

export interface TracedRoom {
  room: string;
  rid: string | null;
  /** Completed stage slices, by end time. */
  stages: StageSlice[];
  /** A span that ends only when the request does (root, request or thread span) was written. */
  finished: boolean;
  /** Sides whose last stage (prefill_transfer_kv_cache, decode_transferred, …) ended. */
  sidesDone: Set<"prefill" | "decode">;
}

const cache = new WeakMap<Evidence, TracedRoom[]>();

/** Rooms with at least one stage slice, in order of their first slice's end. */
export function tracedRooms(evidence: Evidence): TracedRoom[] {
  let out = cache.get(evidence);
  if (out) return out;
  const rooms = new Map<string, TracedRoom>();
  for (const ev of evidence.of(TelemetryKind.span)) {
    const span = decodeAs(ev, TelemetryKind.span);
    if (span?.room === undefined) continue;
    let r = rooms.get(span.room);
    if (!r) rooms.set(span.room, (r = { room: span.room, rid: span.rid ?? null, stages: [], finished: false, sidesDone: new Set() }));
    r.rid ??= span.rid ?? null;
    const spec = span.stage === undefined ? undefined : SGLANG_STAGES[span.stage];
    if (spec) {
      r.stages.push({ ev, stage: span.stage!, side: spec.side });
      if (spec.finishes) r.sidesDone.add(spec.side);
    } else if (span.stage === undefined) r.finished = true;
  }
  out = [...rooms.values()].filter((r) => r.stages.length > 0);
  cache.set(evidence, out);
  return out;
}

/** A room whose trace stopped on a side: stages ended there, nothing after them, no finish, long before the incident ends. */
export interface StoppedRoom {
  room: string;
  rid: string | null;
  /** Its last completed stage on each side that stopped short of its end. */
  lastStages: StageSlice[];
  /** The latest of them: the room's last sign of progress. */
  lastProgress: StageSlice;
}

export function stoppedRooms(evidence: Evidence, quietUs: number): StoppedRoom[] {
  const endUs = evidence.endUs();
  const out: StoppedRoom[] = [];
  for (const r of tracedRooms(evidence)) {
    if (r.finished) continue;
    const lastBySide = new Map<string, StageSlice>();
    for (const s of r.stages) if (!r.sidesDone.has(s.side)) lastBySide.set(s.side, s);
    if (lastBySide.size === 0) continue;
    const lastStages = [...lastBySide.values()].sort((a, b) => a.ev.tsUs - b.ev.tsUs);
    const lastProgress = lastStages.at(-1)!;
    if (endUs - lastProgress.ev.tsUs < quietUs) continue;
    out.push({ room: r.room, rid: r.rid, lastStages, lastProgress });
  }
  return out.sort((a, b) => a.lastProgress.ev.tsUs - b.lastProgress.ev.tsUs);
}
