// What the operator's telemetry adds to transfer-stall's wedge: queue series
// frozen above zero while work arrived, and rooms whose traces stopped
// (analyzer/telemetry/). The wedge is one finding whatever shows it — batch
// lines, series, spans — with witnesses from each (transferStall.ts).

import type { StoredEvent } from "../../store/read/events.js";
import { frozenQueues, type FrozenQueue } from "../telemetry/series.js";
import { stoppedRequests, type StoppedRequest } from "../telemetry/spans.js";
import { isoTime, seconds, type Evidence } from "./evidence.js";
import { TelemetryKind } from "../../domain/kinds.js";
import { decodeAs } from "../events/decode.js";
import { GAUGES, gauge } from "./queueGauges.js";

/** A room whose trace shows no progress for this long before the incident ends has stopped (not merely not yet done). */
export const TRACE_QUIET_US = 120_000_000;
/** Requests named one by one in an explanation; the rest are counted. */
const ROOMS_NAMED = 3;

export interface TelemetryWedge {
  frozen: FrozenQueue[];
  stopped: StoppedRequest[];
  /** Per frozen series (same index), the batch lines of its engine that printed the same value during the freeze. */
  lines: StoredEvent[][];
  /** Requests a crash dump held unfinished: rooms that never finished, named where the traces cannot name them. */
  unfinished: StoredEvent[];
}

export function telemetryWedge(evidence: Evidence): TelemetryWedge {
  const frozen = frozenQueues(evidence);
  return { frozen, stopped: stoppedRequests(evidence, TRACE_QUIET_US), lines: frozen.map((f) => sameValueLines(evidence, f)), unfinished: unfinishedRequests(evidence) };
}

function unfinishedRequests(evidence: Evidence): StoredEvent[] {
  return evidence.of(TelemetryKind.crashRequest).filter((ev) => {
    const req = decodeAs(ev, TelemetryKind.crashRequest);
    return req?.finished === false && req.room !== undefined;
  });
}

/** What the crash dumps add to a wedge: the rooms they held unfinished. */
export function describeUnfinished(evidence: Evidence, unfinished: readonly StoredEvent[]): string {
  const rooms = unfinished.map((e) => e.room!);
  const named = rooms.slice(0, ROOMS_NAMED).join(", ") + (rooms.length > ROOMS_NAMED ? ` and ${rooms.length - ROOMS_NAMED} more` : "");
  return `a crash dump holds ${rooms.length} request(s) that never finished, rooms ${named} (${evidence.where(unfinished[0]!)})`;
}

/**
 * A batch line prints the queue the series exports, from the same stats call
 * (domain/telemetry.ts batchField): lines of the series' engine that print
 * the frozen value inside the freeze are the same wedge seen in the logs. A
 * series names its host as Prometheus scraped it (the `instance` address),
 * which a log folder rarely shares: when no log is of that host, the lines of
 * the same role are the engine's.
 */
function sameValueLines(evidence: Evidence, f: FrozenQueue): StoredEvent[] {
  const g = GAUGES.find((x) => x.field === f.series.spec.batchField);
  if (!g) return [];
  const [fromUs, toUs] = [f.first.ev.tsUs, f.last.ev.tsUs];
  const { host, role } = f.first.ev;
  const all = evidence.of(g.kind);
  const hostLogs = all.some((e) => e.host === host);
  return all.filter((e) =>
    e.tsUs >= fromUs && e.tsUs <= toUs && gauge(e, g.field) === f.value &&
    (hostLogs ? e.host === host : role === null || e.role === null || e.role === role));
}

export function isEmpty(w: TelemetryWedge): boolean {
  return w.frozen.length === 0 && w.stopped.length === 0;
}

/** When the wedge shows first in the telemetry. */
export function telemetryStartUs(w: TelemetryWedge): number | undefined {
  const times = [...w.frozen.map((f) => f.first.ev.tsUs), ...w.stopped.map((r) => r.lastProgress.tsUs)];
  return times.length ? Math.min(...times) : undefined;
}

export function telemetryWitness(w: TelemetryWedge): StoredEvent[] {
  return [
    ...w.frozen.flatMap((f, i) => [f.first.ev, f.last.ev, f.arrivals.to.ev, ...firstAndLast(w.lines[i] ?? [])]),
    ...w.stopped.slice(0, ROOMS_NAMED).map((r) => r.lastProgress),
    ...w.unfinished.slice(0, ROOMS_NAMED),
  ];
}

function firstAndLast(evs: readonly StoredEvent[]): StoredEvent[] {
  return evs.length > 1 ? [evs[0]!, evs.at(-1)!] : [...evs];
}

export function describeFrozen(evidence: Evidence, f: FrozenQueue, lines: readonly StoredEvent[]): string {
  const a = f.arrivals;
  const logged = lines.length
    ? `; its batch lines print ${f.series.spec.batchField}: ${f.value} ${lines.length} time(s) meanwhile (${evidence.where(lines[0]!)}${lines.length > 1 ? ` to ${evidence.where(lines.at(-1)!)}` : ""})`
    : "";
  return (
    `${f.series.rank}'s ${f.series.spec.label} (${f.series.metric}) held ${f.value} on ${f.samples} samples over ${seconds(f.last.ev.tsUs - f.first.ev.tsUs)} ` +
    `(${evidence.where(f.first.ev)} to ${evidence.where(f.last.ev)}) while its ${a.series.spec.label} (${a.series.metric}) rose from ${a.from.value} to ${a.to.value} (${evidence.where(a.to.ev)})${logged}`
  );
}

export function describeStopped(evidence: Evidence, stopped: readonly StoppedRequest[]): string {
  const named = stopped.slice(0, ROOMS_NAMED).map((r) => {
    const last = r.lastStages.map((s) => `${s.side} ${s.stage} ended ${isoTime(s.ev.tsUs)}`).join(", ");
    return `${r.room !== null ? `room ${r.room}` : `trace ${r.traceId}`} (${last}; ${evidence.where(r.lastProgress)})`;
  });
  const more = stopped.length > ROOMS_NAMED ? ` and ${stopped.length - ROOMS_NAMED} more` : "";
  const roomless = stopped.filter((r) => r.room === null).length;
  const why = roomless > 0
    ? ` (${roomless === stopped.length ? "none" : `${roomless} of them`} name${roomless === 1 ? "s" : ""} a room: SGLang names it only on the spans that end with the request)`
    : "";
  return `the traces of ${stopped.length} request(s) stop with no later stage and no finish${why}: ${named.join("; ")}${more}`;
}
