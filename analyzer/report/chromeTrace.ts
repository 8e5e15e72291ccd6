// Export to the Chrome trace event format (JSON object form), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: what the timeline shows, read
// through the timeline's own functions (analyzer/timeline/). One process per
// host and role, one thread per lane, and threads for each lane's spans
// (traceTracks.ts). In them: the timeline's spans with their durations
// (transfers, rooms' pages, collectives, waits, trace stages); every event as
// a slice in its microsecond carrying its source line; every room's causal
// arrows as flow events; the counter tracks and the batch lines' queue gauges
// as counters; the violated findings as instants. Times are microseconds from
// the earliest instant the trace holds (the absolute start is in
// `otherData`). Events are written as they are read; the timeline index is
// held, as the web UI holds it.

import { readAnalysisRows } from "../../store/read/analysis.js";
import type { IncidentDb } from "../../store/db.js";
import { iterateEvents, type StoredEvent } from "../../store/read/events.js";
import { Evidence, isoTime } from "../rules/evidence.js";
import { findingSchema } from "../rules/finding.js";
import { incidentFlows } from "../timeline/flows.js";
import { SPAN_TYPE_NAMES } from "../timeline/spanTypes.js";
import { placeEvents, positionOfSeq, type TimelineIndex } from "../timeline/timelineIndex.js";
import { timelineIndexOf } from "../timeline/timelineStore.js";
import { eventSlots, laneName, layTracks, slotSlice, type TraceTracks } from "./traceTracks.js";

type Args = Record<string, unknown>;

interface OnThread {
  ts: number;
  pid: number;
  tid: number;
}

/** The events this export writes (Trace Event Format phases X, i, s, f, C, M). */
type TraceEvent =
  | ({ ph: "X"; name: string; cat: string; dur: number; args: Args } & OnThread)
  | ({ ph: "i"; s: "g"; name: string; cat: string; args: Args } & OnThread)
  | ({ ph: "s"; id: number; name: string; cat: string; args: Args } & OnThread)
  | ({ ph: "f"; bp: "e"; id: number; name: string; cat: string; args: Args } & OnThread)
  | ({ ph: "C"; name: string; args: Record<string, number> } & OnThread)
  | { ph: "M"; name: "process_name" | "process_sort_index"; pid: number; args: Args }
  | { ph: "M"; name: "thread_name" | "thread_sort_index"; pid: number; tid: number; args: Args };

/** The queue gauges batch lines print, drawn as counters. */
const GAUGE_FIELDS = ["#transfer-req", "#inflight-req", "#bootstrap-req", "#prealloc-req", "#running-req", "#queue-req", "token usage"];
const TEXT_MAX = 400;

interface Trace {
  idx: TimelineIndex;
  tracks: TraceTracks;
  /** The trace's zero, in the incident's microseconds. */
  t0: number;
  /** The slice of the event at a position of the index, on the trace's time: within the microsecond it was stamped in (times are whole µs). */
  eventSlice(pos: number): { ts: number; dur: number };
  emit(e: TraceEvent): void;
}

export function exportChromeTrace(db: IncidentDb, write: (chunk: string) => void): { traceEvents: number } {
  const idx = timelineIndexOf(db);
  // A wait is drawn back from its line, so a span may start before the first event.
  const t0 = Math.min(idx.firstTsUs ?? 0, idx.spans.start[0] ?? Infinity);
  let count = 0;
  const emit = (e: TraceEvent): void => {
    write(`${count === 0 ? "" : ",\n"}${JSON.stringify(e)}`);
    count++;
  };
  write('{"traceEvents":[\n');
  const slots = eventSlots(idx.ts, idx.lane);
  const eventSlice = (pos: number) => {
    const { offsetUs, durUs } = slotSlice(slots.slot[pos]!, slots.of[pos]!);
    return { ts: idx.ts[pos]! - t0 + offsetUs, dur: durUs };
  };
  const trace: Trace = { idx, tracks: layTracks(idx.lanes, idx.spans), t0, eventSlice, emit };
  emitTracks(trace);
  emitSpans(trace);
  emitEvents(trace, db);
  emitFlows(trace, db);
  emitCounters(trace);
  emitFindings(trace, db);
  write(`\n],"displayTimeUnit":"ms","otherData":${JSON.stringify({ source: "kvrewind", startUs: t0, start: isoTime(t0) })}}\n`);
  return { traceEvents: count };
}

/** Names and display order of every process and thread. */
function emitTracks({ tracks, emit }: Trace): void {
  tracks.processes.forEach(({ pid, name }, order) => {
    emit({ ph: "M", name: "process_name", pid, args: { name } });
    emit({ ph: "M", name: "process_sort_index", pid, args: { sort_index: order } });
  });
  tracks.threads.forEach(({ pid, tid, name }, order) => {
    emit({ ph: "M", name: "thread_name", pid, tid, args: { name } });
    emit({ ph: "M", name: "thread_sort_index", pid, tid, args: { sort_index: order } });
  });
}

