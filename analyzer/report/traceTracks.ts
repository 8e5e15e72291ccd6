// Where the timeline's parts go in a Chrome trace: one process per host and
// role (a lane group of the timeline), one thread per lane (host / role / rank
// / component) for its events, and beside it threads for the lane's spans.
// Slices of one thread must nest (Perfetto draws a slice that overlaps another
// without nesting wrongly), while the timeline's spans overlap freely — the
// 58 rooms of a wedge wait out the same 300 s together — so each kind of span
// of a lane is laid in the fewest rows that hold it with no overlap, a thread
// each. Processes and threads are numbered and sorted in the timeline's lane
// order (host, then router / prefill / decode, then rank, then component).

import type { Lane } from "../timeline/lanes.js";
import { SPAN_TYPE_NAMES } from "../timeline/spanTypes.js";
import type { SpanColumns } from "../timeline/timelineDetails.js";

export interface TraceProcess {
  pid: number;
  name: string;
}

export interface TraceThread {
  pid: number;
  tid: number;
  name: string;
}

export interface TraceTracks {
  processes: TraceProcess[];
  /** Every thread, in display order. */
  threads: TraceThread[];
  /** The thread of each lane's events, by lane id. */
  laneThread: TraceThread[];
  /** The thread of each span's row, by the span's index in the span columns. */
  spanThread: TraceThread[];
}

/** A lane's name within its process: "TP3 transfer", "no rank logs". */
export function laneName(lane: Lane): string {
  return `${lane.rank} ${lane.component}`;
}

/** Processes, threads and each span's row for the timeline's lanes (in display order) and spans (in start order), as the index keeps them. */
export function layTracks(lanes: readonly Lane[], spans: SpanColumns): TraceTracks {
  const rows = spanRows(spans);
  const processes: TraceProcess[] = [];
  const pidOf = new Map<string, number>();
  for (const lane of lanes) {
    if (!pidOf.has(lane.group)) {
      pidOf.set(lane.group, processes.length + 1);
      processes.push({ pid: processes.length + 1, name: lane.group });
    }
  }
  // Thread ids follow the process ids, so that no thread id is also a process id.
  let nextTid = processes.length + 1;
  const threads: TraceThread[] = [];
  const newThread = (pid: number, name: string) => {
    const thread = { pid, tid: nextTid++, name };
    threads.push(thread);
    return thread;
  };
  const laneThread: TraceThread[] = [];
  const rowThread = new Map<number, TraceThread[]>();
  for (const lane of lanes) {
    const pid = pidOf.get(lane.group)!;
    laneThread[lane.id] = newThread(pid, laneName(lane));
    SPAN_TYPE_NAMES.forEach((typeName, type) => {
      const count = rows.count.get(rowKey(lane.id, type)) ?? 0;
      const of = Array.from({ length: count }, (_, row) => newThread(pid, `${laneName(lane)} · ${typeName}${row > 0 ? ` ${row + 1}` : ""}`));
      if (count) rowThread.set(rowKey(lane.id, type), of);
    });
  }
  const spanThread = Array.from(rows.row, (row, i) => rowThread.get(rowKey(spans.lane[i]!, spans.type[i]!))![row]!);
  return { processes, threads, laneThread, spanThread };
}

/**
 * Where each event's slice sits in its microsecond, by its place in the
 * index: the events of one lane and one time (a log without milliseconds
 * stamps many alike) share the microsecond in seq order, each its `slot` of
 * `of` parts (slotSlice), so that no event's slice holds another's and each
 * flow binds to its own event.
 */
export function eventSlots(ts: Float64Array, lane: Uint16Array): { slot: Uint32Array; of: Uint32Array } {
  const slot = new Uint32Array(ts.length);
  const of = new Uint32Array(ts.length).fill(1);
  for (let i = 0, j = 0; i < ts.length; i = j) {
    while (j < ts.length && ts[j] === ts[i]) j++;
    if (j - i === 1) continue;
    const byLane = new Map<number, number[]>();
    for (let p = i; p < j; p++) {
      const positions = byLane.get(lane[p]!);
      if (positions) positions.push(p);
      else byLane.set(lane[p]!, [p]);
    }
    for (const positions of byLane.values()) {
      positions.forEach((p, k) => {
        slot[p] = k;
        of[p] = positions.length;
      });
    }
  }
  return { slot, of };
}

/**
 * The part of its microsecond an event's slice takes: all of it when the
 * event is alone there, else its share in whole nanoseconds (Perfetto keeps
 * times in ns), one nanosecond short of the next share, so that no rounding
 * of the microseconds written makes two slices overlap.
 */
export function slotSlice(slot: number, of: number): { offsetUs: number; durUs: number } {
  if (of === 1) return { offsetUs: 0, durUs: 1 };
  const shareNs = 1000 / of;
  return { offsetUs: Math.floor(slot * shareNs) / 1000, durUs: Math.max(0, Math.floor(shareNs) - 1) / 1000 };
}

const rowKey = (lane: number, type: number) => lane * SPAN_TYPE_NAMES.length + type;

/**
 * Each span's row among the spans of its lane and type, and how many rows
 * each lane and type takes: a span goes to the row that came free first, or a
 * new row when none is free at its start (the fewest rows that hold them all).
 */
function spanRows(spans: SpanColumns): { row: Uint32Array; count: Map<number, number> } {
  const row = new Uint32Array(spans.start.length);
  const free = new Map<number, RowHeap>();
  for (let i = 0; i < spans.start.length; i++) {
    const key = rowKey(spans.lane[i]!, spans.type[i]!);
    let heap = free.get(key);
    if (!heap) free.set(key, (heap = new RowHeap()));
    row[i] = heap.take(spans.start[i]!, spans.end[i]!);
  }
  return { row, count: new Map([...free].map(([key, heap]) => [key, heap.rows])) };
}

/** The rows of one lane and type, least end first (then least row), as a binary heap. */
class RowHeap {
  private readonly heap: { end: number; row: number }[] = [];

  get rows(): number {
    return this.heap.length;
  }

  /** The row for a span [start, end]: the one that came free first if it is free by `start`, else a new one. */
  take(start: number, end: number): number {
    const top = this.heap[0];
    if (top !== undefined && top.end <= start) {
      top.end = end;
      this.down(0);
      return top.row;
    }
    this.heap.push({ end, row: this.heap.length });
    this.up(this.heap.length - 1);
    return this.heap.length - 1;
  }

  private less(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.end < y.end || (x.end === y.end && x.row < y.row);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }

  private up(i: number): void {
    for (let parent = (i - 1) >> 1; i > 0 && this.less(i, parent); i = parent, parent = (i - 1) >> 1) this.swap(i, parent);
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < this.heap.length && this.less(l, least)) least = l;
      if (r < this.heap.length && this.less(r, least)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }
}
