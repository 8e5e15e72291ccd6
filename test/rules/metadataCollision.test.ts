import { runRule } from "../../analyzer/rules/index.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { metadataCollision } from "../../analyzer/rules/metadataCollision.js";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { buildIncident } from "./incidentBuilder.js";
import { probe } from "./probeLines.js";
import { abortSent, decodeBatch, lines, prefix, sentMetadata } from "./logLines.js";

const EXPECTED = "8972542885242963296";
const ACTUAL = "5830149913321";

test("a Context corruption line names both rooms, the buffer index and the other room's last decode line", async () => {
  const decode = lines(
    sentMetadata(1, 0, ACTUAL),
    abortSent(30, 0, ACTUAL),
    sentMetadata(31, 0, EXPECTED),
    `${prefix(40, "DP0 TP0")} Context corruption detected: Request 9f2c01 (bootstrap_room=${EXPECTED}) received metadata from bootstrap_room=${ACTUAL}. ` +
      "Metadata buffer index: 17. This indicates metadata buffer index collision.",
  );
  const db = await buildIncident([{ path: "d0/decode-tp0.log", text: decode }]);
  const { findings } = runRule(metadataCollision, new Evidence(db));
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.room, EXPECTED);
  assert.equal(f!.title, `Room ${EXPECTED} received room ${ACTUAL}'s metadata (buffer index 17)`);
  assert.deepEqual(f!.witness.map((w) => w.line), [4, 2]);
  assert.match(f!.explanation, /^Let request 9f2c01 of room 8972542885242963296 be committed from metadata buffer index 17 \(d0\/decode-tp0.log:4\)/);
});

test("decode logs without the line are consistent; no decode log is undetermined", async () => {
  const decode = lines(sentMetadata(1, 0, ACTUAL), decodeBatch(2, 1));
  const ok = runRule(metadataCollision, new Evidence(await buildIncident([{ path: "d0/decode-tp0.log", text: decode }])));
  assert.equal(ok.findings[0]!.verdict, "consistent");
  assert.equal(ok.checked, 1);
  const prefillOnly = lines(`${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`);
  const none = runRule(metadataCollision, new Evidence(await buildIncident([{ path: "p0/prefill.log", text: prefillOnly }])));
  assert.equal(none.findings[0]!.verdict, "undetermined");
});

test("two live rooms given one metadata buffer (probe aux_index) are a collision the replay finds", async () => {
  const d0 = { host: "d0", role: "decode" as const, tp: 0 };
  const decode = lines(
    probe(0, d0, "config", { backend: "nixl", version: "0.5.18" }),
    probe(1, d0, "kv.meta", { pages: [[0, 4]], dst: "p0/tp0", aux_index: 17 }, ACTUAL),
    probe(2, d0, "kv.meta", { pages: [[4, 8]], dst: "p0/tp0", aux_index: 17 }, EXPECTED),
  );
  const report = analyzeIncident(await buildIncident([{ path: "d0/probe-tp0.jsonl", text: decode }]));
  const [f] = report.findings.filter((x) => x.rule === "metadata-collision" && x.verdict === "violated");
  assert.equal(f?.room, EXPECTED);
  assert.equal(f!.title, `Room ${EXPECTED} given metadata buffer 17 while room ${ACTUAL} still holds it`);
  assert.deepEqual(f!.witness.map((w) => w.line), [2, 3]);
});
