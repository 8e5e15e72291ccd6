// A report agrees with itself (DESIGN.md "Findings"), over every fixture
// incident and every hand-written bundle: no suspect whose own rule says
// `consistent` (and one whose rule is not violated says why it is ranked);
// no rule `consistent` that a gap of the same report blinds; no hypothesis
// ruled out beside a violated finding of its check, none confirmed where its
// rule says `consistent`. Causes, rules and hypotheses are joined by the one
// table the analysis reads (analyzer/rules/checks.ts).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { CAUSE_CHECKS, findingsOfCheck, HYPOTHESIS_CHECKS } from "../../analyzer/rules/checks.js";
import { judgeIncident, type Judged } from "../../analyzer/rules/index.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident, type IncidentDb } from "../../store/db.js";
import { scratchDir } from "../scratchDir.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const dirsOf = (parent: string): string[] =>
  readdirSync(join(ROOT, parent)).filter((n) => statSync(join(ROOT, parent, n)).isDirectory()).sort().map((n) => join(parent, n));
const INCIDENTS = [...dirsOf("fixtures/incidents"), ...dirsOf("test/bundles")];

function filesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesOf(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The incident ingested by the real pipeline into a scratch database; a fixture's expected.json is its answer key, not evidence. */
async function ingestIncident(dir: string): Promise<IncidentDb> {
  const abs = join(ROOT, dir);
  const db = join(scratchDir("kvrewind-agree-"), "incident.db");
  const cwd = process.cwd();
  process.chdir(abs);
  try {
    await ingest({ db, paths: filesOf(abs).map((f) => relative(abs, f)).filter((f) => f !== "expected.json") });
  } finally {
    process.chdir(cwd);
  }
  return openIncident(db);
}

const judged = new Map<string, Judged>();
const opened: IncidentDb[] = [];

before(async () => {
  for (const dir of INCIDENTS) {
    const db = await ingestIncident(dir);
    opened.push(db);
    judged.set(dir, judgeIncident(db, { name: dir }));
  }
});

after(() => {
  for (const db of opened) db.close();
});

function ruleVerdict(j: Judged, rule: string): string {
  return j.analysis.coverage.rules.find((r) => r.rule === rule)!.verdict;
}

test("the incidents: every fixture and every hand-written bundle", () => {
  assert.ok(INCIDENTS.filter((d) => d.startsWith("fixtures/")).length >= 10, INCIDENTS.join(", "));
  assert.ok(INCIDENTS.filter((d) => d.startsWith("test/")).length >= 11, INCIDENTS.join(", "));
});

test("the explanations that name a cause state it as a because: a late write, a dead bootstrap thread, a crash before a failure", () => {
  // Rules whose violated findings in these incidents say what caused what (process-failure does only beside a rank's silence).
  const causal = ["stale-slot-reuse", "transfer-stall", "unhandled-abort", "transport-failure"] as const;
  const stated = new Map<string, number>(causal.map((r) => [r, 0]));
  for (const j of judged.values()) {
    for (const f of j.findings) if (stated.has(f.draft.rule) && (f.draft.because ?? []).length > 0) stated.set(f.draft.rule, stated.get(f.draft.rule)! + 1);
  }
  assert.deepEqual([...stated].filter(([, n]) => n === 0).map(([r]) => r), [], JSON.stringify(Object.fromEntries(stated)));
});

for (const dir of INCIDENTS) {
  test(`${dir}: no suspect whose own rule says consistent; one whose rule is not violated says why`, () => {
    const j = judged.get(dir)!;
    const wrong = j.analysis.suspects.flatMap((s) => {
      const rule = CAUSE_CHECKS[s.cause].rule;
      const verdict = ruleVerdict(j, rule);
      if (verdict === "consistent") return [`${s.cause} ranked ${s.rank} while ${rule} is consistent`];
      if (verdict === "undetermined" && !s.summary.includes(`${rule}, the cause's own check, is undetermined`)) return [`${s.cause} ranked ${s.rank} without saying that ${rule} is undetermined`];
      return [];
    });
    assert.deepEqual(wrong, []);
  });

  test(`${dir}: every "because" cites a cause that comes before its effect, or says the order is unknown`, () => {
    const j = judged.get(dir)!;
    const wrong = j.findings.flatMap((f) =>
      (f.draft.because ?? []).flatMap(({ cause, effect }) => {
        if (cause.timeless || effect.timeless) return /unknown/.test(f.draft.explanation) ? [] : [`${f.id} ${f.draft.title}: a timeless cause or effect, and the explanation does not say the order is unknown`];
        return cause.seq <= effect.seq ? [] : [`${f.id} ${f.draft.title}: its cause (seq ${cause.seq}, ${cause.kind}) comes after its effect (seq ${effect.seq}, ${effect.kind})`];
      }),
    );
    assert.deepEqual(wrong, []);
  });

  test(`${dir}: no rule consistent that a gap of the same report blinds`, () => {
    const j = judged.get(dir)!;
    const wrong = j.analysis.coverage.gaps.flatMap((g) =>
      (g.blinds ?? []).filter((rule) => ruleVerdict(j, rule) === "consistent").map((rule) => `${g.kind} blinds ${rule}, which is consistent (${g.detail})`),
    );
    assert.deepEqual(wrong, []);
  });

  test(`${dir}: no hypothesis ruled out or left undetermined beside a violated finding of its check, none violated where its rule is consistent`, () => {
    const j = judged.get(dir)!;
    const wrong = j.analysis.hypotheses.flatMap((h) => {
      const check = h.name === undefined ? undefined : HYPOTHESIS_CHECKS[h.name];
      if (!check) return [];
      const violated = findingsOfCheck(check, j.findings).filter((f) => f.draft.verdict === "violated");
      // A hypothesis no narrower than its rule: violated wherever its part of the check is (issue: the decode-only HiCache hypothesis).
      if (h.verdict !== "violated" && violated.length > 0) return [`${h.name} ${h.verdict === "consistent" ? "ruled out" : "undetermined"} beside ${violated.map((f) => `${f.id} ${f.draft.title}`).join("; ")}`];
      if (h.verdict === "violated" && ruleVerdict(j, check.rule) === "consistent") return [`${h.name} violated while ${check.rule} is consistent`];
      return [];
    });
    assert.deepEqual(wrong, []);
  });
}
