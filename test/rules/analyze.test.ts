import { test } from "node:test";
import assert from "node:assert/strict";
import { renderMarkdown, buildTimeline } from "../../analyzer/report/markdown.js";
import { renderText } from "../../analyzer/report/text.js";
import { analysisReportSchema } from "../../analyzer/rules/finding.js";
import { RULE_IDS } from "../../domain/vocabulary.js";
import { analyze, loadAnalysis, storeAnalysis } from "../../analyzer/rules/index.js";
import { ABORTED, healthyRun, wedgedByAbort } from "./scenarios.js";

test("the abort wedge ranks unhandled-abort first, backed by the thread-death finding", async () => {
  const report = analyze(await wedgedByAbort());
  analysisReportSchema.parse(report);
  const top = report.suspects[0]!;
  assert.equal(top.cause, "unhandled-abort");
  assert.equal(top.rank, 1);
  const backing = report.findings.filter((f) => top.findings.includes(f.id)).map((f) => f.rule);
  assert.ok(backing.includes("unhandled-abort"));
  assert.ok(top.confidence > 0.8, `confidence ${top.confidence}`);
  assert.match(top.falsify, /v0\.5\.16/);
  const death = report.findings.find((f) => f.rule === "unhandled-abort")!;
  assert.equal(death.id, "F1", "the critical finding is numbered first");
  assert.equal(death.room, ABORTED);
  assert.equal(typeof death.room, "string");
});

test("every rule answers, and the coverage lists each rule once with its verdict", async () => {
  const report = analyze(await healthyRun());
  const coveredRules = report.coverage.rules.map((r) => r.rule).sort();
  assert.deepEqual(coveredRules, [...new Set(report.findings.map((f) => f.rule))].sort());
  assert.ok(coveredRules.every((r) => (RULE_IDS as readonly string[]).includes(r)));
  assert.equal(report.findings.filter((f) => f.verdict === "violated" && (f.severity === "critical" || f.severity === "high")).length, 0);
  assert.deepEqual(report.suspects, []);
  assert.deepEqual(report.coverage.ranks, ["decode/tp0", "prefill/tp0"]);
});

test("stored findings and suspects read back as the same report", async () => {
  const db = await wedgedByAbort();
  const report = analyze(db, { name: "wedge" });
  storeAnalysis(db, report);
  assert.deepEqual(loadAnalysis(db), report);
  const rows = db.prepare("SELECT id, rule, room, witness FROM findings WHERE verdict = 'violated' ORDER BY id").all() as { id: string; rule: string; room: string | null; witness: string }[];
  const death = rows.find((r) => r.rule === "unhandled-abort")!;
  assert.equal(death.room, ABORTED);
  assert.deepEqual(JSON.parse(death.witness), report.findings.find((f) => f.id === death.id)!.witness.map((w) => w.seq));
  storeAnalysis(db, report);
  assert.equal((db.prepare("SELECT COUNT(*) AS n FROM findings").get() as { n: number }).n, report.findings.length, "re-analysis replaces, not appends");
});

test("the text report puts suspects first and quotes witness lines; the markdown reads as a post-mortem", async () => {
  const db = await wedgedByAbort();
  const report = analyze(db, { name: "wedge" });
  const text = renderText(report);
  assert.ok(text.indexOf("SUSPECTS") < text.indexOf("FINDINGS"));
  assert.match(text, /1\. unhandled-abort/);
  assert.match(text, /> d0\/decode-tp0.log:2 #\d+ {2}\[2026-08-20 10:00:39 DP0 TP0\] Sent abort notification/);
  const md = renderMarkdown(report, buildTimeline(db, report));
  for (const heading of ["# Post-mortem: wedge — unhandled-abort", "## Summary", "## Timeline", "## Suspects", "## Findings", "## Coverage"]) {
    assert.ok(md.includes(heading), heading);
  }
  assert.match(md, /\*\*Falsify:\*\*/);
  assert.match(md, /\| 2026-08-20T10:00:39.000Z \| decode\/tp0 \| d0\/decode-tp0.log:2 \|/);
});
