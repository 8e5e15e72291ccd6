// The metrics-wedge bundle (test/bundles/README.md) ingested into a real
// incident database. Every expected value is read off the scenario by hand:
// window 03:30–04:30Z at 15 s steps (241 samples a series); from 03:40:05 the
// decode's transfer queue and the prefill's inflight queue hold 3 (first
// sample at 3: 03:40:15), one request a minute piles into the decode prealloc
// and prefill bootstrap queues, failure and abort counters stay 0, the
// decode's token counter stops at 03:40:00 (40 steps × 500) while the
// prefill's rises 1,000 a step.

import { seriesLabels } from "../../domain/telemetry.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { StoredEvent } from "../../domain/event.js";
import { ingest } from "../../ingest/pipeline.js";
import { iterateEvents } from "../../store/read/events.js";
import { listSources } from "../../store/read/sources.js";
import { tempDir, withDb } from "./bundle.js";

const BUNDLE = new URL("../../../test/bundles/metrics-wedge", import.meta.url).pathname;
const us = (hms: string): number => Date.parse(`2026-11-20T${hms}Z`) * 1000;

const ingested = (async () => {
  const db = join(tempDir("metrics-wedge"), "incident.db");
  const summary = await ingest({ db, paths: [BUNDLE] });
  const events = withDb(db, (d) => [...iterateEvents(d)]);
  const sources = withDb(db, (d) => listSources(d));
  return { summary, events, sources };
})();

function samples(events: readonly StoredEvent[], metric: string, host: string, extra?: (e: StoredEvent) => boolean): StoredEvent[] {
  return events.filter((e) => e.kind === "metric.sample" && e.attrs?.metric === metric && e.host === host && !e.timeless && (extra?.(e) ?? true));
}

function valueAt(series: readonly StoredEvent[], hms: string): unknown {
  return series.find((e) => e.tsUs === us(hms))?.attrs?.value;
}

test("the query_range export: 16 series of 241 samples, the two `up` series kept and counted as not SGLang's", async () => {
  const { summary } = await ingested;
  const range = summary.sources.find((s) => s.path.endsWith("query_range.json"))!;
  assert.equal(range.format, "prometheus-api-json");
  assert.equal(range.events, 16 * 241);
  assert.equal(range.unparsed, 2 * 241);
  assert.deepEqual(range.unparsedShapes.map((s) => [s.shape, s.count]), [["a series SGLang does not write: up", 482]]);
  assert.equal(range.errorCount, 0);
  assert.equal(range.first, "2026-11-20T03:30:00.000000Z");
  assert.equal(range.last, "2026-11-20T04:30:00.000000Z");
});

test("the decode's transfer queue and the prefill's inflight queue hold 3 from 03:40:05 to the end, each on its host, role and rank", async () => {
  const { events } = await ingested;
  const transfer = samples(events, "sglang:num_decode_transfer_queue_reqs", "10.0.0.12");
  const inflight = samples(events, "sglang:num_prefill_inflight_queue_reqs", "10.0.0.11");
  for (const [series, role] of [[transfer, "decode"], [inflight, "prefill"]] as const) {
    assert.equal(series.length, 241);
    assert.ok(series.every((e) => e.role === role && e.tp === 0 && e.pp === 0 && e.dp === null));
    assert.ok(series.every((e) => seriesLabels(e.attrs!.series as string).model_name === "deepseek-ai/DeepSeek-V3.2" && seriesLabels(e.attrs!.series as string).engine_type === role));
    assert.equal(valueAt(series, "03:37:45"), 2, "the two requests of 03:38 in flight");
    assert.equal(valueAt(series, "03:38:00"), 0);
    assert.equal(valueAt(series, "03:40:00"), 0);
    assert.ok(series.filter((e) => e.tsUs >= us("03:40:15")).every((e) => e.attrs!.value === 3));
    assert.equal(series.filter((e) => e.tsUs >= us("03:40:15")).length, 200);
  }
  assert.match(transfer.at(-1)!.text, /^sglang:num_decode_transfer_queue_reqs\{engine_type="decode",instance="10\.0\.0\.12:30001",.*\} 3 @2026-11-20T04:30:00\.000000Z$/);
});

