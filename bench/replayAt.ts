// `kvrewind replay --at` from a cold process (issue 30: ≤ 1 s on the 6 M-event
// incident), part of bench:replay. The incident is bench:analyze's
// (bench/out/healthy-6000000), derived by this build's derive step as
// `kvrewind ingest` leaves an incident. Each call is a new process of the CLI
// bundle, its text output kept to compare; with BENCH_BASELINE (the root of
// another checkout, built with `npx tsc -p tsconfig.json && npm run build:cli`)
// that build answers the same points on the same file, alternated with this
// one, round by round. Wall time per call, and CPU (user + system) where
// Linux's /proc gives a process its waited-for children's.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { benchOutDir, healthyIncidentDb } from "./healthyIncident.js";
import { openIncident } from "../store/db.js";
import { eventCount } from "../store/read/incident.js";
import { timeBounds } from "../store/read/seqs.js";
import { deriveIncident } from "../analyzer/derive.js";

const TARGET = 6_000_000;
const ROUNDS = 3;
const THIS_BUILD = fileURLToPath(new URL("../../", import.meta.url));

/** CPU seconds of this process's waited-for children (Linux), or null. */
function childrenCpuS(): number | null {
  try {
    // Fields after the command's closing parenthesis: cutime and cstime are the 14th and 15th.
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

interface Call {
  wallS: number;
  cpuS: number | null;
  out: string;
}

function replayAt(root: string, db: string, at: string): Call {
  const cpu0 = childrenCpuS();
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [join(root, "bin/kvrewind.js"), "replay", db, "--at", at], { encoding: "utf8", maxBuffer: 1 << 28 });
  const wallS = (performance.now() - t0) / 1000;
  const cpu1 = childrenCpuS();
  if (run.status !== 0) throw new Error(`${root}: replay --at ${at} exited with ${run.status ?? run.signal}: ${run.stderr}`);
  return { wallS, cpuS: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, out: run.stdout };
}

const range = (xs: number[]): string => (xs.length === 0 ? "-" : `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`);

export async function coldReplayAtFigures(): Promise<void> {
  const path = await healthyIncidentDb(TARGET, "analyze", benchOutDir(`healthy-${TARGET}`));
  const db = openIncident(path);
  const events = eventCount(db);
  const t = performance.now();
  const replayed = deriveIncident(db);
  const deriveS = (performance.now() - t) / 1000;
  const { firstUs, lastUs } = timeBounds(db);
  db.close();
  console.log(`cold replay --at: ${events} events (${path}); derive step ${deriveS.toFixed(1)} s${replayed ? " (replayed, snapshots stored)" : ""}`);
  const mid = new Date(Math.floor((firstUs! + lastUs!) / 2 / 1000)).toISOString();
  const points = [1_000_000, 3_500_000, Math.min(7_000_000, events)].map(String).concat(mid);
  const baseline = process.env.BENCH_BASELINE;
  if (baseline !== undefined && !existsSync(join(baseline, "dist/bundle/main.js"))) throw new Error(`BENCH_BASELINE=${baseline}: no built CLI there (dist/bundle/main.js)`);
  const builds = [...(baseline ? [{ name: "previous", root: baseline }] : []), { name: "this", root: THIS_BUILD }];
  const load0 = loadavg();
  const calls = new Map<string, Map<string, Call[]>>(builds.map((b) => [b.name, new Map(points.map((p) => [p, []]))]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const at of points) for (const b of builds) calls.get(b.name)!.get(at)!.push(replayAt(b.root, path, at));
  }
  const load1 = loadavg();
  console.log(
    `  ${cpus().length} CPUs, ${(totalmem() / 2 ** 30).toFixed(0)} GB; load average ${load0[0]!.toFixed(2)} before, ${load1[0]!.toFixed(2)} after; ` +
      `${ROUNDS} rounds, each build in turn at each point${baseline ? `; previous build: ${baseline}` : " (BENCH_BASELINE names a previous build to compare)"}`,
  );
  for (const at of points) {
    const line = builds.map((b) => {
      const cs = calls.get(b.name)!.get(at)!;
      const cpu = cs.map((c) => c.cpuS).filter((c): c is number => c !== null);
      return `${b.name} ${range(cs.map((c) => c.wallS))} s wall${cpu.length ? `, ${range(cpu)} s CPU` : ""}`;
    });
    const same = baseline ? `; output ${calls.get("previous")!.get(at)![0]!.out === calls.get("this")!.get(at)![0]!.out ? "the same" : "DIFFERS"}` : "";
    console.log(`  --at ${at}: ${line.join(" | ")}${same}`);
  }
}
