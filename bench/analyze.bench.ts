// Analyze benchmark: for each size of BENCH_EVENTS (a comma list, default
// 1000000; `2m,6m,20m` also reads), builds (or reuses, under bench/out/ or
// BENCH_DIR) a healthy incident of at least that many events with the fixture
// generator's large mode and the real ingest, runs the derive step on it (as
// `kvrewind ingest` leaves a file), then, in a process of its own (so that
// its peak RSS is that size's alone), times the analysis as `kvrewind
// analyze` runs it (the replay and the rules with the hypotheses ledger they
// read, in one pass over the blocks; the suspects), the JSON and Markdown reports
// and the Chrome trace export (BENCH_CHROME=0 leaves it out), each with the
// RSS after it, and prints the events per second of the analysis and the peak
// RSS. Figures, not pass/fail.

import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { benchOutDir, healthyIncidentDb } from "./healthyIncident.js";
import { openIncident } from "../store/db.js";
import { eventCount } from "../store/read/incident.js";
import { analyzeIncident, storeAnalysis } from "../analyzer/rules/index.js";
import { deriveIncident } from "../analyzer/derive.js";
import { renderJson } from "../analyzer/report/json.js";
import { buildTimeline, renderMarkdown } from "../analyzer/report/markdown.js";
import { exportChromeTrace } from "../analyzer/report/chromeTrace.js";
import { collectSooner } from "../cli/heapGrowth.js";

const SELF = fileURLToPath(import.meta.url);

function sizeOf(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`BENCH_EVENTS: ${text} is not a count (1000000, 2m, 500k)`);
  return Math.round(Number(m[1]) * ({ k: 1e3, m: 1e6 }[m[2]!.toLowerCase()] ?? 1));
}

function time<T>(label: string, f: () => T): { value: T; seconds: number } {
  const t = performance.now();
  const value = f();
  const seconds = (performance.now() - t) / 1000;
  console.log(`${label.padEnd(34)} ${seconds.toFixed(2)} s  (RSS after: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB)`);
  return { value, seconds };
}

/** One incident's analysis, in this process: the stages' times, events/s and peak RSS. */
function measure(path: string): void {
  // As `kvrewind analyze` runs (cli/heapGrowth.ts).
  collectSooner();
  const db = openIncident(path);
  const events = eventCount(db);
  const cpu = process.cpuUsage();
  console.log(`incident: ${events} events (${path}); ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}`);
  // As the CLI's analysis runs: the replay in the rules' pass over the blocks (analyzer/rules/index.ts judgeIncident).
  const ruled = time("replay, rules, ledger (one pass), suspects", () => analyzeIncident(db));
  // The rules read the ledger's decisions, so `analyze` holds it, as the CLI's does.
  const { hypotheses: ledger, ...report } = ruled.value;
  console.log(`  ${report.findings.length} findings (${report.findings.filter((f) => f.verdict === "violated").length} violated), ${report.suspects.length} suspects, ${ledger.length} hypotheses`);
  const stored = time("store findings and suspects", () => storeAnalysis(db, ruled.value));
  const json = time("render --json", () => renderJson(report, ledger));
  const markdown = time("render --markdown (with timeline)", () => renderMarkdown(report, buildTimeline(db, report)));
  const analysis = ruled.seconds + stored.seconds + json.seconds + markdown.seconds;
  const used = process.cpuUsage(cpu);
  console.log(`analysis (replay to reports)       ${analysis.toFixed(2)} s: ${Math.round(events / analysis).toLocaleString("en-US")} events/s, ${((used.user + used.system) / 1e6).toFixed(2)} CPU s`);
  if (process.env.BENCH_CHROME !== "0") {
    let bytes = 0;
    time("export chrome-json", () => exportChromeTrace(db, (chunk) => (bytes += chunk.length)));
    console.log(`  trace: ${(bytes / 1e6).toFixed(1)} MB`);
  }
  console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  db.close();
}

/** Runs the derive step on the incident, as `kvrewind ingest` leaves a file (once: a later run finds it current). */
function derived(path: string): void {
  const db = openIncident(path);
  const t = performance.now();
  if (deriveIncident(db) !== undefined) console.log(`derive step (snapshots, signs, timeline, once) ${((performance.now() - t) / 1000).toFixed(1)} s`);
  db.close();
}

const measuring = process.argv[2];
if (measuring !== undefined) measure(measuring);
else {
  const sizes = (process.env.BENCH_EVENTS ?? "1000000").split(",").map(sizeOf);
  for (const target of sizes) {
    const path = await healthyIncidentDb(target, "analyze", benchOutDir(`healthy-${target}`));
    derived(path);
    const run = spawnSync(process.execPath, [SELF, path], { stdio: "inherit" });
    if (run.status !== 0) console.log(`the analysis of ${path} exited with ${run.status ?? run.signal}`);
  }
}
