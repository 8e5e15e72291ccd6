// Prometheus series as the checks read them: the `metric.sample` events of
// one series in time order, with what SGLang's series means (domain/telemetry.ts),
// and the three shapes a wedge leaves in them — a queue frozen above zero
// while work arrives, a failure counter that rises, a progress counter that
// stops while the server still answers.

import { TelemetryKind } from "../../domain/kinds.js";
import { seriesSpec, type SeriesMeaning, type SeriesSpec } from "../../domain/telemetry.js";
import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "../rules/evidence.js";

export interface Sample {
  ev: StoredEvent;
  value: number;
}

export interface Series {
  metric: string;
  spec: SeriesSpec;
  /** The engine it belongs to: its host and role (an engine's ranks share its queues' meaning). */
  engine: string;
  rank: string;
  /** Dated samples in time order (a scrape without times says nothing about change). */
  samples: Sample[];
}

const cache = new WeakMap<Evidence, Series[]>();

/** Every SGLang series a check reads, with at least one dated sample. */
export function sglangSeries(evidence: Evidence): Series[] {
  let out = cache.get(evidence);
  if (out) return out;
  const byKey = new Map<string, Series>();
  for (const ev of evidence.of(TelemetryKind.metricSample)) {
    if (ev.timeless) continue;
    const sample = decodeAs(ev, TelemetryKind.metricSample);
    if (sample?.value === undefined || !Number.isFinite(sample.value)) continue;
    const spec = seriesSpec(sample.metric);
    if (spec === undefined) continue;
    // A series is one per host: the same labels scraped from two machines are two series.
    const key = `${ev.host ?? ""}|${sample.series}`;
    let s = byKey.get(key);
    if (!s) {
      s = { metric: sample.metric, spec, engine: `${ev.host ?? ""}/${ev.role ?? "unknown"}`, rank: evidence.rank(ev), samples: [] };
      byKey.set(key, s);
    }
    s.samples.push({ ev, value: sample.value });
  }
  out = [...byKey.values()];
  for (const s of out) s.samples.sort((a, b) => a.ev.tsUs - b.ev.tsUs || a.ev.seq - b.ev.seq);
  cache.set(evidence, out);
  return out;
}

export function seriesOf(evidence: Evidence, meaning: SeriesMeaning): Series[] {
  return sglangSeries(evidence).filter((s) => s.spec.meaning === meaning);
}

/** A queue gauge that held one value above zero while work kept arriving at its engine. */
export interface FrozenQueue {
  series: Series;
  value: number;
  first: Sample;
  last: Sample;
  samples: number;
  /** The arrival series that rose meanwhile, from its reading at the freeze's start to its highest. */
  arrivals: { series: Series; from: Sample; to: Sample };
}

/** A freeze shorter than this, or seen on fewer samples, is a busy queue's pause. */
const SERIES_FREEZE_MIN_US = 120_000_000;
const FREEZE_MIN_SAMPLES = 4;

export function frozenQueues(evidence: Evidence): FrozenQueue[] {
  const arrivals = seriesOf(evidence, "arrivals");
  const out: FrozenQueue[] = [];
  for (const queue of seriesOf(evidence, "transfer-queue")) {
    for (const run of equalRuns(queue.samples)) {
      if (run.value <= 0 || run.last.ev.tsUs - run.first.ev.tsUs < SERIES_FREEZE_MIN_US || run.count < FREEZE_MIN_SAMPLES) continue;
      const rose = arrivals.filter((a) => a.engine === queue.engine).map((a) => riseWithin(a, run.first.ev.tsUs, run.last.ev.tsUs)).find((r) => r !== undefined);
      if (rose) out.push({ series: queue, value: run.value, first: run.first, last: run.last, samples: run.count, arrivals: rose });
    }
  }
  return out.sort((a, b) => a.first.ev.tsUs - b.first.ev.tsUs);
}

interface Run {
  value: number;
  first: Sample;
  last: Sample;
  count: number;
}

/** Maximal runs of one value, in time order. */
function equalRuns(samples: readonly Sample[]): Run[] {
  const runs: Run[] = [];
  for (const s of samples) {
    const run = runs.at(-1);
    if (run && run.value === s.value) {
      run.last = s;
      run.count++;
    } else runs.push({ value: s.value, first: s, last: s, count: 1 });
  }
  return runs;
}

