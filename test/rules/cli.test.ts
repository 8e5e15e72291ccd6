import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { analysisReportSchema } from "../../analyzer/rules/finding.js";
import { healthyRun, wedgedByAbort } from "./scenarios.js";

const MAIN = fileURLToPath(new URL("../../cli/main.js", import.meta.url));

function kvrewind(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function dbFile(build: () => ReturnType<typeof wedgedByAbort>): string {
  const db = build();
  const path = db.name;
  db.close();
  return path;
}

test("analyze --json prints the contract and exits 1 on a critical finding; the findings land in the db", () => {
  const path = dbFile(wedgedByAbort);
  const r = kvrewind("analyze", path, "--json");
  assert.equal(r.status, 1, r.stderr);
  const report = analysisReportSchema.parse(JSON.parse(r.stdout));
  assert.equal(report.suspects[0]!.cause, "unhandled-abort");
  assert.match(r.stdout, /"room": "8972542885242963296"/, "rooms print as strings");
  const again = kvrewind("analyze", path, "--fail-on", "critical", "--markdown");
  assert.equal(again.status, 1);
  assert.match(again.stdout, /^# Post-mortem: /);
});

test("a healthy incident exits 0 and names no suspect", () => {
  const path = dbFile(healthyRun);
  const r = kvrewind("analyze", path);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /SUSPECTS\n {2}none/);
});

test("usage and input errors exit 2 with a message naming the file", () => {
  const missing = kvrewind("analyze", "/nonexistent/incident.db", "--json");
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /\/nonexistent\/incident\.db: not an incident database/);
  const badSeverity = kvrewind("analyze", dbFile(healthyRun), "--fail-on", "severe");
  assert.equal(badSeverity.status, 2);
  assert.equal(kvrewind("analyze", dbFile(healthyRun), "--json", "--markdown").status, 2);
});

test("export --format chrome-json writes a trace with named lanes, slices and queue counters", () => {
  const path = dbFile(healthyRun);
  const r = kvrewind("export", path, "--format", "chrome-json");
  assert.equal(r.status, 0, r.stderr);
  const trace = JSON.parse(r.stdout) as { traceEvents: Record<string, unknown>[]; otherData: { start: string } };
  const names = trace.traceEvents.filter((e) => e.ph === "M" && e.name === "thread_name").map((e) => (e.args as { name: string }).name).sort();
  assert.deepEqual(names, ["decode/tp0", "prefill/tp0"]);
  const slices = trace.traceEvents.filter((e) => e.ph === "X");
  assert.ok(slices.some((e) => e.name === "boot.got_info" && (e.args as { line: string }).line === "p0/prefill-tp0.log:2"));
  const counters = trace.traceEvents.filter((e) => e.ph === "C" && e.name === "#transfer-req");
  assert.deepEqual(counters.map((e) => (e.args as Record<string, number>)["#transfer-req"]), [3, 1, 0, 2, 4, 0, 1]);
  assert.equal(trace.otherData.start, "2026-08-20T10:00:00.000Z");
  assert.ok(slices.every((e) => typeof e.ts === "number" && (e.ts as number) >= 0));
});
