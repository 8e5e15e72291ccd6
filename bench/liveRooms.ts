// stateAt on the ingest benchmark's one-file input (bench:replay): a prefill
// log whose rooms never conclude, so every snapshot past the first minutes
// holds tens of thousands of live rooms with a sender per TP rank — the
// shape of a wedged cluster, and the worst case for time travel. Prints the
// latency at random points and where it goes: reading and decoding the
// nearest snapshot, restoring the model from it, replaying the events after
// it, building the view, and collecting garbage.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance, PerformanceObserver } from "node:perf_hooks";
import { restoreModel } from "../analyzer/model/index.js";
import { replayIncident } from "../analyzer/replay/replay.js";
import { stateAt, timeline } from "../analyzer/replay/timeTravel.js";
import { ingest } from "../ingest/pipeline.js";
import { openIncident } from "../store/db.js";
import { benchInput } from "./incidentGen.js";

const LINES = Number(process.env.BENCH_LINES ?? 2_000_000);
const POINTS = 40;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function ms(f: () => unknown): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

export async function liveRoomsFigures(): Promise<void> {
  const input = benchInput(LINES, true, true);
  const dir = mkdtempSync(join(tmpdir(), "kvrewind-bench-live-rooms-"));
  try {
    const path = join(dir, "incident.db");
    await ingest({ db: path, paths: [input] });
    const db = openIncident(path);
    const replay = replayIncident(db, { storeSnapshots: true });
    const line = timeline(db);
    const last = line.snapshots.nearest(replay.lastSeq!);
    const liveRooms = last === null ? 0 : restoreModel(line.choice.profile, line.snapshots.state(last), line.pageBytes).view().rooms.length;
    console.log(
      `stateAt on the ingest benchmark's one-file input (${replay.events.toLocaleString("en-US")} events, ${replay.snapshots.count} snapshots;` +
        ` the last holds ${liveRooms.toLocaleString("en-US")} live rooms):`,
    );
    let seed = 20261203;
    const lo = replay.firstSeq!;
    const span = replay.lastSeq! - lo + 1;
    const total: number[] = [];
    // Garbage collections that start inside a stateAt call, timed by the GC observer.
    const calls: [number, number][] = [];
    const pauses: [number, number][] = [];
    const gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) pauses.push([e.startTime, e.duration]);
    });
    gc.observe({ entryTypes: ["gc"] });
    const phase = { decode: 0, restore: 0, replay: 0, events: 0, view: 0, rooms: 0 };
    for (let i = 0; i < POINTS; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const seq = lo + (seed % span);
      line.position = null;
      const from = performance.now();
      total.push(ms(() => stateAt(db, { seq })));
      calls.push([from, performance.now()]);
      const snap = line.snapshots.nearest(seq);
      if (snap === null) continue;
      let state: unknown;
      phase.decode += ms(() => (state = line.snapshots.state(snap)));
      let model: ReturnType<typeof restoreModel> | undefined;
      phase.restore += ms(() => (model = restoreModel(line.choice.profile, state, line.pageBytes)));
      phase.replay += ms(() => line.reader.forEach(snap + 1, seq, (ev) => (model!.apply(ev), phase.events++)));
      phase.view += ms(() => (phase.rooms += model!.view().rooms.length));
    }
    await new Promise((done) => setTimeout(done, 50));
    gc.disconnect();
    let gcMs = 0;
    for (const [start, duration] of pauses) if (calls.some(([a, b]) => start >= a && start < b)) gcMs += duration;
    total.sort((a, b) => a - b);
    const avg = (v: number): string => (v / POINTS).toFixed(0);
    console.log(
      `  ${POINTS} random points, each restored from its snapshot: p50 ${percentile(total, 50).toFixed(0)} ms, p95 ${percentile(total, 95).toFixed(0)} ms (target <= 50 ms);` +
        ` on average ${avg(phase.decode)} ms reading and decoding the snapshot, ${avg(phase.restore)} ms restoring the model,` +
        ` ${avg(phase.replay)} ms replaying the ${avg(phase.events)} events after it, ${avg(phase.view)} ms the view of its ${avg(phase.rooms)} rooms` +
        `; ${avg(gcMs)} ms of each call collecting garbage`,
    );
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
