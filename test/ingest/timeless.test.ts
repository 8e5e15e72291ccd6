// When a record happened, as the real ingest reads it: a file with no dated
// line has no invented time, a note beside the logs is no clock, and
// journalctl's own header lines are no parse errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { analyzeIncident } from "../../analyzer/rules/index.js";
import { ingest } from "../../ingest/pipeline.js";
import { openIncident } from "../../store/db.js";
import { iterateEvents } from "../../store/read/events.js";
import { listIngestedSources } from "../../store/read/sources.js";
import { BOOTSTRAP_DEATH, tempDir, withDb, writeTree } from "./bundle.js";

const ROOMS = ["8972542885242963296", "5830149913321004417", "1234567890123456789"];

const DEATH_TEXT = [...BOOTSTRAP_DEATH, ""].join("\n");

function prefillLog(): string {
  return [
    "[2026-06-11 14:01:50 DP0 TP1] NIXL KVManager initialized with backend: UCX",
    "[2026-06-11 14:02:00 DP0 TP1] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0",
    "[2026-06-11 14:12:40 DP0 TP1] Prefill batch, #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.04, #running-req: 1, #queue-req: 0",
    "",
  ].join("\n");
}

function decodeLog(): string {
  const timeout = (clock: string, room: string) =>
    `[2026-06-11 ${clock} DP0 TP1] Decode transfer failed for request rank=1 decode_req.req.rid='9f2c4c0e' decode_req.req.bootstrap_room=${room} with exception KVTransferError(bootstrap_room=${room}): Request ${room} timed out after 300.0s in KVPoll.WaitingForInput`;
  return [
    `[2026-06-11 14:05:20 DP0 TP1] Sending to prefill server with bootstrap room ${ROOMS[0]} is_dummy=False`,
    timeout("14:10:21", ROOMS[0]!),
    timeout("14:10:22", ROOMS[1]!),
    timeout("14:10:31", ROOMS[2]!),
    "",
  ].join("\n");
}

test("a file with no dated line: its records are timeless, before the timeouts they explain, not at the host's last time", async () => {
  const dir = tempDir("timeless");
  const root = writeTree(join(dir, "bundle"), {
    "p0/prefill-tp1.log": prefillLog(),
    // The rank's stderr, captured apart: the thread's death with no time of its own.
    "p0/rank_1.stderr": DEATH_TEXT,
    "d0/decode-tp1.log": decodeLog(),
  });
  // Written when the pod was torn down, long after: no time of the death.
  const late = new Date("2026-06-11T14:17:00Z");
  utimesSync(join(root, "p0/rank_1.stderr"), late, late);
  const db = join(dir, "i.db");
  await ingest({ db, paths: [root] });
  withDb(db, (h) => {
    const stderr = listIngestedSources(h).find((s) => s.path.endsWith("rank_1.stderr"))!;
    assert.deepEqual([stderr.host, stderr.role, stderr.firstTsUs, stderr.lastTsUs], ["p0", "prefill", null, null], "no time of its own");
    assert.match(stderr.timeOrigin!, /timeless \(time unknown\)/);
    const events = [...iterateEvents(h)];
    const death = events.find((e) => e.text.startsWith("Exception in thread Thread-3 (bootstrap_thread):"))!;
    assert.equal(death.timeless, true);
    assert.equal(death.tp, 1);
    const timeouts = events.filter((e) => e.text.includes("timed out after 300.0s"));
    assert.equal(timeouts.length, 3);
    assert.ok(timeouts.every((t) => t.seq > death.seq), "the death is ordered before the timeouts it explains");
    assert.ok(events.filter((e) => e.seq !== death.seq).every((e) => e.timeless !== true), "dated records stay timed");
  });
  const handle = openIncident(db);
  try {
    const death = analyzeIncident(handle).findings.find((f) => f.rule === "unhandled-abort" && f.verdict === "violated");
    assert.ok(death);
    assert.equal(death.ts, undefined, "a finding on a timeless death states no time");
    assert.deepEqual(death.witness.filter((w) => w.timeless).map((w) => w.source.slice(root.length + 1)), ["p0/rank_1.stderr"]);
  } finally {
    handle.close();
  }
});

