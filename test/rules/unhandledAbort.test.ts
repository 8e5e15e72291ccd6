import { runRule } from "../../analyzer/rules/index.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { unhandledAbort } from "../../analyzer/rules/unhandledAbort.js";
import { buildIncident } from "./incidentBuilder.js";
import { abortSent, decodeTimeout, gotInfo, lines, prefix } from "./logLines.js";
import { ABORTED, LATER, THREAD_DEATH, wedgedByAbort } from "./scenarios.js";

test("a bootstrap thread that dies after an ABORT is violated with the ABORT, the death and the first stalled room", async () => {
  const { findings } = runRule(unhandledAbort, new Evidence(await wedgedByAbort()));
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.severity, "critical");
  assert.equal(f!.room, ABORTED);
  assert.deepEqual(f!.ranks, ["prefill/tp0"], "the traceback has no TP tag; its per-rank file names the rank");
  assert.deepEqual(
    f!.witness.map((w) => w.text.split("\n")[0]),
    [abortSent(39, 0, ABORTED), THREAD_DEATH[0], decodeTimeout(341, 0, "a1", LATER[0]!)],
  );
  assert.deepEqual(f!.facts?.stalledRooms, LATER);
  assert.match(f!.explanation, /GUARD assertion/);
  assert.match(f!.explanation, /2 room\(s\) that started later timed out/);
});

test("ABORT frames answered by the v0.5.16+ handler are consistent", async () => {
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    `${prefix(40, "TP0")} Received abort notification for room ${ABORTED}, marked as Failed`,
    gotInfo(41, 0, LATER[0]!),
  );
  const decode = lines(abortSent(39, 0, ABORTED));
  const db = await buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill },
    { path: "d0/decode-tp0.log", text: decode },
  ]);
  const r = runRule(unhandledAbort, new Evidence(db));
  assert.deepEqual(r.findings.map((f) => f.verdict), ["consistent"]);
});

test("ABORT frames sent with no word from prefill are undetermined and name what is missing", async () => {
  const decode = lines(abortSent(39, 0, ABORTED), abortSent(40, 1, ABORTED));
  const db = await buildIncident([{ path: "d0/decode-tp0.log", text: decode }]);
  const [f] = runRule(unhandledAbort, new Evidence(db)).findings;
  assert.equal(f!.verdict, "undetermined");
  assert.ok(f!.missing!.includes("config: backend and version"));
});
