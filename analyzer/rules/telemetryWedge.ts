// What the operator's telemetry adds to transfer-stall's wedge: queue series
// frozen above zero while work arrived, and rooms whose traces stopped
// (analyzer/telemetry/). The wedge is one finding whatever shows it — batch
// lines, series, spans — with witnesses from each (transferStall.ts).

import type { StoredEvent } from "../../store/read/events.js";
import { frozenQueues, type FrozenQueue } from "../telemetry/series.js";
import { stoppedRooms, type StoppedRoom } from "../telemetry/spans.js";
import { isoTime, seconds, type Evidence } from "./evidence.js";

/** A room whose trace shows no progress for this long before the incident ends has stopped (not merely not yet done). */
export const TRACE_QUIET_US = 120_000_000;
/** Rooms named one by one in an explanation; the rest are counted. */
const ROOMS_NAMED = 3;

export interface TelemetryWedge {
  frozen: FrozenQueue[];
  stopped: StoppedRoom[];
}

export function telemetryWedge(evidence: Evidence): TelemetryWedge {
  return { frozen: frozenQueues(evidence), stopped: stoppedRooms(evidence, TRACE_QUIET_US) };
}

export function isEmpty(w: TelemetryWedge): boolean {
  return w.frozen.length === 0 && w.stopped.length === 0;
}

/** When the wedge shows first in the telemetry. */
export function telemetryStartUs(w: TelemetryWedge): number | undefined {
  const times = [...w.frozen.map((f) => f.first.ev.tsUs), ...w.stopped.map((r) => r.lastProgress.ev.tsUs)];
  return times.length ? Math.min(...times) : undefined;
}

export function telemetryWitness(w: TelemetryWedge): StoredEvent[] {
  return [
    ...w.frozen.flatMap((f) => [f.first.ev, f.last.ev, f.arrivals.to.ev]),
    ...w.stopped.slice(0, ROOMS_NAMED).map((r) => r.lastProgress.ev),
  ];
}

export function describeFrozen(evidence: Evidence, f: FrozenQueue): string {
  const a = f.arrivals;
  return (
    `${f.series.rank}'s ${f.series.spec.label} (${f.series.metric}) held ${f.value} on ${f.samples} samples over ${seconds(f.last.ev.tsUs - f.first.ev.tsUs)} ` +
    `(${evidence.where(f.first.ev)} to ${evidence.where(f.last.ev)}) while its ${a.series.spec.label} (${a.series.metric}) rose from ${a.from.value} to ${a.to.value} (${evidence.where(a.to.ev)})`
  );
}

export function describeStopped(evidence: Evidence, rooms: readonly StoppedRoom[]): string {
  const named = rooms.slice(0, ROOMS_NAMED).map((r) => {
    const last = r.lastStages.map((s) => `${s.side} ${s.stage} ended ${isoTime(s.ev.tsUs)}`).join(", ");
    return `room ${r.room} (${last}; ${evidence.where(r.lastProgress.ev)})`;
  });
  const more = rooms.length > ROOMS_NAMED ? ` and ${rooms.length - ROOMS_NAMED} more` : "";
  return `the traces of ${rooms.length} room(s) stop with no later stage and no finish: ${named.join("; ")}${more}`;
}
