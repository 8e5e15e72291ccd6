import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { analysisReportSchema } from "../../analyzer/rules/finding.js";
import { incidentDiffSchema } from "../../analyzer/rules/diff.js";
import { abRun, healthyRun, wedgedByAbort, wedgeFiles } from "./scenarios.js";
import { scratchDir } from "../scratchDir.js";
import { fixtureInputs, ingestedCopy, ingestedIncident } from "../sharedIncident.js";
import { checkTrace, eventsOf, trackNames } from "./traceEventFormat.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;

function kvrewind(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function dbFile(build: () => ReturnType<typeof wedgedByAbort>): Promise<string> {
  const db = await build();
  const path = db.name;
  db.close();
  return path;
}

test("analyze --json prints the contract and exits 1 on a critical finding; the findings land in the db", async () => {
  const path = await dbFile(wedgedByAbort);
  const r = kvrewind("analyze", path, "--json");
  assert.equal(r.status, 1, r.stderr);
  const report = analysisReportSchema.parse(JSON.parse(r.stdout));
  assert.equal(report.suspects[0]!.cause, "unhandled-abort");
  assert.match(r.stdout, /"room": "8972542885242963296"/, "rooms print as strings");
  const again = kvrewind("analyze", path, "--fail-on", "critical", "--markdown");
  assert.equal(again.status, 1);
  assert.match(again.stdout, /^# Post-mortem: /);
});

test("a healthy incident exits 0 and names no suspect", async () => {
  const path = await dbFile(healthyRun);
  const r = kvrewind("analyze", path);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /SUSPECTS\n {2}none/);
});

test("analyze on a bundle directory ingests it into a temporary database first", () => {
  const dir = scratchDir("kvrewind-bundle-");
  for (const f of wedgeFiles()) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.text);
  }
  const r = kvrewind("analyze", dir, "--json");
  assert.equal(r.status, 1, r.stderr);
  const report = analysisReportSchema.parse(JSON.parse(r.stdout));
  assert.equal(report.suspects[0]!.cause, "unhandled-abort");
  assert.ok(report.findings[0]!.witness.some((w) => w.source === join(dir, "p0/prefill-tp0.log") && w.line === 4));
});

test("usage and input errors exit 2 with a message naming the file", async () => {
  const missing = kvrewind("analyze", "/nonexistent/incident.db", "--json");
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /\/nonexistent\/incident\.db: no such file or directory/);
  assert.equal(missing.stdout, "");
  const badSeverity = kvrewind("analyze", await dbFile(healthyRun), "--fail-on", "severe");
  assert.equal(badSeverity.status, 2);
  assert.equal(kvrewind("analyze", await dbFile(healthyRun), "--json", "--markdown").status, 2);
});

test("diff --json compares two incidents; analyze --baseline lets the comparison weigh in on the suspects", async () => {
  const fp8 = await dbFile(() => abRun("fp8", 8972542885242963200n, []));
  const bf16 = await dbFile(() => abRun("bf16", 5830149913321000000n, [3, 6]));
  const r = kvrewind("diff", fp8, bf16, "--json");
  assert.equal(r.status, 0, r.stderr);
  const diff = incidentDiffSchema.parse(JSON.parse(r.stdout));
  assert.match(diff.conclusion, /^index_k_dtype fp8 → bf16 raises corrupted-rooms/);
  const text = kvrewind("diff", fp8, bf16);
  assert.match(text.stdout, /SETTINGS THAT DIFFER\n {2}index_k_dtype +fp8 +→ bf16/);
  const alone = analysisReportSchema.parse(JSON.parse(kvrewind("analyze", bf16, "--json").stdout));
  const withBaseline = analysisReportSchema.parse(JSON.parse(kvrewind("analyze", bf16, "--json", "--baseline", fp8).stdout));
  const conf = (rep: typeof alone) => rep.suspects.find((s) => s.cause === "stale-slot-reuse")!;
  assert.ok(conf(withBaseline).confidence > conf(alone).confidence, `${conf(withBaseline).confidence} > ${conf(alone).confidence}`);
  assert.match(conf(withBaseline).summary, /A\/B: index_k_dtype fp8 → bf16 raises corrupted-rooms/);
});

