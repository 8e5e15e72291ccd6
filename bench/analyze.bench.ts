// Analyze benchmark: builds (or reuses, BENCH_DIR) a healthy incident of at
// least BENCH_EVENTS events (default 1 M) with the fixture generator's large
// mode and the real ingest, then prints the time of the replay, of the rules
// on the replay's output, of the hypotheses ledger, of rendering the JSON and Markdown reports, and of
// the Chrome trace export, with the peak RSS. Figures, not pass/fail.

import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { healthyIncidentDb } from "./healthyIncident.js";
import { openIncident } from "../store/db.js";
import { eventCount } from "../store/read/incident.js";
import { replayIncident } from "../analyzer/replay/replay.js";
import { analyze, storeAnalysis } from "../analyzer/rules/index.js";
import { replayEvidenceOf } from "../analyzer/rules/replayEvidence.js";
import { renderJson } from "../analyzer/report/json.js";
import { loadLibrary } from "../analyzer/hypotheses/library.js";
import { checkHypotheses } from "../analyzer/hypotheses/run.js";
import { buildTimeline, renderMarkdown } from "../analyzer/report/markdown.js";
import { exportChromeTrace } from "../analyzer/report/chromeTrace.js";

const TARGET = Number(process.env.BENCH_EVENTS ?? 1_000_000);


function time<T>(label: string, f: () => T): T {
  const t = performance.now();
  const value = f();
  console.log(`${label.padEnd(34)} ${((performance.now() - t) / 1000).toFixed(2)} s`);
  return value;
}

const path = await healthyIncidentDb(TARGET, "analyze");
const db = openIncident(path);
const events = eventCount(db);
console.log(`incident: ${events} events (${path}); ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}`);
const summary = time("replay (model, cache, snapshots)", () => replayIncident(db));
const replay = replayEvidenceOf(summary);
const report = time("rules + suspects on the replay", () => analyze(db, { replay }));
console.log(`  ${report.findings.length} findings (${report.findings.filter((f) => f.verdict === "violated").length} violated), ${report.suspects.length} suspects`);
time("store findings and suspects", () => storeAnalysis(db, report));
const ledger = time("hypotheses ledger (the library)", () => checkHypotheses(db, loadLibrary()).verdicts);
time("render --json", () => renderJson(report, ledger));
time("render --markdown (with timeline)", () => renderMarkdown(report, buildTimeline(db, report)));
let bytes = 0;
time("export chrome-json", () => exportChromeTrace(db, (chunk) => (bytes += chunk.length)));
console.log(`  trace: ${(bytes / 1e6).toFixed(1)} MB`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
db.close();
