// `npm run bench:store`: the store's figures (docs/store.md).
//   1. The store thread's floor: BENCH_EVENTS (default 2 M) synthetic events
//      of the incident shape straight through the writer (no reading, no
//      parsing: rows are built before each timed batch), encoded into blocks,
//      compressed and inserted; microseconds per row.
//   2. The codec: zstd levels against zlib's deflate and brotli on those
//      blocks and on real log text (bench/storeCodecs.ts).
//   3. On the replay benchmark's incident (BENCH_QUERY_EVENTS, default 6 M;
//      BENCH_DIR keeps it): file size against the raw logs, and the latency
//      of a 60,000-event window, one room, one rank's window and a seq read
//      cold (bench/storeQueries.ts).

import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { EVENT_COLUMNS } from "../store/rows.js";
import type { StoredEvent } from "../store/read/events.js";
import { IncidentWriter } from "../store/writer.js";
import { compareCodecs } from "./storeCodecs.js";
import { queryFigures } from "./storeQueries.js";
import { synthesize } from "./syntheticIncident.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000_000);

function rowOf(ev: StoredEvent): unknown[] {
  const byColumn: Record<(typeof EVENT_COLUMNS)[number], unknown> = {
    ts_us: ev.tsUs, source_id: ev.sourceId, line: ev.line, dp: ev.dp, pp: ev.pp, tp: ev.tp, chunk: ev.chunk, layer: ev.layer,
    page_lo: ev.pageLo, page_hi: ev.pageHi, state: ev.state, ts_inferred: ev.tsInferred ? 1 : null, host: ev.host, role: ev.role, kind: ev.kind, room: ev.room, rid: ev.rid,
    attrs: ev.attrs ?? null,
  };
  return EVENT_COLUMNS.map((c) => byColumn[c]);
}

function cpuSeconds(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
}

const dir = mkdtempSync(join(tmpdir(), "kvrewind-store-bench-"));
try {
  const writer = IncidentWriter.open(join(dir, "incident.db"), 10_000);
  writer.begin(10_000);
  writer.addSource({ path: "synthetic", format: "probe-jsonl", wrapper: null, host: null, role: null, sha256: "synthetic", bytes: 0 });
  let rows = 0;
  let insertCpu = 0;
  let insertWall = 0;
  for (const batch of synthesize(EVENTS)) {
    const values = batch.map(rowOf);
    const c0 = cpuSeconds();
    const t0 = performance.now();
    for (const v of values) writer.addValues(v);
    insertWall += performance.now() - t0;
    insertCpu += cpuSeconds() - c0;
    rows += values.length;
  }
  const c1 = cpuSeconds();
  writer.flushRows();
  insertCpu += cpuSeconds() - c1;
  writer.commit();
  writer.close();
  const us = (s: number): string => ((s / rows) * 1e6).toFixed(2);
  console.log(`store floor: ${rows.toLocaleString("en-US")} events of the incident shape, straight into the writer`);
  console.log(`  insert: ${us(insertCpu)} µs/row CPU (${us(insertWall / 1000)} µs/row wall)`);
  console.log(`  at most ${Math.round(rows / insertCpu).toLocaleString("en-US")} rows per CPU-second of the store thread (blocks encoded and compressed there)`);
  console.log(`machine load average: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} cores`);
  compareCodecs(join(dir, "incident.db"));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
await queryFigures();
console.log(`machine load average: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} cores (wall figures include other processes' contention)`);