test("diff of the wedged fixture and the healthy one: a cause that depends on no run setting says so, and no list reads empty", async () => {
  const [wedged, healthy] = await Promise.all([ingestedIncident(fixtureInputs("nixl-abort-wedge")), ingestedIncident(fixtureInputs("healthy"))]);
  const text = kvrewind("diff", wedged, healthy);
  assert.equal(text.status, 0, text.stderr);
  assert.doesNotMatch(text.stdout, /\(\s*\)/, "an empty list in parentheses");
  const diff = incidentDiffSchema.parse(JSON.parse(kvrewind("diff", wedged, healthy, "--json").stdout));
  // The run's version differs and the stalls went from all to none, but a process crash depends on no setting a run states.
  assert.ok(diff.settings.length > 0);
  const crash = diff.causes.find((c) => c.cause === "process-crash")!;
  assert.equal(crash.effect, "neutral");
  assert.match(crash.reason, /^depends on no setting a run states; stalls 100\.0% → 0\.0%/);
  assert.match(text.stdout, /^ {2}process-crash +neutral +depends on no setting a run states; /m);
});

test("export --format chrome-json writes a trace with named lanes, slices and queue counters", async () => {
  const path = await dbFile(healthyRun);
  const r = kvrewind("export", path, "--format", "chrome-json");
  assert.equal(r.status, 0, r.stderr);
  const trace = checkTrace(JSON.parse(r.stdout));
  const { process, threadOrder } = trackNames(trace);
  assert.deepEqual([...process.values()], ["d0/decode", "p0/prefill"]);
  assert.ok(threadOrder.includes("p0/prefill TP0 bootstrap") && threadOrder.includes("d0/decode TP0 scheduler"), threadOrder.join(", "));
  const slices = eventsOf(trace, "X");
  assert.ok(slices.some((e) => e.name === "boot.got_info" && e.args?.["line"] === "p0/prefill-tp0.log:2"));
  const counters = eventsOf(trace, "C").filter((e) => e.name === "TP0 scheduler #transfer-req");
  assert.deepEqual(counters.map((e) => e.args["value"]), [3, 1, 0, 2, 4, 0, 1]);
  assert.equal(trace.otherData?.["start"], "2026-08-20T10:00:00.000Z");
  assert.ok(slices.every((e) => e.ts >= 0));
});

test("a witness whose line has no time says so, in the text report and in the JSON", async () => {
  const bundle = fileURLToPath(new URL("../../../test/bundles/k8s-mooncake-pod-logs/", import.meta.url));
  // The bundle as `analyze <bundle>` ingests it (test/sharedIncident.ts); ingesting a folder first is the test above.
  const path = await ingestedCopy({ paths: [bundle] });
  const json = kvrewind("analyze", path, "--json");
  const report = analysisReportSchema.parse(JSON.parse(json.stdout));
  const witnesses = report.findings.flatMap((f) => f.witness);
  // The traceback-only capture of prefill TP1: no line of its file is dated, so its one record has no time at all (timeless).
  const death = witnesses.find((w) => w.source.endsWith("sglang-prefill-0/previous-tp1.log"));
  assert.deepEqual([death?.tsInferred, death?.timeless], [true, true]);
  assert.ok(witnesses.filter((w) => w.source.endsWith(".log") && !w.source.endsWith("previous-tp1.log")).every((w) => w.tsInferred === undefined && w.timeless === undefined));
  const text = kvrewind("analyze", path);
  assert.match(text.stdout, /previous-tp1\.log:1 #\d+ \(time unknown\)  Exception in thread Thread-3 \(bootstrap_thread\):/);
});