test("a README and a notes file beside the logs are no clock domain, and no host is 'unlinked' from them", async () => {
  const dir = tempDir("notes");
  const root = writeTree(join(dir, "bundle"), {
    "README.md": "# Incident 2026-06-11\n\nDecode stuck at #transfer-req 58; logs of p0 and d0 below.\n",
    "notes.txt": "Pasted from the on-call channel:\n  14:05 decode stopped making progress\n  14:20 restarted prefill\n",
    "p0/prefill-tp1.log": prefillLog(),
    "d0/decode-tp1.log": decodeLog(),
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [root] });
  assert.deepEqual(Object.keys(summary.clockOffsetsUs).sort(), ["d0", "p0"]);
  const notes = summary.sources.filter((s) => /README\.md$|notes\.txt$/.test(s.path));
  assert.deepEqual(notes.map((s) => [s.status, s.host, s.first]), [["ingested", null, null], ["ingested", null, null]], "read, with no host and no time");
  const handle = openIncident(db);
  try {
    const clock = analyzeIncident(handle).coverage.gaps.filter((g) => g.kind === "clock-offset").map((g) => g.detail);
    assert.ok(clock.every((d) => !/src:|README|notes/.test(d)), clock.join("; "));
  } finally {
    handle.close();
  }
});

test("a journald export with journalctl's header: the header lines are kept, not parse errors that blind the rules", async () => {
  const dir = tempDir("journald");
  const batch = (clock: string) =>
    `2026-06-11T${clock}+0000 gpu-node-2 python3[88213]: [2026-06-11 ${clock} DP0 TP0] Decode batch, #running-req: 44, #token: 303600, token usage: 0.63, pre-allocated usage: 0.02, #prealloc-req: 0, #transfer-req: 5, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 2125.20, #queue-req: 0`;
  const root = writeTree(join(dir, "bundle"), {
    "d0/decode.journal.txt": [
      "-- Journal begins at Mon 2026-06-08 09:12:44 UTC, ends at Thu 2026-06-11 14:20:01 UTC. --",
      batch("14:03:00"),
      batch("14:03:10"),
      "-- Boot 6f1c2a9e8b7d4c3f9a0b1c2d3e4f5a6b --",
      batch("14:09:00"),
      "",
    ].join("\n"),
    "d1/decode.journal.txt": "-- Logs begin at Mon 2026-06-08 09:12:44 UTC, end at Thu 2026-06-11 14:20:01 UTC. --\n-- No entries --\n",
  });
  const db = join(dir, "i.db");
  const summary = await ingest({ db, paths: [root] });
  const journal = summary.sources.find((s) => s.path.endsWith("d0/decode.journal.txt"))!;
  // The journal names its machine, which the folder's name gives way to.
  assert.deepEqual([journal.wrapper, journal.host, journal.lines, journal.events, journal.errorCount], ["journald", "gpu-node-2", 5, 5, 0]);
  const empty = summary.sources.find((s) => s.path.endsWith("d1/decode.journal.txt"))!;
  assert.deepEqual([empty.status, empty.errorCount], ["ingested", 0]);
  const handle = openIncident(db);
  try {
    const parseGaps = analyzeIncident(handle).coverage.gaps.filter((g) => g.kind === "parse-errors");
    assert.deepEqual(parseGaps, []);
  } finally {
    handle.close();
  }
});

test("an excerpt whose times a user replaced by a placeholder: the ranks are read, the time is unknown, the failures are judged", async () => {
  const dir = tempDir("placeholder");
  const room = ROOMS[0]!;
  const root = writeTree(join(dir, "bundle"), {
    "paste.log": [
      `[timestamp DP3 TP3] Decode transfer failed for request rank=3 decode_req.req.rid='9f2c4c0e' decode_req.req.bootstrap_room=${room} with exception KVTransferError(bootstrap_room=${room}): Failed due to an unknown reason from another rank`,
      "[timestamp DP3 TP3] Scheduler hit an exception: Traceback (most recent call last):",
      '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2297, in run_scheduler_process',
      "RuntimeError: NCCL communicator was aborted on rank 3.",
      "",
    ].join("\n"),
  });
  const db = join(dir, "i.db");
  await ingest({ db, paths: [root] });
  const report = withDb(db, (h) => {
    const events = [...iterateEvents(h)];
    assert.deepEqual(events.map((e) => [e.kind, e.dp, e.tp, e.room, e.timeless === true]), [
      ["pd.transfer_failed", 3, 3, room, true],
      ["log.exception", 3, 3, null, true],
    ]);
    return analyzeIncident(h, { name: "placeholder" });
  });
  const transport = report.findings.find((f) => f.rule === "transport-failure" && f.verdict === "violated")!;
  assert.equal(transport.room, room);
  assert.equal(transport.ts, undefined, "no time is stated for a record whose time is unknown");
  const death = report.findings.find((f) => f.rule === "process-failure" && f.verdict === "violated")!;
  assert.equal(death.severity, "critical");
  assert.equal(death.ranks.length, 1);
  assert.match(death.ranks[0]!, /tp3$/, "the rank the placeholder prefix names");
});
