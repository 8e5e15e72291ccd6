// Counter tracks: the Prometheus samples of an incident (metric.sample) as
// one track per series and lane, each a time-sorted column of the value the
// timeline draws: a gauge's value, or a counter's rate (its increase per
// second since the sample before; a drop is a restart, counted from zero).
// Built with the timeline index and stored beside it (ui/server/counter-tracks.ts
// answers a window of them).

import type { IncidentDb } from "../../store/db.js";
import { eachSample } from "../../store/read/records.js";
import { TelemetryKind } from "../../domain/kinds.js";

/** A counter track: one Prometheus series of one lane. */
export interface CounterTrack {
  lane: number;
  /** `name{label="v",…}`, the track's label. */
  series: string;
  metric: string;
  /** A counter: its rate per second is drawn, not its value. */
  rate: boolean;
}

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

/** One track's samples as they are read: columns that grow, not an object per sample. */
class TrackSamples {
  ts = new Float64Array(64);
  seq = new Uint32Array(64);
  value = new Float64Array(64);
  length = 0;

  constructor(readonly track: CounterTrack) {}

  push(ts: number, seq: number, value: number): void {
    if (this.length === this.ts.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.ts = grow(this.ts);
      this.seq = grow(this.seq);
      this.value = grow(this.value);
    }
    this.ts[this.length] = ts;
    this.seq[this.length] = seq;
    this.value[this.length] = value;
    this.length++;
  }

  /** Sample positions in time order: samples come in seq order, which is time order unless clocks were aligned across hosts. */
  order(): Uint32Array {
    const order = new Uint32Array(this.length);
    let sorted = true;
    for (let i = 0; i < this.length; i++) {
      order[i] = i;
      if (i > 0 && this.ts[i]! < this.ts[i - 1]!) sorted = false;
    }
    if (!sorted) order.sort((a, b) => this.ts[a]! - this.ts[b]! || this.seq[a]! - this.seq[b]!);
    return order;
  }
}

export function buildCounterTracks(db: IncidentDb, at: SamplePlacement): CounterColumns {
  // By lane, then series: no key string is built per sample (a day of samples is half a million).
  const byLane = new Map<number, Map<string, TrackSamples>>();
  let n = 0;
  eachSample(db, TelemetryKind.metricSample, (row) => {
    const seq = row.seq;
    const pos = at.posOf(seq);
    const value = row.attr("value");
    const metric = row.attr("metric");
    if (pos === undefined || typeof value !== "number" || !Number.isFinite(value) || typeof metric !== "string") return;
    const seriesText = row.attr("series");
    const series = typeof seriesText === "string" ? seriesText : metric;
    const lane = at.lane[pos]!;
    let ofLane = byLane.get(lane);
    if (!ofLane) byLane.set(lane, (ofLane = new Map()));
    let t = ofLane.get(series);
    if (!t) ofLane.set(series, (t = new TrackSamples({ lane, series, metric, rate: isRising(metric, row.attr("metricType")) })));
    t.push(at.ts[pos]!, seq, value);
    n++;
  });
  const tracks = [...byLane.values()].flatMap((m) => [...m.values()]).sort((a, b) => a.track.lane - b.track.lane || a.track.series.localeCompare(b.track.series));
  // At most n points: a counter's first sample has no rate.
  const out: CounterColumns = { tracks: [], ts: new Float64Array(n), value: new Float64Array(n), seq: new Uint32Array(n) };
  let end = 0;
  for (const t of tracks) {
    const first = end;
    end = t.track.rate ? writeRates(t, out, end) : writeValues(t, out, end);
    out.tracks.push({ ...t.track, first, count: end - first });
  }
  return { ...out, ts: out.ts.subarray(0, end), value: out.value.subarray(0, end), seq: out.seq.subarray(0, end) };
}

function writeValues(t: TrackSamples, out: CounterColumns, at: number): number {
  for (const i of t.order()) {
    out.ts[at] = t.ts[i]!;
    out.value[at] = t.value[i]!;
    out.seq[at] = t.seq[i]!;
    at++;
  }
  return at;
}

/** A counter's increase per second between consecutive samples; a drop means it restarted from zero. */
function writeRates(t: TrackSamples, out: CounterColumns, at: number): number {
  const order = t.order();
  for (let k = 1; k < order.length; k++) {
    const prev = order[k - 1]!;
    const i = order[k]!;
    const dtS = (t.ts[i]! - t.ts[prev]!) / 1e6;
    if (dtS <= 0) continue;
    const increase = t.value[i]! >= t.value[prev]! ? t.value[i]! - t.value[prev]! : t.value[i]!;
    out.ts[at] = t.ts[i]!;
    out.value[at] = increase / dtS;
    out.seq[at] = t.seq[i]!;
    at++;
  }
  return at;
}
