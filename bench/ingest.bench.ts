// `npm run bench:ingest [-- <incident dir>]`: ingests an incident of at least
// 2 million lines through the real pipeline (sniff, parse workers, store
// thread) into a fresh incident file, and prints lines/s, MB/s, the
// peak RSS of the process and the CPU seconds of its busy threads (parse
// workers, store thread) (BENCH_LOAD_WORKERS=1 forces one parse worker;
// BENCH_SPLIT=off reads no file in parts).
// Without a directory it does so for two generated inputs (bench/
// incidentGen.ts, under bench/out/, reused on later runs): 18 sources shaped
// like pod logs (CRI-wrapped, glog and undated lines among SGLang's;
// BENCH_INPUT=plain: SGLang lines only), and one file of the same lines
// (every TP rank of a prefill pod), which the load cuts into parts for both
// workers. When lnav is installed it times lnav indexing the same files in
// the same run and prints the ratio. Last it prints the incident file's size
// against the logs' after the ingest and after the first replay, which
// stores the model's snapshots in it. The figures are printed, not checked:
// speed is never a test.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_SPLIT } from "../ingest/load/loadPlan.js";
import { ingest } from "../ingest/pipeline.js";
import { openIncident } from "../store/db.js";
import { replayIncident } from "../analyzer/replay/replay.js";
import { benchInput } from "./incidentGen.js";

const LINES = Number(process.env.BENCH_LINES ?? 2_000_000);
/** `plain`: SGLang lines only, without the wrappers and other dialects of real pod logs (bench/incidentGen.ts). */
const REAL_WORLD = process.env.BENCH_INPUT !== "plain";
/** Parse workers of the load; unset, the pipeline decides (two for an input this size). */
const LOAD_WORKERS = process.env.BENCH_LOAD_WORKERS === undefined ? undefined : Number(process.env.BENCH_LOAD_WORKERS);
/** `BENCH_SPLIT=off`: no file is parsed in parts, to weigh what the cutting gains against one worker per file. */
const NO_SPLIT = process.env.BENCH_SPLIT === "off" ? { loadSplit: { splitBytes: Infinity, partBytes: DEFAULT_SPLIT.partBytes } } : {};

function sizeOf(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? sizeOf(p) : statSync(p).size;
  }
  return n;
}

/**
 * CPU seconds of this process's main thread (Linux /proc), where the store
 * writes: the thread that bounds a load. On a shared machine its CPU time is
 * a steadier figure than the wall clock.
 */
function mainThreadCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function inputs(): { label: string; dir: string }[] {
  const given = process.argv[2];
  if (given !== undefined) return [{ label: given, dir: given }];
  return [
    { label: "18 sources, pod-shaped", dir: benchInput(LINES, REAL_WORLD, false) },
    { label: "one file", dir: benchInput(LINES, REAL_WORLD, true) },
  ];
}

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Seconds lnav takes to index the same files and count their lines, when it is installed; null otherwise. */
function lnavSeconds(files: string[], home: string): number | null {
  const t = performance.now();
  const run = spawnSync("lnav", ["-n", "-c", ";SELECT count(*) FROM all_logs", ...files], { env: { ...process.env, HOME: home }, stdio: "ignore" });
  if (run.error !== undefined || run.status !== 0) return null;
  return (performance.now() - t) / 1000;
}

/** CPU seconds of each thread of this process seen so far (Linux /proc), by thread id: the parse workers and the store thread. */
class ThreadCpu {
  readonly seconds = new Map<number, { name: string; cpu: number }>();

