// Profile selection: from config records, from log evidence, from the flag,
// each field with the evidence it rests on.

import { test } from "node:test";
import assert from "node:assert/strict";
import { selectProfile } from "../../analyzer/replay/profileSelection.js";
import { parseProfileFlag } from "../../analyzer/replay/profileFlag.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { at, ingestCase } from "./incidents.js";

function reason(choice: ReturnType<typeof selectProfile>, field: string) {
  const r = choice.reasons.find((x) => x.field === field);
  assert.ok(r, `no reason for ${field}`);
  return { value: r.value, origin: r.origin, evidence: r.evidence.map(at), why: r.why };
}

test("from a config record: each stated field cites the record; the rest are derived or SGLang defaults", async () => {
  const { db } = await ingestCase("healthy-transfer");
  const choice = selectProfile(db);
  for (const field of ["backend", "version", "indexKDtype", "hicache", "overlap", "transferQueues"]) {
    const r = reason(choice, field);
    assert.equal(r.origin, "config", field);
    assert.deepEqual(r.evidence, ["p0/prefill-probe.jsonl:1"], field);
  }
  assert.equal(choice.profile.version, "0.5.16");
  assert.deepEqual(reason(choice, "abortHandling"), {
    value: "failed-no-ack",
    origin: "derived",
    evidence: [],
    why: "the model's rule for nixl v0.5.16",
  });
  assert.equal(reason(choice, "waitingTimeoutS").origin, "default");
  assert.deepEqual(choice.conflicts, []);
  db.close();
});

test("from logs alone: NIXL lines, the prefill batch fields and the ABORT line bound the version (§2.1, §7.1)", async () => {
  const { db } = await ingestCase("nixl-abort-wedge");
  const choice = selectProfile(db);
  const backend = reason(choice, "backend");
  assert.equal(backend.value, "nixl");
  assert.deepEqual(backend.evidence, ["prefill-0/prefill-tp3.log:1"], "NIXL KVManager initialized with backend: UCX");
  const version = reason(choice, "version");
  // #bootstrap-req without #optimistic-req: 0.5.12–0.5.15; decode sends ABORT: 0.5.13+.
  assert.equal(version.value, "0.5.15");
  assert.equal(version.origin, "log");
  assert.match(version.why, /\[0\.5\.13, 0\.5\.15\]/);
  assert.ok(version.evidence.includes("prefill-0/prefill-tp3.log:5"));
  assert.ok(version.evidence.includes("decode-0/decode-tp3.log:2"));
  assert.equal(choice.profile.abortHandling, "fatal-assert");
  db.close();
});

test("from logs alone: Mooncake ABORT_ACK lines, #optimistic-req, and an overlap event loop in a traceback", async () => {
  const { db } = await ingestCase("mooncake-overlap-logs");
  const choice = selectProfile(db);
  const backend = reason(choice, "backend");
  assert.deepEqual([backend.value, backend.origin], ["mooncake", "log"]);
  assert.deepEqual(backend.evidence.sort(), ["decode-0/decode-tp0.log:2", "prefill-0/prefill-tp0.log:2"]);
  const version = reason(choice, "version");
  assert.deepEqual([version.value, version.origin], ["0.5.18", "log"]);
  assert.match(version.why, /\[0\.5\.16, 0\.5\.18\]/);
  const overlap = reason(choice, "overlap");
  assert.deepEqual([overlap.value, overlap.origin, overlap.evidence], [true, "log", ["decode-0/decode-tp0.log:3"]]);
  assert.equal(reason(choice, "hicache").origin, "default");
  db.close();
});

test("the flag wins over the logs, is reported as the reason, and logs that disagree are a conflict", async () => {
  const { db } = await ingestCase("nixl-abort-wedge");
  const choice = selectProfile(db, "version=0.5.16,hicache=on");
  assert.deepEqual(reason(choice, "version"), { value: "0.5.16", origin: "flag", evidence: [], why: "--profile version" });
  assert.equal(reason(choice, "hicache").value, true);
  assert.equal(choice.profile.abortHandling, "failed-no-ack", "0.5.16 has the ABORT handler (#30352)");
  assert.ok(choice.conflicts.some((c) => c.startsWith("version: the flag says 0.5.16, the logs allow [0.5.13, 0.5.15]")));
  const run = replayIncident(db, { profileFlag: "version=0.5.16" });
  assert.deepEqual(run.violations.filter((v) => v.check === "unhandled-abort" && v.detail.basis === "profile"), []);
  db.close();
});

test("the flag is validated: unknown keys, bad values and malformed parts are errors that name them", () => {
  assert.deepEqual(parseProfileFlag("backend=nixl,version=0.5.14,index_k_dtype=bf16,hicache=on"), {
    backend: "nixl",
    version: "0.5.14",
    indexKDtype: "bf16",
    hicache: true,
  });
  assert.deepEqual(parseProfileFlag("overlap=off, transfer_queues=8, waiting_timeout_s=600"), { overlap: false, transferQueues: 8, waitingTimeoutS: 600 });
  assert.throws(() => parseProfileFlag("backend=ucx"), /--profile: backend: /);
  assert.throws(() => parseProfileFlag("colour=blue"), /unknown key "colour"/);
  assert.throws(() => parseProfileFlag("hicache=maybe"), /hicache/);
  assert.throws(() => parseProfileFlag("version=latest"), /version: expected an SGLang version/);
  assert.throws(() => parseProfileFlag("nixl"), /"nixl" is not key=value/);
  assert.throws(() => parseProfileFlag("overlap=on,overlap=off"), /"overlap" is given twice/);
});
