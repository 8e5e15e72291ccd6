// Replay benchmark: builds an incident of at least BENCH_EVENTS (default 5 M)
// events (the fixture generator's large mode, healthy scenario, then the real
// ingest), then prints
//   - full-replay throughput straight from the event blocks: cold (the derive
//     step's replay, snapshots built and stored) and warm (snapshots reused),
//     in events/s, wall and CPU;
//   - stateAt latency p50/p95 at 200 random points;
//   - snapshot storage as % of the event blocks' size;
//   - stateAt on the ingest benchmark's one-file input (liveRooms.ts).
// First of all, `kvrewind replay --at` from a cold process (issue 30: ≤ 1 s)
// on the 6 M-event incident of bench:analyze (bench/out/healthy-6000000, built
// when missing, then derived, as `kvrewind ingest` leaves it), at three seqs
// and a time: this build's CLI, and with BENCH_BASELINE=<the root of another
// checkout, built> that build's CLI on the same file, alternated, round by
// round, with whether their outputs are the same (replayAt.ts);
// BENCH_AT_ONLY=1 stops after it.
// Figures, not pass/fail. BENCH_DIR keeps the built incident between runs.

import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { healthyIncidentDb } from "./healthyIncident.js";
import { openIncident, setMeta, type IncidentDb } from "../store/db.js";
import { replayIncident, type ReplaySummary } from "../analyzer/replay/replay.js";
import { stateAt, timeline } from "../analyzer/replay/timeTravel.js";
import { liveRoomsFigures } from "./liveRooms.js";
import { coldReplayAtFigures } from "./replayAt.js";

const TARGET = Number(process.env.BENCH_EVENTS ?? 5_000_000);
const POINTS = 200;


function tableBytes(db: IncidentDb, names: string[]): number {
  const rows = db.prepare(`SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name IN (${names.map(() => "?").join(",")}) GROUP BY name`).all(...names) as {
    bytes: number;
  }[];
  return rows.reduce((n, r) => n + r.bytes, 0);
}

/** Runs `f`, returning its result with wall and CPU (user + system, all threads) milliseconds. */
function timed<T>(f: () => T): { value: T; wallMs: number; cpuMs: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { value, wallMs, cpuMs: (c.user + c.system) / 1000 };
}

function replayLine(label: string, run: { value: ReplaySummary; cpuMs: number }): void {
  const r = run.value;
  const mevs = r.timing.eventsPerSecond / 1e6;
  const cpuRate = r.events / run.cpuMs / 1000;
  console.log(
    `${label}: ${r.events} events, replay ${r.timing.replayMs.toFixed(0)} ms = ${mevs.toFixed(2)} M events/s wall;` +
      ` whole call ${run.cpuMs.toFixed(0)} ms CPU = ${cpuRate.toFixed(2)} M events/CPU-s` +
      ` (straight from the event blocks, no cache; snapshots ${r.snapshots.reused ? "reused" : `built: ${r.snapshots.count} every ${r.snapshots.every} events`}); ${r.violations.length} violations`,
  );
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  await coldReplayAtFigures();
  if (process.env.BENCH_AT_ONLY === "1") return;
  const path = await healthyIncidentDb(TARGET, "replay");
  const db = openIncident(path);
  setMeta(db, "snapshots", "{}");
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")} on ${cpus().length} CPUs: wall-clock figures include other processes' contention`);
  replayLine("cold replay", timed(() => replayIncident(db, { storeSnapshots: true })));
  let best = timed(() => replayIncident(db));
  for (let i = 0; i < 2; i++) {
    const again = timed(() => replayIncident(db));
    if (again.value.timing.eventsPerSecond > best.value.timing.eventsPerSecond) best = again;
  }
  replayLine("warm replay (best of 3)", best);
  const warm = best.value;

  timeline(db);
  let seed = 20260820;
  const lo = warm.firstSeq!;
  const span = warm.lastSeq! - lo + 1;
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < POINTS; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const seq = lo + (seed % span);
    const t = timed(() => stateAt(db, { seq }));
    wall.push(t.wallMs);
    cpu.push(t.cpuMs);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  console.log(
    `stateAt at ${POINTS} random points: p50 ${percentile(wall, 50).toFixed(1)} ms, p95 ${percentile(wall, 95).toFixed(1)} ms, max ${wall.at(-1)!.toFixed(1)} ms wall;` +
      ` CPU p50 ${percentile(cpu, 50).toFixed(1)} ms, p95 ${percentile(cpu, 95).toFixed(1)} ms`,
  );

  const events = tableBytes(db, ["event_blocks", "event_block_data", "event_block_keys", "event_blocks_seq"]);
  const snaps = tableBytes(db, ["snapshots"]);
  const pct = (n: number): string => `${((100 * n) / events).toFixed(1)}%`;
  console.log(`event blocks ${(events / 1e6).toFixed(1)} MB with their side tables`);
  console.log(`snapshots ${(snaps / 1e6).toFixed(1)} MB = ${pct(snaps)} of the event blocks (${warm.snapshots.count} snapshots)`);
  db.close();
  await liveRoomsFigures();
}

await main();
