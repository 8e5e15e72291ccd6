// A crash's finding is titled by its exception, the traceback's last line,
// wherever that line is in the record; a traceback cut before it says so
// rather than quoting its header ("Scheduler hit an exception: Traceback
// (most recent call last):") with whatever wrapper the log put around it.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { analysisReportSchema } from "../../analyzer/rules/finding.js";
import { REPO_ROOT } from "../sharedIncident.js";
import { scratchDir } from "../scratchDir.js";
import { KVREWIND_CLI } from "../kvrewindCli.js";

const MAIN = KVREWIND_CLI;
const CRASHED = join(REPO_ROOT, "test/bundles/crashed-scheduler");
const TRACEBACK = "Traceback (most recent call last):";

/** The titles of the violated process-failure findings `analyze --json` gives for the input. */
function crashTitles(input: string): string[] {
  const r = spawnSync(process.execPath, [MAIN, "analyze", input, "--json"], { encoding: "utf8" });
  assert.ok(r.status === 0 || r.status === 1, r.stderr);
  const report = analysisReportSchema.parse(JSON.parse(r.stdout));
  return report.findings.filter((f) => f.rule === "process-failure" && f.verdict === "violated").map((f) => f.title);
}

/** The exception line that ends the file's traceback: the first line at the margin after its frames. */
function exceptionLine(log: string): string {
  const lines = log.split("\n");
  const header = lines.findIndex((l) => l.endsWith(TRACEBACK));
  return lines.slice(header + 1).find((l) => l.length > 0 && !/^\s/.test(l))!;
}

test("a crash log pasted with trailing spaces (Markdown line breaks) is titled by its exception, as the log itself is", () => {
  const pasted = join(scratchDir("kvrewind-crash-pasted-"), "crashed-scheduler");
  cpSync(CRASHED, pasted, { recursive: true });
  for (const host of readdirSync(pasted)) {
    for (const name of readdirSync(join(pasted, host))) {
      const file = join(pasted, host, name);
      writeFileSync(file, readFileSync(file, "utf8").replace(/\n/g, "  \n"));
    }
  }
  const exception = exceptionLine(readFileSync(join(CRASHED, "p0/prefill-tp1.log"), "utf8"));
  const original = crashTitles(CRASHED);
  assert.equal(original.length, 1);
  assert.ok(original[0]!.includes(exception.slice(0, 60)), `the log's own title names ${exception.slice(0, 60)}: ${original[0]}`);
  assert.deepEqual(crashTitles(pasted), original);
});

test("a traceback cut before its exception line, in a CRI-wrapped log, says so in its title instead of quoting the wrapped header", () => {
  // A user's paste (test/corpus): the scheduler's traceback ends inside its frames.
  const excerpt = join(REPO_ROOT, "test/corpus/excerpts/sglang-8336-a.log");
  const log = readFileSync(excerpt, "utf8");
  assert.match(log, /stdout F \[[^\]]+ TP2\] Scheduler hit an exception: Traceback/);
  const titles = crashTitles(excerpt);
  assert.equal(titles.length, 1);
  assert.match(titles[0]!, /^\S+\/tp2 died: a Python traceback whose exception line is not in the log \(scheduler\)$/);
  assert.doesNotMatch(titles[0]!, /stdout F|Traceback/);
});

test("a process of unknown role that died is a suspect whose summary names no rank, not 'unknown; unknown'", () => {
  // A user's paste (test/corpus, working half): Mooncake's transfer engine bench fails a glog check and aborts; no line names a rank or role.
  const excerpt = join(REPO_ROOT, "test/corpus/excerpts/mooncake-391-a.log");
  assert.match(readFileSync(excerpt, "utf8"), /Assert failed: xport\n[\s\S]*Aborted \(core dumped\)/);
  const r = spawnSync(process.execPath, [MAIN, "analyze", excerpt, "--json"], { encoding: "utf8" });
  const report = analysisReportSchema.parse(JSON.parse(r.stdout));
  const crash = report.suspects.find((s) => s.cause === "process-crash");
  assert.ok(crash, JSON.stringify(report.suspects));
  assert.match(crash.summary, /^the process died \(/);
  assert.doesNotMatch(crash.summary, /unknown;/);
});