  sample(): void {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/self/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        this.seconds.set(Number(tid), { name, cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }

  /** Threads that used at least `min` CPU seconds since `before`. */
  busy(before: Map<number, { cpu: number }>, min = 0.2): string[] {
    return [...this.seconds.entries()]
      .map(([tid, t]) => ({ tid, name: t.name, cpu: t.cpu - (before.get(tid)?.cpu ?? 0) }))
      .filter((t) => t.cpu >= min)
      .sort((a, b) => b.cpu - a.cpu)
      .map((t) => `${t.tid === process.pid ? "main (store)" : t.name} ${t.cpu.toFixed(2)} s`);
  }
}

/** The incident file against the logs (target ≤ 30 %): after the ingest, and with the snapshots the first replay stores. */
function incidentFileFigures(path: string, logBytes: number): void {
  const share = (b: number): string => `${(b / 1e6).toFixed(1)} MB = ${((100 * b) / logBytes).toFixed(1)} % of the logs`;
  console.log(`incident file after the ingest: ${share(statSync(path).size)} (target ≤ 30 %)`);
  const db = openIncident(path);
  const t = performance.now();
  try {
    const { snapshots } = replayIncident(db);
    const seconds = (performance.now() - t) / 1000;
    console.log(`first replay ${seconds.toFixed(1)} s, ${snapshots.count} snapshots of ${(snapshots.bytes / 1e6).toFixed(1)} MB stored`);
  } finally {
    db.close();
  }
  console.log(`incident file after the first replay: ${share(statSync(path).size)}`);
}

/** An ingest measured, its incident kept for the file figures. */
interface Ingested {
  label: string;
  db: string;
  logBytes: number;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "kvrewind-bench-"));
  try {
    const done: Ingested[] = [];
    for (const [i, input] of inputs().entries()) done.push(await measureIngest(input.label, input.dir, join(work, `incident-${i}.db`)));
    // After every ingest: a replay's heap would stay in this process and count in the next ingest's peak RSS.
    for (const d of done) {
      console.log(`\n== ${d.label}: the incident file`);
      incidentFileFigures(d.db, d.logBytes);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function measureIngest(label: string, dir: string, db: string): Promise<Ingested> {
  const bytes = sizeOf(dir);
  const threads = new ThreadCpu();
  threads.sample();
  const threadsBefore = new Map(threads.seconds);
  let phase = "";
  /** The main thread's CPU seconds when the store phase began: the merge and the block writing are that thread's. */
  let mainAtStore: number | undefined;
  let peakRss = process.memoryUsage.rss();
  const peakByPhase: Record<string, number> = {};
  const sample = (): void => {
    const rss = process.memoryUsage.rss();
    peakRss = Math.max(peakRss, rss);
    peakByPhase[phase || "inputs"] = Math.max(peakByPhase[phase || "inputs"] ?? 0, rss);
    threads.sample();
  };
  const sampler = setInterval(sample, 100);
  const phases: Record<string, number> = {};
  let phaseStart = performance.now();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpuSeconds();
  try {
    const summary = await ingest({
      db,
      paths: [dir],
      ...(LOAD_WORKERS !== undefined ? { loadWorkers: LOAD_WORKERS } : {}),
      ...NO_SPLIT,
      onProgress: (p) => {
        sample();
        if (p.phase !== phase) {
          if (p.phase === "store") mainAtStore = mainThreadCpuSeconds();
          const now = performance.now();
          if (phase) phases[phase] = (now - phaseStart) / 1000;
          phase = p.phase;
          phaseStart = now;
        }
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    phases[phase] = (performance.now() - phaseStart) / 1000;
    const lines = summary.sources.reduce((n, s) => n + s.lines, 0);
    clearInterval(sampler);
    sample();
    console.log(`\n== ${label}`);
    console.log(`ingested ${lines.toLocaleString("en-US")} lines (${(bytes / 1e6).toFixed(0)} MB, ${summary.sources.length} sources) → ${summary.eventsTotal.toLocaleString("en-US")} events`);
    console.log(`wall ${seconds.toFixed(2)} s (${Object.entries(phases).map(([k, v]) => `${k} ${v.toFixed(2)} s`).join(", ")})`);
    console.log(`${Math.round(lines / seconds).toLocaleString("en-US")} lines/s, ${(bytes / 1e6 / seconds).toFixed(1)} MB/s, peak RSS ${(peakRss / 1024 / 1024).toFixed(0)} MB (main thread process, workers included)`);
    console.log(`peak RSS by phase (MB): ${Object.entries(peakByPhase).map(([k, v]) => `${k} ${(v / 1024 / 1024).toFixed(0)}`).join(", ")}`);
    const cpu = process.cpuUsage(cpu0);
    const main1 = mainThreadCpuSeconds();
    const mainCpu = main0 !== undefined && main1 !== undefined ? main1 - main0 : undefined;
    const storeCpu = mainAtStore !== undefined && main1 !== undefined ? ` (${(main1 - mainAtStore).toFixed(2)} s of it in the store phase)` : "";
    console.log(`CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s all threads; main (store) thread ${mainCpu?.toFixed(1) ?? "?"} s${storeCpu}`);
    if (mainCpu) console.log(`${Math.round(lines / mainCpu).toLocaleString("en-US")} lines per CPU-second of the store thread (the bound when both cores are free)`);
    console.log(`busy threads (CPU): ${threads.busy(threadsBefore).join(", ")}`);
    const lnav = lnavSeconds(filesOf(dir), mkdtempSync(join(dirname(db), "lnav-home-")));
    if (lnav === null) console.log("lnav: not installed (or it failed); no comparison");
    else {
      console.log(`lnav -n -c ';SELECT count(*) FROM all_logs' on the same files: ${lnav.toFixed(2)} s; kvrewind ingest / lnav = ${(seconds / lnav).toFixed(2)}×`);
    }
    console.log(`machine load average while measuring: ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} cores`);
    console.log(`clock offsets (us): ${JSON.stringify(summary.clockOffsetsUs)}`);
    return { label, db, logBytes: bytes };
  } finally {
    clearInterval(sampler);
  }
}

await main();
