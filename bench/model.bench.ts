// Model throughput: events/s of ReplayModel.apply on a synthetic PD incident
// (see syntheticIncident.ts), per kind as well, plus snapshot sizes.
// Prints figures; not a pass/fail test.

import { performance } from "node:perf_hooks";
import { createModel, defaultProfile } from "../analyzer/model/index.js";
import { synthesize, type SyntheticShape } from "./syntheticIncident.js";

const TARGET = Number(process.env.EVENTS ?? 2_000_000);

function measure(shape: SyntheticShape): void {
  const profile = defaultProfile({ backend: "nixl", version: "0.5.16", hicache: true });
  let bestWall = 0;
  let bestCpu = 0;
  let events = 0;
  let bytes = 0;
  let violations = 0;
  for (let round = 0; round < 3; round++) {
    const model = createModel(profile);
    let ms = 0;
    let cpuUs = 0;
    events = 0;
    bytes = 0;
    for (const batch of synthesize(TARGET, shape)) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (const e of batch) violations += model.apply(e).length;
      ms += performance.now() - t0;
      cpuUs += process.cpuUsage(c0).user;
      events += batch.length;
      for (const e of batch) bytes += 120 + e.text.length + (e.attrs === null ? 0 : JSON.stringify(e.attrs).length);
    }
    bestWall = Math.max(bestWall, events / (ms / 1000));
    bestCpu = Math.max(bestCpu, events / (cpuUs / 1e6));
  }
  const model = createModel(profile);
  const every = 50_000;
  let applied = 0;
  let snapBytes = 0;
  let snaps = 0;
  let encodeMs = 0;
  let maxSnap = 0;
  for (const batch of synthesize(TARGET, shape)) {
    for (const e of batch) {
      model.apply(e);
      if (++applied % every === 0) {
        const t0 = performance.now();
        const n = JSON.stringify(model.snapshot()).length;
        encodeMs += performance.now() - t0;
        snapBytes += n;
        maxSnap = Math.max(maxSnap, n);
        snaps++;
      }
    }
  }
  const view = model.view();
  const last = JSON.stringify(model.snapshot()).length;
  const sides = view.rooms.reduce((n, r) => n + r.prefill.ranks.length + r.decode.ranks.length, 0);
  console.log(`\nshape: a room every ${shape.roomEvery} iteration(s); ${events} events (~${(bytes / 1e6).toFixed(0)} MB as stored rows, estimated); violations: ${violations}`);
  console.log(`  apply: ${(bestWall / 1e6).toFixed(2)} M events/s wall, ${(bestCpu / 1e6).toFixed(2)} M events/s per CPU-second (best of 3)`);
  console.log(`  snapshots every ${every} events: ${snaps}, ${(snapBytes / 1e6).toFixed(1)} MB = ${((100 * snapBytes) / bytes).toFixed(1)}% of the events; largest ${(maxSnap / 1e3).toFixed(0)} kB; ${(encodeMs / snaps).toFixed(1)} ms to encode+stringify`);
  console.log(`  final state: ${view.rooms.length} rooms (${sides} rank sides), ${view.pages.length} page records; snapshot ${(last / 1e3).toFixed(0)} kB ≈ ${(last / Math.max(1, view.pages.length + sides)).toFixed(0)} B per page or rank side`);
}

for (const roomEvery of [1, 8]) measure({ roomEvery });
