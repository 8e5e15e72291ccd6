// Golden tests: every fixture bundle with a hand-written expected.json is
// ingested and analyzed (once per test run, test/sharedIncident.ts), and the
// analysis must reach the bundle's conclusion (fixtures/README.md
// "expected.json"): the top suspect, each finding that must fire (rule, room,
// ranks, witness text), the rules that must not fire, the severity cap of the
// healthy run, and the A/B pair's diff.

import { before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Expected, type ExpectedT } from "../../fixtures/generator/expected.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { diffIncidents } from "../../analyzer/rules/diff.js";
import { analysisReportSchema, type AnalysisReport, type Finding } from "../../analyzer/rules/finding.js";
import { severityRank } from "../../domain/vocabulary.js";
import { fixtureInputs, sharedIncident } from "../sharedIncident.js";

const INCIDENTS = fileURLToPath(new URL("../../../fixtures/incidents/", import.meta.url));
const bundles = readdirSync(INCIDENTS).filter((name) => readdirSync(join(INCIDENTS, name)).includes("expected.json")).sort();
const expectations = new Map<string, ExpectedT>(
  bundles.map((name) => [name, Expected.parse(JSON.parse(readFileSync(join(INCIDENTS, name, "expected.json"), "utf8")))]),
);

interface Analyzed {
  db: IncidentDb;
  report: AnalysisReport;
  expected: ExpectedT;
}

const analyzed = new Map<string, Analyzed>();

before(async () => {
  for (const name of bundles) {
    const expected = expectations.get(name)!;
    const { path, report } = await sharedIncident(fixtureInputs(name));
    analyzed.set(name, { db: openIncident(path, { readonly: true }), report, expected });
  }
});

/** Expected ranks are written `<host>/<role>/tp<N>`; an incident with one host per role labels them `<role>/tp<N>`. */
function names(f: Finding, rank: string): boolean {
  return f.ranks.includes(rank) || f.ranks.includes(rank.slice(rank.indexOf("/") + 1));
}

test("every fixture bundle has an expected.json", () => {
  assert.ok(bundles.length >= 10, `bundles found: ${bundles.join(", ")}`);
});

for (const name of bundles) {
  test(`${name}: the analysis reaches the hand-written conclusion`, () => {
    const { report, expected } = analyzed.get(name)!;
    analysisReportSchema.parse(report);
    const violated = report.findings.filter((f) => f.verdict === "violated");
    assert.equal(report.suspects[0]?.cause ?? null, expected.topSuspect, `top suspect; suspects: ${report.suspects.map((s) => `${s.cause} ${s.confidence}`).join(", ")}`);
    for (const must of expected.mustFire) {
      // A grouped finding names its rooms in `rooms` (one finding per cause, DESIGN.md "Findings").
      const candidates = violated.filter((f) => f.rule === must.rule && (must.room === undefined || f.room === must.room || (f.rooms ?? []).includes(must.room)));
      assert.ok(candidates.length > 0, `${must.rule}${must.room ? ` for room ${must.room}` : ""} must fire`);
      const match = candidates.find(
        (f) =>
          (must.ranks ?? []).every((r) => names(f, r)) &&
          must.witnessContains.every((s) => f.witness.some((w) => w.text.includes(s))),
      );
      assert.ok(
        match,
        `${must.rule}${must.room ? ` ${must.room}` : ""}: no finding names ranks ${JSON.stringify(must.ranks)} with witness text ${JSON.stringify(must.witnessContains)}; ` +
          `candidates: ${JSON.stringify(candidates.map((f) => ({ room: f.room, rooms: f.rooms, ranks: f.ranks, witness: f.witness.map((w) => w.text.slice(0, 160)) })))}`,
      );
    }
    for (const rule of expected.mustNotFire) {
      assert.deepEqual(violated.filter((f) => f.rule === rule).map((f) => f.title), [], `${rule} must not fire`);
    }
    if (expected.maxSeverity) {
      const cap = severityRank(expected.maxSeverity);
      assert.deepEqual(violated.filter((f) => severityRank(f.severity) < cap).map((f) => `${f.severity}: ${f.title}`), [], `nothing above ${expected.maxSeverity}`);
    }
  });
}

test("every fixture, every rule: consistent and violated rest on something checked, undetermined names what is missing", () => {
  for (const [name, { report }] of analyzed) {
    for (const r of report.coverage.rules) if (r.verdict !== "undetermined") assert.ok(r.checked > 0, `${name}: ${r.rule} ${r.verdict} with 0 checked`);
    for (const f of report.findings) {
      if (f.verdict === "consistent") assert.ok((f.checked ?? 0) > 0, `${name}: ${f.id} ${f.rule}`);
      if (f.verdict === "undetermined") assert.ok((f.missing ?? []).length > 0, `${name}: ${f.id} ${f.rule}`);
    }
  }
});

test("healthy: no critical or high finding and no suspect", () => {
  const { report } = analyzed.get("healthy")!;
  assert.deepEqual(report.findings.filter((f) => f.verdict === "violated" && severityRank(f.severity) <= severityRank("high")).map((f) => f.title), []);
  assert.deepEqual(report.suspects, []);
});

for (const name of bundles.filter((n) => expectations.get(n)!.abPair)) {
  test(`${name}: the A/B diff against its pair names the differing setting and the rates`, () => {
    const { db, report, expected } = analyzed.get(name)!;
    const ab = expected.abPair!;
    const other = analyzed.get(ab.other)!;
    const diff = diffIncidents({ db: other.db, name: ab.other, report: other.report }, { db, name, report });
    const keys = diff.settings.map((s) => s.key);
    for (const setting of ab.differingSettings) assert.ok(keys.includes(setting), `${setting} differs; settings: ${keys.join(", ")}`);
    const rate = (m: string) => diff.rates.find((r) => r.metric === m)!;
    assert.deepEqual([rate("timeouts").a.count, rate("timeouts").b.count], [ab.waitingTimeouts.other, ab.waitingTimeouts.this]);
    assert.deepEqual([rate("corrupted-rooms").a.count, rate("corrupted-rooms").b.count], [ab.corruptedRooms.other, ab.corruptedRooms.this]);
    assert.match(diff.conclusion, /index_k_dtype fp8 → bf16 .*raises corrupted-rooms from 0\.0% \(0\//);
    const effect = Object.fromEntries(diff.causes.map((c) => [c.cause, c.effect]));
    assert.equal(effect["stale-slot-reuse"], "supports");
    assert.equal(effect["overlap-collective-desync"], "neutral");
    // Both runs size the pool for their own dtype (132 B/token fp8, 256 B/token bf16), so the
    // fp8-hardcoded sizing cause cannot explain the change.
    assert.equal(effect["pool-sizing-fp8-hardcoded"], "refutes");
    assert.equal(diff.alignment.by, "rid");
  });
}
