import { test } from "node:test";
import assert from "node:assert/strict";
import { diffIncidents, incidentDiffSchema } from "../../analyzer/rules/diff.js";
import { abRun as run } from "./scenarios.js";

test("fp8 vs bf16: the dtype is the one difference, it raises the corrupted-room rate, and the diff says which causes that supports", async () => {
  const a = await run("fp8", 8972542885242963200n, []);
  const b = await run("bf16", 5830149913321000000n, [3, 6]);
  const d = incidentDiffSchema.parse(diffIncidents({ db: a, name: "fp8.db" }, { db: b, name: "bf16.db" }));
  assert.deepEqual(d.settings, [{ key: "index_k_dtype", a: "fp8", b: "bf16" }]);
  const corrupted = d.rates.find((r) => r.metric === "corrupted-rooms")!;
  assert.deepEqual([corrupted.a.count, corrupted.a.total, corrupted.b.count, corrupted.b.total], [0, 8, 2, 8]);
  assert.equal(d.conclusion, "index_k_dtype fp8 → bf16 raises corrupted-rooms from 0.0% (0/8) to 25.0% (2/8)");
  assert.deepEqual(d.alignment, { by: "rid", aligned: 8, onlyA: 0, onlyB: 0 });
  assert.equal(d.firstDivergence?.index, 3);
  assert.equal(d.firstDivergence?.a, null);
  assert.equal(d.firstDivergence?.b?.step, "corrupted");
  assert.equal(d.firstDivergence?.b?.request, "r-04 (room 5830149913321000003)");
  const effect = Object.fromEntries(d.causes.map((c) => [c.cause, c.effect]));
  assert.equal(effect["hicache-indexk-race"], "supports");
  assert.equal(effect["stale-slot-reuse"], "supports");
  assert.equal(effect["transfer-saturation"], "refutes", "bf16 did not change the timeout rate");
  assert.equal(effect["overlap-collective-desync"], "neutral");
});

test("two runs under the same settings with the same outcomes differ in nothing", async () => {
  const d = diffIncidents({ db: await run("fp8", 8972542885242963200n, []), name: "a" }, { db: await run("fp8", 7140283925190346100n, []), name: "b" });
  assert.deepEqual(d.settings, []);
  assert.equal(d.firstDivergence, null);
  assert.equal(d.conclusion, "no stated setting differs; no rate changes by 2 points or more");
  assert.ok(d.causes.every((c) => c.effect === "neutral"));
});
