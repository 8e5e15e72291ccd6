// The model on a worker thread beside the rules' pass (analyzer/replay/
// replayBeside.ts, from a million events) gives the analysis the replay in
// the pass gives: the same findings, suspects and hypotheses, on incidents
// whose replay finds violations and pairs dumped pages.

import { test } from "node:test";
import assert from "node:assert/strict";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import type { Analysis } from "../../analyzer/rules/analysis.js";
import { replayEvidenceOf } from "../../analyzer/rules/replayEvidence.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { replayBeside } from "../../analyzer/replay/replayBeside.js";
import { PageKernels } from "../../analyzer/model/pageKernels.js";
import { openIncident } from "../../store/db.js";
import { bundleInputs, fixtureInputs, sharedIncident, type IncidentInputs } from "../sharedIncident.js";

/** The analysis without the figures that time it. */
function untimed(a: Analysis): unknown {
  return JSON.parse(JSON.stringify(a, (key, value: unknown) => (key === "timing" ? undefined : value)));
}

const CASES: [string, IncidentInputs][] = [
  ["stale-slot-reuse (model violations)", fixtureInputs("stale-slot-reuse")],
  ["checksum-evidence (checksums and pages)", fixtureInputs("checksum-evidence")],
  ["page-dumps (page bytes through the kernels)", bundleInputs("page-dumps")],
  ["nixl-abort-wedge (an abort's ordering)", fixtureInputs("nixl-abort-wedge")],
];

for (const [label, inputs] of CASES) {
  test(`the replay beside the rules' pass gives the analysis of the replay in it: ${label}`, async () => {
    const { path } = await sharedIncident(inputs);
    const db = openIncident(path, { readonly: true });
    try {
      const inPass = analyzeIncident(db, { replayBeside: false });
      const beside = analyzeIncident(db, { replayBeside: true });
      assert.ok(inPass.findings.some((f) => f.verdict === "violated"), "the case has something to find");
      assert.deepEqual(untimed(beside), untimed(inPass));
    } finally {
      db.close();
    }
  });
}

test("the worker thread's evidence is the replay's, its page kernels whole", async () => {
  const { path } = await sharedIncident(bundleInputs("page-dumps"));
  const db = openIncident(path, { readonly: true });
  try {
    const reading = replayBeside(db);
    assert.ok(reading, "the worker thread runs (its module is built)");
    const evidence = reading.finish();
    const here = replayEvidenceOf(replayIncident(db));
    assert.ok(evidence.pages instanceof PageKernels);
    assert.ok(here.pages!.pages.length > 0, "the case dumps pages");
    assert.deepEqual(evidence.pages.pairs(), here.pages!.pairs());
    assert.deepEqual({ ...evidence, pages: undefined }, { ...here, pages: undefined });
  } finally {
    db.close();
  }
});
