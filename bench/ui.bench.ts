// `npm run bench:ui`: the timeline page over a generated incident of at least
// a million events, in headless Chromium. Prints the time to the first
// timeline render, frame times while zooming and panning (measured in the
// page with requestAnimationFrame), and the browser's memory, against the
// targets of issue 5. The incident is generated (fixtures/generator, the
// healthy scenario scaled up), ingested and analyzed by the server's own
// background job once, and kept under bench/out/ui/ for later runs.

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateBundle, scaledScenario } from "../fixtures/generator/bundle.js";
import { incident } from "../fixtures/generator/scenarios/incidents.js";
import { eventsFingerprint } from "../analyzer/replay/fingerprint.js";
import { openIncident } from "../ingest/store/db.js";
import { startServer } from "../ui/server/server.js";
import { buildTimelineIndex } from "../ui/server/timeline-index.js";
import { deserializeIndex, serializeIndex } from "../ui/server/index-file.js";
import { queryWindow } from "../ui/server/window-query.js";
import { measurePage } from "./uiBrowser.js";

const OUT = fileURLToPath(new URL("../../bench/out/ui/", import.meta.url));
const ID = "bench-1m";
/** ~1.14 M lines (fixtures/README.md "Large incidents"); checked against MIN_EVENTS below. */
const SESSIONS = 5000;
const MIN_EVENTS = 1_000_000;

const TARGETS = { firstRenderMs: 1500, p95FrameMs: 32, memoryMb: 500 };

const log = (line: string) => process.stderr.write(`${line}\n`);

/** What the server's timeline index costs: the cold build, the cache read, a whole-incident window. */
function measureIndex(dbPath: string): { buildMs: number; loadMs: number; bytes: number; fullWindowMs: number } {
  const db = openIncident(dbPath, { readonly: true });
  try {
    let t = performance.now();
    const built = buildTimelineIndex(db);
    const buildMs = performance.now() - t;
    const fingerprint = { events: eventsFingerprint(db) };
    const buf = serializeIndex(built, fingerprint);
    t = performance.now();
    const idx = deserializeIndex(buf, fingerprint)!;
    const loadMs = performance.now() - t;
    t = performance.now();
    queryWindow(idx, { fromUs: idx.firstTsUs!, toUs: idx.lastTsUs! + 1, buckets: 800, maxEvents: 15_000 });
    return { buildMs, loadMs, bytes: buf.length, fullWindowMs: performance.now() - t };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const server = await startServer({ dataDir: join(OUT, "data"), port: 0, log });
  try {
    let record = server.registry.get(ID);
    if (record?.status !== "ready") {
      if (record) server.registry.remove(ID);
      record = server.registry.create(`healthy ×${SESSIONS} sessions`, ID);
      const input = server.registry.inputDirOf(ID);
      let t = performance.now();
      const run = generateBundle(scaledScenario(incident("healthy"), SESSIONS), input);
      log(`generated ${run.lines.toLocaleString("en-US")} lines in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      const files = readdirSync(input, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
      server.registry.update(ID, {
        inputFiles: files.length,
        inputBytes: files.reduce((n, d) => n + statSync(join(d.parentPath, d.name)).size, 0),
      });
      t = performance.now();
      server.jobs.enqueue(ID);
      await server.jobs.idle();
      record = server.registry.get(ID)!;
      if (record.status !== "ready") throw new Error(`the bench incident failed: ${record.error}`);
      log(`ingested and analyzed in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    } else {
      log(`reusing ${join(OUT, "data")} (${ID})`);
    }
    const events = record.summary?.events ?? 0;
    if (events < MIN_EVENTS) throw new Error(`the bench incident has ${events} events, fewer than ${MIN_EVENTS}: raise SESSIONS`);

    const index = measureIndex(server.registry.dbPathOf(ID));
    await server.registry.timeline(ID);

    const figures = await measurePage(`${server.url}?incident=${ID}`);
    const ok = (v: number, target: number) => (v <= target ? "ok" : "OVER TARGET");
    const lines = [
      `incident: ${events.toLocaleString("en-US")} events, ${record.summary?.ranks.length} ranks, ${(record.inputBytes / 2 ** 20).toFixed(0)} MiB of input`,
      `server timeline index: built in ${(index.buildMs / 1000).toFixed(1)} s once per incident (off the main thread), ${(index.bytes / 2 ** 20).toFixed(0)} MiB, read back from its cache in ${index.loadMs.toFixed(0)} ms`,
      `full-extent window query on the server: ${index.fullWindowMs.toFixed(0)} ms`,
      `first timeline render: ${figures.firstRenderMs.toFixed(0)} ms  (target ≤ ${TARGETS.firstRenderMs} ms: ${ok(figures.firstRenderMs, TARGETS.firstRenderMs)})`,
      `frames while zooming/panning: ${figures.frames}, p50 ${figures.p50FrameMs.toFixed(1)} ms, p95 ${figures.p95FrameMs.toFixed(1)} ms, max ${figures.maxFrameMs.toFixed(1)} ms  (target p95 ≤ ${TARGETS.p95FrameMs} ms: ${ok(figures.p95FrameMs, TARGETS.p95FrameMs)})`,
      `window fetches during the gestures: ${figures.fetches}, p95 ${figures.p95FetchMs.toFixed(0)} ms`,
      `browser memory: page JS heap ${figures.jsHeapMb.toFixed(0)} MB, renderer ${figures.rendererPssMb.toFixed(0)} MB PSS, all Chromium processes ${figures.browserPssMb.toFixed(0)} MB PSS  (target < ${TARGETS.memoryMb} MB: ${ok(figures.browserPssMb, TARGETS.memoryMb - 1)})`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await server.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:ui: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
