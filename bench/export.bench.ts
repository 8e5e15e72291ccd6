// Export benchmark: builds (or reuses, BENCH_DIR or bench/out) a healthy
// incident of at least BENCH_EVENTS events (default 1 M), analyzes it once in
// a process of its own when no analysis is stored, then times
// `export --format parquet` (the files' rows, row groups and bytes, the bytes
// per event against the incident file, the peak RSS of this process) and two
// of docs/scale.md's questions asked of the export with DuckDB. Figures, not
// pass/fail.

import { spawnSync } from "node:child_process";
import { mkdtempSync, statSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";
import { benchOutDir, healthyIncidentDb } from "./healthyIncident.js";
import { openIncident } from "../store/db.js";
import { eventCount } from "../store/read/incident.js";
import { readAnalysisRows } from "../store/read/analysis.js";
import { exportParquet } from "../analyzer/report/parquetExport.js";

const TARGET = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const MAIN = fileURLToPath(new URL("../bundle/main.js", import.meta.url));

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(2)} s`;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

const path = await healthyIncidentDb(TARGET, "export", benchOutDir(`healthy-${TARGET}`));
let db = openIncident(path, { readonly: true });
if (readAnalysisRows(db) === undefined) {
  db.close();
  const t = performance.now();
  const analyzed = spawnSync(process.execPath, [MAIN, "analyze", path], { stdio: ["ignore", "ignore", "inherit"] });
  console.log(`analysis stored by \`kvrewind analyze\` (exit ${analyzed.status}) in ${seconds(t)}`);
  db = openIncident(path, { readonly: true });
}
const events = eventCount(db);
console.log(`incident: ${events} events, file ${mb(statSync(path).size)} (${path}); ${cpus().length} CPUs, load average ${loadavg()[0]!.toFixed(1)}`);

const out = mkdtempSync(join(tmpdir(), "kvrewind-bench-parquet-"));
const t = performance.now();
const cpuBefore = process.cpuUsage();
const summary = exportParquet(db, { dir: out, incident: "bench", force: false });
const wall = (performance.now() - t) / 1000;
const cpu = process.cpuUsage(cpuBefore);
db.close();
console.log(
  `export --format parquet            ${wall.toFixed(2)} s (${Math.round(events / wall).toLocaleString("en-US")} events/s), ` +
    `${((cpu.user + cpu.system) / 1e6).toFixed(2)} CPU s, into ${out}`,
);
for (const f of summary.files) console.log(`  ${f.file.padEnd(17)} ${String(f.rows).padStart(9)} rows ${String(f.rowGroups).padStart(5)} row groups ${mb(f.bytes).padStart(9)}`);
const eventsFile = summary.files.find((f) => f.file === "events.parquet")!;
console.log(`  events.parquet: ${(eventsFile.bytes / events).toFixed(1)} bytes per event, ${((100 * eventsFile.bytes) / statSync(path).size).toFixed(1)} % of the incident file`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

const duck = await DuckDBInstance.create(":memory:");
const connection = await duck.connect();
const questions = {
  "DuckDB: events per kind": `SELECT incident, kind, count(*) FROM read_parquet('${out}/events.parquet') GROUP BY ALL`,
  "DuckDB: rooms and time span": `SELECT incident, count(DISTINCT room), min(ts_us), max(ts_us) FROM read_parquet('${out}/events.parquet') GROUP BY incident`,
};
for (const [label, sql] of Object.entries(questions)) {
  const q = performance.now();
  const rows = (await connection.runAndReadAll(sql)).getRowsJS().length;
  console.log(`${label.padEnd(34)} ${seconds(q)} (${rows} rows)`);
}
connection.closeSync();
duck.closeSync();