test("requests keep arriving: the decode prealloc and prefill bootstrap queues gain one a minute; failures and aborts stay 0", async () => {
  const { events } = await ingested;
  const prealloc = samples(events, "sglang:num_decode_prealloc_queue_reqs", "10.0.0.12");
  const bootstrap = samples(events, "sglang:num_prefill_bootstrap_queue_reqs", "10.0.0.11");
  for (const q of [prealloc, bootstrap]) {
    assert.deepEqual(["03:40:00", "03:40:45", "03:41:00", "03:55:30", "04:30:00"].map((t) => valueAt(q, t)), [0, 0, 1, 15, 50]);
  }
  const flat = ["sglang:num_bootstrap_failed_reqs_total", "sglang:num_transfer_failed_reqs_total", "sglang:num_aborted_requests_total"];
  for (const host of ["10.0.0.11", "10.0.0.12"]) {
    for (const metric of flat) {
      const s = samples(events, metric, host);
      assert.equal(s.length, 241, `${metric} on ${host}`);
      assert.ok(s.every((e) => e.attrs!.value === 0 && e.attrs!.metricType === "counter"));
    }
    assert.deepEqual(["03:37:45", "03:38:00", "04:30:00"].map((t) => valueAt(samples(events, "sglang:num_requests_total", host), t)), [0, 2, 2]);
  }
});

test("the decode's token counter stops at 03:40:00 while the prefill's keeps rising", async () => {
  const { events } = await ingested;
  const decode = samples(events, "sglang:realtime_tokens_total", "10.0.0.12", (e) => seriesLabels(e.attrs!.series as string).mode === "decode");
  const prefill = samples(events, "sglang:realtime_tokens_total", "10.0.0.11", (e) => seriesLabels(e.attrs!.series as string).mode === "prefill_compute");
  assert.deepEqual(["03:39:45", "03:40:00", "03:40:15", "04:30:00"].map((t) => valueAt(decode, t)), [19_500, 20_000, 20_000, 20_000]);
  assert.deepEqual(["03:39:45", "03:40:00", "03:40:15", "04:30:00"].map((t) => valueAt(prefill, t)), [39_000, 40_000, 41_000, 240_000]);
});

test("the saved prefill scrape: host p0 from its folder, role prefill, every sample timeless, python_* kept and counted", async () => {
  const { summary, events, sources } = await ingested;
  const scrape = summary.sources.find((s) => s.path.endsWith("p0/metrics-prefill.prom"))!;
  assert.equal(scrape.format, "prometheus-text");
  assert.deepEqual([scrape.host, scrape.role, scrape.events, scrape.unparsed, scrape.errorCount], ["p0", "prefill", 16, 3, 0]);
  assert.equal(scrape.first, null, "a timeless file has no time span");
  const id = sources.find((s) => s.path.endsWith("metrics-prefill.prom"))!.id;
  const own = events.filter((e) => e.sourceId === id);
  assert.equal(own.length, 16);
  assert.ok(own.every((e) => e.timeless === true && e.host === "p0" && e.role === "prefill"));
  const inflight = own.find((e) => e.attrs!.metric === "sglang:num_prefill_inflight_queue_reqs")!;
  assert.deepEqual([inflight.attrs!.value, inflight.attrs!.metricType, inflight.line, inflight.tp], [3, "gauge", 6, 0]);
  const inf = own.find((e) => seriesLabels(e.attrs!.series as string).le === "+Inf")!;
  assert.deepEqual([inf.attrs!.metric, inf.attrs!.value, inf.attrs!.metricType], ["sglang:per_stage_req_latency_seconds_bucket", 2, "histogram"]);
});
