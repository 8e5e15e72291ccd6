// Window queries over the timeline index: the events of a time span (or
// their counts per lane and slice when there are too many), the spans that
// overlap it, and the whole incident's density per lane group for the
// overview strip.

import type { BucketColumns, OverviewAnswer, SpanWire, WindowColumns } from "../wire.js";
import type { TimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { lowerBound } from "./sorted.js";

export interface WindowWish {
  fromUs: number;
  toUs: number;
  buckets: number;
  maxEvents: number;
  /** Kind ids left out of the answer (the page's kind filter). */
  hideKinds?: readonly number[];
  /** Span types left out. */
  hideSpans?: readonly number[];
  maxSpans?: number;
}

const DEFAULT_MAX_SPANS = 4000;

/**
 * The events of [fromUs, toUs) when there are at most maxEvents of them;
 * otherwise the window cut into `buckets` equal slices per lane. Either way
 * with the spans that overlap the window.
 */
export function queryWindow(idx: TimelineIndex, w: WindowWish): WindowColumns {
  const i0 = lowerBound(idx.ts, w.fromUs);
  const i1 = lowerBound(idx.ts, w.toUs);
  const hidden = new Uint8Array(idx.kinds.length);
  for (const k of w.hideKinds ?? []) if (k < hidden.length) hidden[k] = 1;
  const filtered = (w.hideKinds ?? []).length > 0;
  let total = i1 - i0;
  if (filtered) {
    total = 0;
    for (let i = i0; i < i1; i++) total += 1 - hidden[idx.kind[i]!]!;
  }
  const spans = spansIn(idx, w.fromUs, w.toUs, w.maxSpans ?? DEFAULT_MAX_SPANS, new Set(w.hideSpans ?? []));
  if (total <= w.maxEvents) {
    const take = <T extends { [i: number]: number }>(col: T): number[] => {
      const out: number[] = [];
      for (let i = i0; i < i1; i++) if (!filtered || !hidden[idx.kind[i]!]) out.push(col[i]!);
      return out;
    };
    const { fromUs, toUs } = w;
    return { mode: "events", fromUs, toUs, total, seq: take(idx.seq), ts: take(idx.ts), lane: take(idx.lane), kind: take(idx.kind), tone: take(idx.tone), time: take(idx.timeQuality), label: take(idx.label), spans };
  }
  const { buckets } = w;
  const bucketUs = (w.toUs - w.fromUs) / buckets;
  const counts = new Uint32Array(idx.lanes.length * buckets);
  const tones = new Uint8Array(idx.lanes.length * buckets);
  for (let i = i0; i < i1; i++) {
    if (filtered && hidden[idx.kind[i]!]) continue;
    const b = Math.min(buckets - 1, Math.floor((idx.ts[i]! - w.fromUs) / bucketUs));
    const cell = idx.lane[i]! * buckets + b;
    counts[cell]!++;
    if (idx.tone[i]! > tones[cell]!) tones[cell] = idx.tone[i]!;
  }
  const out: BucketColumns = { mode: "buckets", fromUs: w.fromUs, toUs: w.toUs, total, bucketUs, buckets, lane: [], bucket: [], count: [], tone: [], spans };
  for (let cell = 0; cell < counts.length; cell++) {
    const c = counts[cell]!;
    if (c === 0) continue;
    out.lane.push(Math.floor(cell / buckets));
    out.bucket.push(cell % buckets);
    out.count.push(c);
    out.tone.push(tones[cell]!);
  }
  return out;
}

/**
 * Spans overlapping [fromUs, toUs). Short spans (at most shortSpanUs) are
 * found from their start; the few longer ones are all looked at. When more
 * than `max` overlap, the longest are kept.
 */
function spansIn(idx: TimelineIndex, fromUs: number, toUs: number, max: number, hiddenType: ReadonlySet<number>): SpanWire {
  const s = idx.spans;
  const hits: number[] = [];
  const end = lowerBound(s.start, toUs);
  const consider = (i: number) => {
    if (s.end[i]! >= fromUs && !hiddenType.has(s.type[i]!)) hits.push(i);
  };
  for (let i = lowerBound(s.start, fromUs - idx.shortSpanUs); i < end; i++) if (s.end[i]! - s.start[i]! <= idx.shortSpanUs) consider(i);
  for (let i = 0; i < end; i++) if (s.end[i]! - s.start[i]! > idx.shortSpanUs) consider(i);
  const left = Math.max(0, hits.length - max);
  if (left) hits.sort((a, b) => s.end[b]! - s.start[b]! - (s.end[a]! - s.start[a]!)).splice(max);
  hits.sort((a, b) => a - b);
  const col = <T extends { [i: number]: number }>(c: T) => hits.map((i) => c[i]!);
  const room = hits.map((i) => idx.spanRooms[s.room[i]!] || null);
  return { start: col(s.start), end: col(s.end), lane: col(s.lane), type: col(s.type), open: col(s.open), seq: col(s.seq), label: col(s.label), room, left };
}

/** Event counts and loudest tone per lane group in `buckets` slices of the whole incident. */
export function overview(idx: TimelineIndex, buckets: number): OverviewAnswer {
  const groups: string[] = [];
  const groupOfLane = idx.lanes.map((l) => {
    let g = groups.indexOf(l.group);
    if (g < 0) g = groups.push(l.group) - 1;
    return g;
  });
  const fromUs = idx.firstTsUs ?? 0;
  const toUs = (idx.lastTsUs ?? fromUs) + 1;
  const count = groups.map(() => new Array<number>(buckets).fill(0));
  const tone = groups.map(() => new Array<number>(buckets).fill(0));
  const bucketUs = (toUs - fromUs) / buckets;
  for (let i = 0; i < idx.ts.length; i++) {
    const b = Math.min(buckets - 1, Math.floor((idx.ts[i]! - fromUs) / bucketUs));
    const g = groupOfLane[idx.lane[i]!]!;
    count[g]![b]!++;
    if (idx.tone[i]! > tone[g]![b]!) tone[g]![b] = idx.tone[i]!;
  }
  return { fromUs, toUs, buckets, groups, count, tone, gaps: idx.gaps };
}
