import { test } from "node:test";
import assert from "node:assert/strict";
import { Evidence } from "../../analyzer/rules/evidence.js";
import { unhandledAbort } from "../../analyzer/rules/unhandledAbort.js";
import { buildIncident } from "./incidentBuilder.js";
import { abortSent, decodeTimeout, gotInfo, lines, prefix, sentMetadata } from "./logLines.js";

const ABORTED = "8972542885242963296";
const LATER = ["5830149913321", "7140283925190346112"];

// Python's default thread excepthook output (§3.3: no SGLang prefix), after
// the NIXL GUARD assertion of §7.1.
const THREAD_DEATH = [
  "Exception in thread Thread-3 (bootstrap_thread):",
  "Traceback (most recent call last):",
  '  File "/usr/lib/python3.12/threading.py", line 1075, in _bootstrap_inner',
  "    self.run()",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1423, in bootstrap_thread',
  "    assert (",
  "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
];

function wedgedIncident() {
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    gotInfo(5, 0, ABORTED),
    gotInfo(40, 0, "1111"),
    THREAD_DEATH,
  );
  const decode = lines(
    sentMetadata(4, 0, ABORTED),
    abortSent(39, 0, ABORTED),
    sentMetadata(41, 0, LATER[0]!),
    sentMetadata(42, 0, LATER[1]!),
    decodeTimeout(341, 0, "a1", LATER[0]!),
    decodeTimeout(342, 0, "a2", LATER[1]!),
  );
  return buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill, host: "p0", role: "prefill" },
    { path: "d0/decode-tp0.log", text: decode, host: "d0", role: "decode" },
  ]);
}

test("a bootstrap thread that dies after an ABORT is violated with the ABORT, the death and the first stalled room", () => {
  const { findings } = unhandledAbort.run({ evidence: new Evidence(wedgedIncident()) });
  assert.equal(findings.length, 1);
  const [f] = findings;
  assert.equal(f!.verdict, "violated");
  assert.equal(f!.severity, "critical");
  assert.equal(f!.room, ABORTED);
  assert.deepEqual(f!.ranks, ["prefill"]);
  assert.deepEqual(
    f!.witness.map((w) => w.text.split("\n")[0]),
    [abortSent(39, 0, ABORTED), THREAD_DEATH[0], decodeTimeout(341, 0, "a1", LATER[0]!)],
  );
  assert.deepEqual(f!.facts?.stalledRooms, LATER);
  assert.match(f!.explanation, /GUARD assertion/);
  assert.match(f!.explanation, /2 room\(s\) that started later timed out/);
});

test("ABORT frames answered by the v0.5.16+ handler are consistent", () => {
  const prefill = lines(
    `${prefix(0, "TP0")} NIXL KVManager initialized with backend: UCX`,
    `${prefix(40, "TP0")} Received abort notification for room ${ABORTED}, marked as Failed`,
    gotInfo(41, 0, LATER[0]!),
  );
  const decode = lines(abortSent(39, 0, ABORTED));
  const db = buildIncident([
    { path: "p0/prefill-tp0.log", text: prefill, host: "p0", role: "prefill" },
    { path: "d0/decode-tp0.log", text: decode, host: "d0", role: "decode" },
  ]);
  const r = unhandledAbort.run({ evidence: new Evidence(db) });
  assert.deepEqual(r.findings.map((f) => f.verdict), ["consistent"]);
});

test("ABORT frames sent with no word from prefill are undetermined and name what is missing", () => {
  const decode = lines(abortSent(39, 0, ABORTED), abortSent(40, 1, ABORTED));
  const db = buildIncident([{ path: "d0/decode-tp0.log", text: decode, host: "d0", role: "decode" }]);
  const [f] = unhandledAbort.run({ evidence: new Evidence(db) }).findings;
  assert.equal(f!.verdict, "undetermined");
  assert.ok(f!.missing!.includes("config: backend and version"));
});
