// The built-in rules written in the language (docs/hypotheses/) give the same
// answer as the rules on every fixture incident and every hand-written
// bundle: a rule is violated exactly where one of the hypotheses that restate
// it is, and wherever it is violated, so is the mechanism hypothesis of one of
// the causes it decides (a mechanism may happen without its fault: a write into
// freed pages that the new owner's own write overwrites). (The
// rules also read the run's stated settings: where a rule says consistent
// because HiCache is stated off, its hypothesis may be undetermined; never
// the reverse of a violation.) A rule the language states only in part is
// violated wherever that part is.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkHypotheses } from "../../analyzer/hypotheses/run.js";
import { loadLibrary } from "../../analyzer/hypotheses/library.js";
import { CAUSE_CHECKS, HYPOTHESIS_CHECKS, RULES_STATED_IN_PART } from "../../analyzer/rules/checks.js";
import type { AnalysisReport } from "../../analyzer/rules/finding.js";
import type { RuleId } from "../../domain/vocabulary.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { BUNDLE_NAMES } from "../rules/handBundles.js";
import { bundleInputs, fixtureInputs, sharedIncident, type IncidentInputs } from "../sharedIncident.js";

/** The library hypotheses that restate each rule's check, from the one table (analyzer/rules/checks.ts). */
function hypothesesByRule(inPart: boolean): Partial<Record<RuleId, string[]>> {
  const out: Partial<Record<RuleId, string[]>> = {};
  for (const [name, { rule }] of Object.entries(HYPOTHESIS_CHECKS)) if (RULES_STATED_IN_PART.has(rule) === inPart) (out[rule] ??= []).push(name);
  return out;
}

/** Each rule the language expresses whole, and the library hypotheses that state it. */
const RULE_HYPOTHESES = hypothesesByRule(false);

/** The mechanism hypotheses of the causes each rule decides: one of them is violated wherever the rule is. */
const RULE_MECHANISMS: Partial<Record<RuleId, string[]>> = {};
for (const { rule, mechanism } of Object.values(CAUSE_CHECKS)) {
  if (mechanism && !(RULE_MECHANISMS[rule] ??= []).includes(mechanism)) RULE_MECHANISMS[rule]!.push(mechanism);
}

/**
 * Rules the language states only in part (docs/hypotheses.md "The library"):
 * each hypothesis here is one of the things the rule checks, so where it is
 * violated the rule must be; the rule may be violated by what the language
 * cannot state (frozen queue gauges, probe timeouts, transfer-engine lines).
 */
const RULE_PARTS = hypothesesByRule(true);

const INCIDENTS = fileURLToPath(new URL("../../../fixtures/incidents/", import.meta.url));
const library = loadLibrary();

/** The shared incident (test/sharedIncident.ts), read-only, and its analysis. */
async function analyzed(inputs: IncidentInputs): Promise<{ db: IncidentDb; report: AnalysisReport }> {
  const { path, report } = await sharedIncident(inputs);
  return { db: openIncident(path, { readonly: true }), report };
}

/** The partial statements seen violated somewhere: the implication above is tested only where one is. */
const partsViolated = new Set<string>();

function disagreements(name: string, db: IncidentDb, report: AnalysisReport): string[] {
  const verdicts = new Map(checkHypotheses(db, library).verdicts.map((v) => [v.name!, v]));
  const out: string[] = [];
  for (const [rule, names] of Object.entries(RULE_HYPOTHESES)) {
    const ruleViolated = report.coverage.rules.find((r) => r.rule === rule)?.verdict === "violated";
    const hyps = names.map((n) => verdicts.get(n)!);
    const hypViolated = hyps.some((v) => v.verdict === "violated");
    if (ruleViolated !== hypViolated) out.push(`${name}: ${rule} ${ruleViolated ? "violated" : "not violated"}, ${names.map((n, i) => `${n} ${hyps[i]!.verdict}`).join(", ")}`);
  }
  for (const [rule, names] of Object.entries(RULE_MECHANISMS)) {
    const ruleViolated = report.coverage.rules.find((r) => r.rule === rule)?.verdict === "violated";
    if (ruleViolated && !names.some((n) => verdicts.get(n)!.verdict === "violated")) out.push(`${name}: ${rule} violated, none of its mechanisms (${names.join(", ")}) is`);
  }
  for (const [rule, names] of Object.entries(RULE_PARTS)) {
    const ruleViolated = report.coverage.rules.find((r) => r.rule === rule)?.verdict === "violated";
    for (const n of names) {
      if (verdicts.get(n)!.verdict !== "violated") continue;
      partsViolated.add(n);
      if (!ruleViolated) out.push(`${name}: ${n} violated, ${rule} not`);
    }
  }
  return out;
}

test("every library hypothesis a rule maps to exists", () => {
  const names = new Set(library.map((h) => h.name));
  for (const n of [...Object.values(RULE_HYPOTHESES), ...Object.values(RULE_MECHANISMS), ...Object.values(RULE_PARTS)].flat()) assert.ok(names.has(n), n);
});

test("on every fixture incident, each rule and its hypotheses agree on whether it is violated", async () => {
  const found: string[] = [];
  const names = readdirSync(INCIDENTS).filter((n) => readdirSync(join(INCIDENTS, n)).includes("expected.json"));
  assert.ok(names.length >= 10);
  for (const name of names) {
    const { db, report } = await analyzed(fixtureInputs(name));
    try {
      found.push(...disagreements(name, db, report));
    } finally {
      db.close();
    }
  }
  assert.deepEqual(found, []);
});

test("on every hand-written bundle, each rule and its hypotheses agree on whether it is violated", async () => {
  const found: string[] = [];
  for (const name of BUNDLE_NAMES) {
    const { db, report } = await analyzed(bundleInputs(name));
    try {
      found.push(...disagreements(name, db, report));
    } finally {
      db.close();
    }
  }
  assert.deepEqual(found, []);
});

test("each partial statement is violated on some fixture or bundle, so its implication was tested", () => {
  assert.deepEqual([...partsViolated].sort(), Object.values(RULE_PARTS).flat().sort());
});