/** The timeline's spans, each on its row's thread, named as the timeline labels it; `seq` is the event that defines it. */
function emitSpans({ idx, tracks, t0, emit }: Trace): void {
  const s = idx.spans;
  for (let i = 0; i < s.start.length; i++) {
    const { pid, tid } = tracks.spanThread[i]!;
    const room = idx.spanRooms[s.room[i]!];
    const args = { seq: s.seq[i]!, ...(room && { room }), ...(s.open[i] && { open: true }) };
    emit({ ph: "X", name: idx.labels[s.label[i]!]!, cat: SPAN_TYPE_NAMES[s.type[i]!]!, ts: s.start[i]! - t0, dur: s.end[i]! - s.start[i]!, pid, tid, args });
  }
}

/** Every event as a short slice on its lane's thread, and a batch line's queue gauges as counters. */
function emitEvents({ idx, tracks, t0, eventSlice, emit }: Trace, db: IncidentDb): void {
  const evidence = new Evidence(db);
  for (const ev of iterateEvents(db)) {
    const pos = positionOfSeq(idx, ev.seq);
    if (pos === undefined) continue;
    const lane = idx.lane[pos]!;
    const { pid, tid } = tracks.laneThread[lane]!;
    const { ts, dur } = eventSlice(pos);
    const label = idx.labels[idx.label[pos]!];
    emit({ ph: "X", name: ev.kind, cat: ev.kind.split(".")[0]!, ts, dur, pid, tid, args: argsOf(evidence, ev, label) });
    if (!ev.kind.startsWith("batch.")) continue;
    for (const field of GAUGE_FIELDS) {
      const value = ev.attrs?.[field];
      if (typeof value === "number") emit({ ph: "C", name: `${laneName(idx.lanes[lane]!)} ${field}`, ts: ev.tsUs - t0, pid, tid, args: { value } });
    }
  }
}

/**
 * The arrows the timeline draws for each room (post → notify → poll → read,
 * abort → ABORT frame → bootstrap thread) as flows. Perfetto binds a flow end
 * to the slice open on its thread at its time: each end is in the middle of
 * its event's slice, where no other slice is open.
 */
function emitFlows({ idx, tracks, eventSlice, emit }: Trace, db: IncidentDb): void {
  const at = (seq: number): OnThread | undefined => {
    const pos = positionOfSeq(idx, seq);
    if (pos === undefined) return undefined;
    const { pid, tid } = tracks.laneThread[idx.lane[pos]!]!;
    const slice = eventSlice(pos);
    return { ts: slice.ts + slice.dur / 2, pid, tid };
  };
  let id = 0;
  for (const { room, edges } of incidentFlows(db, idx.landings)) {
    for (const edge of edges) {
      const from = at(edge.from);
      const to = at(edge.to);
      if (!from || !to) continue;
      id++;
      const common = { id, name: edge.label, cat: "flow", args: { room } };
      emit({ ph: "s", ...common, ts: from.ts, pid: from.pid, tid: from.tid });
      emit({ ph: "f", bp: "e", ...common, ts: to.ts, pid: to.pid, tid: to.tid });
    }
  }
}

/** The timeline's counter tracks: a gauge's value, or a counter's rate per second. */
function emitCounters({ idx, tracks, t0, emit }: Trace): void {
  const c = idx.counters;
  for (const track of c.tracks) {
    const { pid, tid } = tracks.laneThread[track.lane]!;
    const name = `${laneName(idx.lanes[track.lane]!)} ${track.series}`;
    const key = track.rate ? "per s" : "value";
    for (let i = track.first; i < track.first + track.count; i++) emit({ ph: "C", name, ts: c.ts[i]! - t0, pid, tid, args: { [key]: c.value[i]! } });
  }
}

const witnessOnly = findingSchema.pick({ witness: true });

/** Each violated finding as a global instant where the timeline flags it (its first witness), else at its own time. */
function emitFindings({ idx, t0, emit }: Trace, db: IncidentDb): void {
  for (const f of readAnalysisRows(db)?.findings ?? []) {
    if (f.verdict !== "violated") continue;
    const tsUs = placeEvents(idx, f.witnessSeqs)[0]?.tsUs ?? f.tsUs;
    if (tsUs === null) continue;
    const witness = witnessOnly.parse(f.body).witness.map((w) => `${w.source}:${w.line}`);
    const args = { id: f.id, title: f.title, rule: f.rule, severity: f.severity, witness };
    emit({ ph: "i", s: "g", name: `${f.id} ${f.rule}`, cat: "finding", ts: tsUs - t0, pid: 0, tid: 0, args });
  }
}

function argsOf(evidence: Evidence, ev: StoredEvent, label: string | undefined): Args {
  return {
    seq: ev.seq,
    line: evidence.where(ev),
    ...(label && { label }),
    ...(ev.room !== null && { room: ev.room }),
    ...(ev.rid !== null && { rid: ev.rid }),
    ...(ev.chunk !== null && { chunk: ev.chunk }),
    ...(ev.state !== null && { state: ev.state }),
    text: ev.text.length > TEXT_MAX ? `${ev.text.slice(0, TEXT_MAX)}…` : ev.text,
  };
}