/** The series' rise between two times: its last reading at or before `fromUs` to its highest by `toUs`. */
function riseWithin(series: Series, fromUs: number, toUs: number): FrozenQueue["arrivals"] | undefined {
  let from: Sample | undefined;
  let to: Sample | undefined;
  for (const s of series.samples) {
    if (s.ev.tsUs <= fromUs) from = s;
    else if (s.ev.tsUs <= toUs && from && s.value > (to ?? from).value) to = s;
  }
  return from && to ? { series, from, to } : undefined;
}

/** A counter's rises within the incident: where it first rose, where it last did, and by how much in all. */
export interface CounterRise {
  series: Series;
  /** The reading before the first rise, and the first reading above it. */
  before: Sample;
  first: Sample;
  last: Sample;
  increase: number;
}

export function counterRises(evidence: Evidence, meaning: SeriesMeaning): CounterRise[] {
  const out: CounterRise[] = [];
  for (const series of seriesOf(evidence, meaning)) {
    let rise: CounterRise | undefined;
    for (let i = 1; i < series.samples.length; i++) {
      const prev = series.samples[i - 1]!;
      const cur = series.samples[i]!;
      // A counter that went down was reset (a restart): its new value is what it counted since.
      const gained = cur.value >= prev.value ? cur.value - prev.value : cur.value;
      if (gained <= 0) continue;
      if (!rise) rise = { series, before: prev, first: cur, last: cur, increase: 0 };
      rise.last = cur;
      rise.increase += gained;
    }
    if (rise) out.push(rise);
  }
  return out.sort((a, b) => a.first.ev.tsUs - b.first.ev.tsUs);
}

/**
 * An engine whose forward progress stopped while it had requests to run and
 * its server kept answering scrapes: a hung scheduler. SGLang exports no loop
 * counter (docs/telemetry.md): its progress series count forward work
 * (tokens, forward and GPU seconds), which also stop when the engine is idle
 * or waits on KV — so a stop counts only while the engine's own running or
 * waiting queue (not a PD queue) holds requests it could run.
 */
export interface StoppedEngine {
  engine: string;
  rank: string;
  /** The last reading of a progress series that rose, and the last reading of the engine's progress series. */
  lastRise: Sample;
  last: Sample;
  /** A runnable queue's reading above zero after the stop. */
  waiting: { series: Series; sample: Sample };
  flatSamples: number;
}

export function stoppedEngines(evidence: Evidence): StoppedEngine[] {
  const runnable = sglangSeries(evidence).filter((s) => s.spec.runnable === true);
  const byEngine = new Map<string, Series[]>();
  for (const s of seriesOf(evidence, "scheduler-progress")) byEngine.set(s.engine, [...(byEngine.get(s.engine) ?? []), s]);
  const out: StoppedEngine[] = [];
  for (const [engine, series] of byEngine) {
    const rises = series.flatMap((s) => s.samples.filter((x, i) => i > 0 && x.value !== s.samples[i - 1]!.value));
    if (rises.length === 0) continue;
    const lastRise = rises.reduce((a, b) => (b.ev.tsUs > a.ev.tsUs ? b : a));
    const after = series.flatMap((s) => s.samples.filter((x) => x.ev.tsUs > lastRise.ev.tsUs));
    if (after.length === 0) continue;
    const last = after.reduce((a, b) => (b.ev.tsUs > a.ev.tsUs ? b : a));
    const flatSamples = new Set(after.map((x) => x.ev.tsUs)).size;
    if (last.ev.tsUs - lastRise.ev.tsUs < SERIES_FREEZE_MIN_US || flatSamples < FREEZE_MIN_SAMPLES) continue;
    const waiting = runnable
      .filter((q) => q.engine === engine)
      .flatMap((q) => q.samples.filter((x) => x.ev.tsUs >= lastRise.ev.tsUs + SERIES_FREEZE_MIN_US && x.value > 0).map((sample) => ({ series: q, sample })))[0];
    if (waiting) out.push({ engine, rank: series[0]!.rank, lastRise, last, waiting, flatSamples });
  }
  return out;
}
