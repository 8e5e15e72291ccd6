// Counter tracks: the Prometheus samples of an incident (metric.sample) as
// one track per series and lane, each a time-sorted column of the value the
// timeline draws: a gauge's value, or a counter's rate (its increase per
// second since the sample before; a drop is a restart, counted from zero).
// Built with the timeline index and stored beside it; a window query reduces
// each track to the least and greatest point per pixel column, so a day of
// 15 s samples answers in a size bounded by the window's width in pixels.

import type { IncidentDb } from "../../store/db.js";
import { sampleRows } from "../../store/read/records.js";
import { TelemetryKind } from "../../domain/kinds.js";
import type { CounterTrack, CounterPoints, CountersAnswer } from "../wire.js";
import { lowerBound } from "./sorted.js";

/** Every track's samples back to back, track by track, in time order within each. */
export interface CounterColumns {
  /** Per track: where its samples sit in the columns ([first, first + count)). */
  tracks: (CounterTrack & { first: number; count: number })[];
  ts: Float64Array;
  /** What is drawn: the gauge's value, or the counter's rate per second (a counter's first sample has none and is left out). */
  value: Float64Array;
  /** The sample's event (for a rate, the sample that ends its interval). */
  seq: Uint32Array;
}

export interface SamplePlacement {
  posOf(seq: number): number | undefined;
  ts: Float64Array;
  lane: Uint16Array;
}

const COUNTER_PARTS = /_(bucket|count|sum)$/;

/** Counters, and the bucket, count and sum series of histograms and summaries, rise: their rate is drawn. */
function isRising(metric: string, metricType: unknown): boolean {
  if (metricType === "counter") return true;
  if (metricType === "histogram" || metricType === "summary") return COUNTER_PARTS.test(metric);
  return metricType !== "gauge" && metric.endsWith("_total");
}

function inTimeOrder(samples: readonly Sample[]): boolean {
  for (let i = 1; i < samples.length; i++) if (samples[i]!.ts < samples[i - 1]!.ts) return false;
  return true;
}

interface Sample {
  ts: number;
  seq: number;
  value: number;
}

export function buildCounterTracks(db: IncidentDb, at: SamplePlacement): CounterColumns {
  // By lane, then series: no key string is built per sample (a day of samples is half a million).
  const byLane = new Map<number, Map<string, { track: CounterTrack; samples: Sample[] }>>();
  for (const [seq, value, metric, seriesText, metricType] of sampleRows(db, TelemetryKind.metricSample)) {
    const pos = at.posOf(seq);
    if (pos === undefined || typeof value !== "number" || !Number.isFinite(value) || typeof metric !== "string") continue;
    const series = typeof seriesText === "string" ? seriesText : metric;
    const lane = at.lane[pos]!;
    let ofLane = byLane.get(lane);
    if (!ofLane) byLane.set(lane, (ofLane = new Map()));
    let t = ofLane.get(series);
    if (!t) ofLane.set(series, (t = { track: { lane, series, metric, rate: isRising(metric, metricType) }, samples: [] }));
    t.samples.push({ ts: at.ts[pos]!, seq, value });
  }
  const tracks = [...byLane.values()].flatMap((m) => [...m.values()]).sort((a, b) => a.track.lane - b.track.lane || a.track.series.localeCompare(b.track.series));
  const points = tracks.map(({ track, samples }) => {
    // Samples come in seq order, which is time order unless clocks were aligned across hosts: sort only then.
    if (!inTimeOrder(samples)) samples.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    return track.rate ? rates(samples) : samples;
  });
  const n = points.reduce((sum, p) => sum + p.length, 0);
  const out: CounterColumns = { tracks: [], ts: new Float64Array(n), value: new Float64Array(n), seq: new Uint32Array(n) };
  let at0 = 0;
  tracks.forEach(({ track }, i) => {
    const p = points[i]!;
    out.tracks.push({ ...track, first: at0, count: p.length });
    for (const s of p) {
      out.ts[at0] = s.ts;
      out.value[at0] = s.value;
      out.seq[at0] = s.seq;
      at0++;
    }
  });
  return out;
}

/** A counter's increase per second between consecutive samples; a drop means it restarted from zero. */
function rates(samples: readonly Sample[]): Sample[] {
  const out: Sample[] = [];
  for (let i = 1; i < samples.length; i++) {
    const prev = samples[i - 1]!;
    const s = samples[i]!;
    const dtS = (s.ts - prev.ts) / 1e6;
    if (dtS <= 0) continue;
    const increase = s.value >= prev.value ? s.value - prev.value : s.value;
    out.push({ ts: s.ts, seq: s.seq, value: increase / dtS });
  }
  return out;
}

export interface CounterWish {
  fromUs: number;
  toUs: number;
  /** Pixel columns across [fromUs, toUs). */
  px: number;
  /** Only the tracks of these lanes; all when absent. */
  lanes?: readonly number[];
}

/**
 * Each track's points in [fromUs, toUs), at most the least and the greatest
 * per pixel column (in time order), with the nearest point either side of
 * the window so that the line runs to its edges: at most 2·px + 2 a track.
 */
export function queryCounters(c: CounterColumns, w: CounterWish): CountersAnswer {
  const lanes = w.lanes && new Set(w.lanes);
  const usPerPx = (w.toUs - w.fromUs) / w.px;
  const tracks: CounterPoints[] = [];
  c.tracks.forEach((t, track) => {
    if (lanes && !lanes.has(t.lane)) return;
    const end = t.first + t.count;
    const i0 = lowerBound(c.ts, w.fromUs, t.first, end);
    const i1 = lowerBound(c.ts, w.toUs, i0, end);
    const out: CounterPoints = { track, ts: [], value: [], seq: [] };
    const push = (i: number) => {
      out.ts.push(c.ts[i]!);
      out.value.push(c.value[i]!);
      out.seq.push(c.seq[i]!);
    };
    if (i0 > t.first) push(i0 - 1);
    let i = i0;
    while (i < i1) {
      const column = Math.floor((c.ts[i]! - w.fromUs) / usPerPx);
      const columnEnd = Math.min(i1, lowerBound(c.ts, w.fromUs + (column + 1) * usPerPx, i + 1, i1));
      let lo = i;
      let hi = i;
      for (let j = i + 1; j < columnEnd; j++) {
        if (c.value[j]! < c.value[lo]!) lo = j;
        if (c.value[j]! > c.value[hi]!) hi = j;
      }
      push(Math.min(lo, hi));
      if (lo !== hi) push(Math.max(lo, hi));
      i = columnEnd;
    }
    if (i1 < end) push(i1);
    if (out.ts.length) tracks.push(out);
  });
  return { fromUs: w.fromUs, toUs: w.toUs, px: w.px, tracks };
}
