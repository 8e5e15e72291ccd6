// Verdicts on the hand-written bundles of test/bundles/ (README there): what
// the analysis concludes from partial evidence, the gaps it names, the
// settings it says it assumed, the grouped counts, and whether
// `analyze --fail-on high` would turn CI red.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { stateAt } from "../../analyzer/replay/timeTravel.js";
import { replayIncident } from "../../analyzer/replay/replay.js";
import { analyzeCli, BUNDLE_NAMES, bundle, bundleText, cleanUp, coverage, roomsOf, violated } from "./handBundles.js";

after(cleanUp);

/** Rooms of the `timed out after …` lines of a log, once each, in order. */
function timedOutRooms(name: string, path: string): string[] {
  return [...new Set([...bundleText(name, path).matchAll(/bootstrap_room=(\d{19}) with exception KVTransferError\(bootstrap_room=\d+\): Request \d+ timed out/g)].map((m) => m[1]!))];
}

test("for every bundle and every rule: consistent and violated rest on something checked, violated cites a line", async () => {
  for (const name of BUNDLE_NAMES) {
    const { report } = await bundle(name);
    for (const r of report.coverage.rules) {
      if (r.verdict !== "undetermined") assert.ok(r.checked > 0, `${name}: ${r.rule} is ${r.verdict} with 0 checked`);
    }
    for (const f of report.findings) {
      if (f.verdict === "consistent") assert.ok((f.checked ?? 0) > 0, `${name}: ${f.id} ${f.rule} consistent with 0 checked`);
      if (f.verdict === "undetermined") assert.ok((f.missing ?? []).length > 0, `${name}: ${f.id} ${f.rule} undetermined without naming what is missing`);
      // evidence-gap reports what is absent: its lines may not exist (a skipped file, an unlinked clock).
      if (f.verdict === "violated" && f.rule !== "evidence-gap") assert.ok(f.witness.length > 0, `${name}: ${f.id} ${f.rule} violated without a witness`);
    }
  }
});

test("--fail-on high is red exactly for the bundles where something failed", async () => {
  // 1: a person would want CI red (a wedge, a crash, a dead thread, a broken transport, stale data); 0: healthy.
  const exits: Record<string, number> = {
    "decode-only-wedge": 1, "prefill-only": 1, "crashed-scheduler": 1, segfault: 1, "nccl-watchdog": 1, "mooncake-timeout-storm": 1,
    "stale-reuse-no-bootstrap": 1, "abort-attribution": 1, "healthy-no-probe": 0,
    // The Kubernetes bundle of the ingest tests: decode stuck at #transfer-req 58 until prefill was restarted (its notes.txt).
    "k8s-mooncake-pod-logs": 1,
    // Page dumps whose bytes show a stale and a torn decode page.
    "page-dumps": 1,
    // Alone, a decode log at info level with #transfer-req: 3 on two lines and /health green: nothing in it shows the wedge.
    "wedge-logs": 0,
    // Telemetry alone: frozen PD queue series; traces that stop and a crash dump holding the wedged rooms.
    "metrics-wedge": 1,
    "traces-wedge": 1,
    // A write into pages decode gave to another room, read by it (critical); its control, overwritten in time, times out only (medium).
    "late-write-meta-pages": 1,
    "late-write-overwritten": 0,
    // The prefill server killed by the host's OOM killer (dmesg, kubectl get events); decode lost its connection.
    "node-oom-kill": 1,
    // The prefill task killed by its Slurm step's cgroup OOM killer (srun's and slurmstepd's lines); decode lost its connection.
    "slurm-oom-kill": 1,
    // The prefill's Ray worker killed by Ray's memory monitor (the raylet's summary in the driver's output).
    "ray-oom-kill": 1,
    // The prefill server killed by the host's OOM killer, its plain dmesg dated by the machine's journalctl -k; decode lost its connection.
    "node-oom-anchored": 1,
    // Dynamo's JSONL logs: the decode scheduler died of a CUDA error; prefill's transfers to it failed.
    "dynamo-jsonl": 1,
    "compose-exit": 1,
    // CloudWatch's export of two pods' Fluent Bit records: the decode scheduler died of a CUDA OOM; prefill's transfers to it failed.
    "cloudwatch-eks": 1,
    // supervisord's prefill killed by SIGABRT just after the machine's NIC reported a firmware fatal error.
    "supervisord-nic-fatal": 1,
    // Every rank's DeepEP dispatch timed out waiting on rank 3; three schedulers died of the kernels' trap.
    "deepep-straggler": 1,
    // One prefill rank's UCX link failed four rooms' transfers; decode timed them out.
    "nixl-rank-link": 1,
    // A terminal's bash job table: the decode job was killed; prefill's transfers to it failed.
    "terminal-session": 1,
    // A decode server whose schedulers stopped with requests waiting while it answered /health; py-spy dumps of its ranks.
    "pyspy-hang": 1,
  };
  for (const name of BUNDLE_NAMES) assert.ok(name in exits, `${name}: say whether CI should be red for it`);
  for (const [name, exit] of Object.entries(exits)) {
    const { path } = await bundle(name);
    const r = analyzeCli(path, "--fail-on", "high");
    assert.equal(r.status, exit, `${name}: ${r.stderr}`);
  }
});

test("decode-only wedge: the frozen queue and one finding for 58 timeouts; the missing prefill side blinds the rest", async () => {
  const { report } = await bundle("decode-only-wedge");
  const rooms = timedOutRooms("decode-only-wedge", "d0/decode-tp0.log");
  assert.equal(rooms.length, 58);
  const stall = violated(report, "transfer-stall");
  const wedge = stall.find((f) => /frozen at 58/.test(f.title))!;
  assert.match(wedge.title, /^Transfer path wedged from 2026-06-11T14:05:40\.000Z/);
  const timeouts = stall.filter((f) => f !== wedge);
  assert.equal(timeouts.length, 1, "one finding per cause, not per room");
  assert.equal(timeouts[0]!.count, 58);
  assert.deepEqual(roomsOf(timeouts[0]!), rooms);
  assert.equal(timeouts[0]!.room, rooms[0]);
  assert.deepEqual(timeouts[0]!.ranks, ["decode/tp0", "decode/tp1"]);

  const role = report.coverage.gaps.find((g) => g.kind === "missing-role")!;
  assert.deepEqual(role.ranks, ["prefill"]);
  assert.ok(role.blinds!.includes("unhandled-abort") && role.blinds!.includes("process-failure"));
  for (const rule of ["unhandled-abort", "process-failure", "transport-failure", "hicache-ungated-read"] as const) {
    assert.equal(coverage(report, rule).verdict, "undetermined", rule);
  }
  assert.match(coverage(report, "unhandled-abort").missing.join("; "), /no prefill source/);
  assert.equal(coverage(report, "metadata-collision").verdict, "consistent", "a decode-side check decode logs can make");

  const assumed = Object.fromEntries((report.incident.assumed ?? []).map((a) => [a.setting, a.origin]));
  assert.equal(assumed.version, "default", "no line dates the run");
  assert.equal(assumed.backend, undefined, "server_args states the backend");
  assert.equal(assumed.hicache, undefined, "server_args states enable_hierarchical_cache=False");
  assert.ok((coverage(report, "unhandled-abort").assumed ?? []).some((a) => a.startsWith("version=")));
});

test("decode-only wedge: the suspect's experiment changes no setting the incident never stated (its index-K dtype is assumed)", async () => {
  const { report } = await bundle("decode-only-wedge");
  const saturation = report.suspects.find((s) => s.cause === "transfer-saturation");
  assert.ok(saturation, report.suspects.map((s) => s.cause).join(", "));
  assert.doesNotMatch(saturation.falsify, /fp8/, "no dtype experiment on an assumed dtype");
  assert.match(saturation.falsify, /index-K dtype is assumed .*read it from the launch command/);
});

test("decode-only wedge at 14:08: the 58 waiting rooms are shown as inferred from their timeout lines, and the queue gauge", async () => {
  const { db } = await bundle("decode-only-wedge");
  const rooms = timedOutRooms("decode-only-wedge", "d0/decode-tp0.log");
  const view = stateAt(db, { tsUs: Date.parse("2026-06-11T14:08:00Z") * 1000 });
  const inferred = view.rooms.filter((r) => r.inferred);
  assert.deepEqual(inferred.map((r) => r.room).sort(), [...rooms].sort());
  for (const r of inferred) {
    assert.equal(r.decode.state, 2, "KVPoll.WaitingForInput");
    assert.ok(r.inferred!.since === Date.parse("2026-06-11T14:05:31Z") * 1000 || r.inferred!.since === Date.parse("2026-06-11T14:05:32Z") * 1000);
    assert.match(r.inferred!.reason, /timed out after 300\.0 s in KVPoll\.WaitingForInput on decode/);
    assert.deepEqual(r.decode.ranks, ["decode/tp0", "decode/tp1"], "both ranks' timeout lines");
  }
  const gauge = view.queues.find((q) => q.gauge === "#transfer-req")!;
  assert.equal(gauge.depth, 58);
  assert.equal(gauge.inferred?.seq, gauge.changedAt);
  const before = stateAt(db, { tsUs: Date.parse("2026-06-11T14:05:00Z") * 1000 });
  assert.deepEqual(before.rooms, [], "before their waiting began, no line implies them");
  const afterTimeouts = stateAt(db, { tsUs: Date.parse("2026-06-11T14:10:35Z") * 1000 });
  assert.equal(afterTimeouts.rooms.filter((r) => r.inferred).length, 0, "once the lines are replayed, the rooms are the model's own");
});

test("prefill-only: both bootstrap threads died on the GUARD assertion; decode's side is a named gap", async () => {
  const { report } = await bundle("prefill-only");
  const [death] = violated(report, "unhandled-abort");
  assert.ok(death);
  assert.equal(death.severity, "high", "no ABORT frame is in the evidence: high, not critical");
  assert.deepEqual(death.ranks, ["prefill/tp0", "prefill/tp1"]);
  assert.match(death.explanation, /failing the GUARD assertion/);
  assert.ok(death.witness.some((w) => /prefill-tp[01]\.log$/.test(w.source) && w.text.startsWith("Exception in thread Thread-3 (bootstrap_thread):")));
  const role = report.coverage.gaps.find((g) => g.kind === "missing-role")!;
  assert.deepEqual(role.ranks, ["decode"]);
  assert.equal(coverage(report, "transfer-stall").verdict, "undetermined");
  assert.equal(violated(report, "process-failure").length, 0, "the bootstrap thread's death is unhandled-abort's, not a second finding");
  const version = (report.incident.assumed ?? []).find((a) => a.setting === "version");
  assert.equal(version, undefined, "the batch line format dates the run");
});

test("crashed scheduler: a critical process failure, the lost connection follows from it, and the silence is explained", async () => {
  const { report } = await bundle("crashed-scheduler");
  const [crash] = violated(report, "process-failure");
  assert.ok(crash);
  assert.equal(crash.severity, "critical");
  assert.deepEqual(crash.ranks, ["prefill/tp1"]);
  assert.match(crash.title, /^prefill\/tp1 died: torch\.OutOfMemoryError: CUDA out of memory/);
  assert.match(crash.witness[0]!.text, /^\[2026-06-11 14:07:11 DP0 TP1\] Scheduler hit an exception: Traceback/);
  assert.equal(report.suspects[0]?.cause, "process-crash");
  const [lost] = violated(report, "transport-failure");
  assert.equal(lost!.count, 12);
  assert.deepEqual(lost!.ranks, ["decode/tp0", "decode/tp1"]);
  assert.match(lost!.explanation, /A process died first: prefill\/tp1 .* the transport failure follows from that crash/);
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap")!;
  assert.deepEqual(silence.ranks, ["prefill/tp0"]);
  assert.match(silence.explainedBy!, /^prefill\/tp1 crashed: torch\.OutOfMemoryError/);
  assert.deepEqual(silence.blinds, []);
  assert.match(crash.explanation, /the crash explains the silence/);
});

test("segfault: the faulthandler dump is a critical crash of decode/tp1 that explains decode's silence", async () => {
  const { report } = await bundle("segfault");
  const [crash] = violated(report, "process-failure");
  assert.ok(crash);
  assert.equal(crash.severity, "critical");
  assert.deepEqual(crash.ranks, ["decode/tp1"]);
  assert.match(crash.title, /Fatal Python error: Segmentation fault/);
  assert.equal(report.suspects[0]?.cause, "process-crash");
  const silence = report.coverage.gaps.find((g) => g.kind === "time-gap" && g.ranks?.includes("decode/tp0"));
  assert.match(silence?.explainedBy ?? "", /^decode\/tp1 crashed/);
  const [transport] = violated(report, "transport-failure");
  assert.equal(transport!.count, 6);
  assert.match(transport!.explanation, /A process died first: decode\/tp1/);
});

test("NCCL watchdog: three ranks taken down by the watchdog are one critical finding; tp3 is missing against tp_size=4", async () => {
  const { report } = await bundle("nccl-watchdog");
  const failures = violated(report, "process-failure");
  assert.equal(failures.length, 1, "the watchdog timeout and the terminate it ends in are one cause");
  const [f] = failures;
  assert.equal(f!.severity, "critical");
  assert.deepEqual(f!.ranks, ["prefill/tp0", "prefill/tp1", "prefill/tp2"]);
  assert.match(f!.title, /NCCL watchdog timeout of ALLREDUCE after 600 s/);
  assert.ok(f!.witness.some((w) => w.text.includes("Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48213")));
  assert.equal(report.suspects[0]?.cause, "process-crash");
  const missing = report.coverage.gaps.find((g) => g.kind === "missing-ranks")!;
  assert.deepEqual(missing.ranks, ["prefill/tp3"]);
  assert.match(missing.detail, /tp_size=4 stated \(server_args at .*p0\/prefill-tp0\.log:1\)/);
  assert.equal(coverage(report, "transport-failure").verdict, "undetermined", "a missing rank could hide a transport failure");
  const timeouts = violated(report, "transfer-stall").find((x) => x.count === 16);
  assert.ok(timeouts, "16 rooms timed out on decode, one finding");
});

test("Mooncake timeout storm: one transport finding for the session and the rooms it failed", async () => {
  const { report } = await bundle("mooncake-timeout-storm");
  const failures = violated(report, "transport-failure");
  assert.equal(failures.length, 1);
  const [f] = failures;
  assert.equal(f!.severity, "high");
  assert.equal(f!.count, 12);
  assert.deepEqual(f!.ranks, ["decode/tp0", "prefill/tp0"]);
  assert.ok(f!.witness.some((w) => w.text.endsWith("Session 10.0.4.21:16001 failed.")));
  assert.equal(report.suspects[0]?.cause, "transport-failure");
  assert.equal(coverage(report, "process-failure").verdict, "consistent");
});

test("stale reuse with no bootstrap record of the old room: found by its outcome, both rooms and the free named", async () => {
  const { report } = await bundle("stale-reuse-no-bootstrap");
  const probe = bundleText("stale-reuse-no-bootstrap", "d0/probe-tp0.jsonl").split("\n");
  const roomOf = (ev: string, i = 0): string => probe.filter((l) => l.includes(`"ev": "${ev}"`))[i]!.match(/"room": (\d{19})/)![1]!;
  const [oldRoom, newRoom] = [roomOf("kv.alloc", 0), roomOf("kv.alloc", 1)];
  const [f] = violated(report, "stale-slot-reuse");
  assert.ok(f, "stale-slot-reuse must fire");
  assert.equal(f.room, newRoom);
  assert.match(f.title, new RegExp(`^Room ${newRoom} read kv page 40 holding room ${oldRoom}'s data \\(written after its free\\)`));
  assert.match(f.explanation, new RegExp(`the writer is room ${oldRoom}, the reader room ${newRoom}`));
  assert.ok(f.witness.some((w) => w.text.includes('"ev": "kv.free"') && w.text.includes(oldRoom)), "the free between them");
  assert.ok((f.assumptions ?? []).some((a) => a.startsWith(`room ${oldRoom}: prefill transferred the room without a bootstrap record`)));
  assert.equal(violated(report, "read-before-landed-write").length, 0, "nothing was in flight at the read");
  assert.ok(violated(report, "checksum-mismatch").some((m) => m.room === newRoom && /stale/.test(m.title)));
  assert.equal(report.suspects[0]?.cause, "stale-slot-reuse");
});

test("a late write whose post names no decode pages lands where the room's kv.meta put it: both rooms, the free, the post and the read named", async () => {
  const { report } = await bundle("late-write-meta-pages");
  const [oldRoom, newRoom] = ["8985063174142371181", "8903166252872187431"];
  const [f] = violated(report, "stale-slot-reuse");
  assert.ok(f, "stale-slot-reuse must fire without dst_pages");
  assert.equal(f.room, newRoom);
  assert.match(f.title, new RegExp(`^Room ${newRoom} read kv page 40 holding room ${oldRoom}'s data \\(written after its free\\)`));
  assert.match(f.explanation, new RegExp(`the writer is room ${oldRoom}, the reader room ${newRoom}`));
  const cites = (path: string, line: number) => f.witness.some((w) => w.source.endsWith(path) && w.line === line);
  assert.ok(cites("d0/probe-tp0.jsonl", 5), "the old room's kv.free");
  assert.ok(cites("p0/probe-tp0.jsonl", 6), "the old room's late kv.post (no dst_pages)");
  assert.ok(cites("d0/probe-tp0.jsonl", 10), "the new room's kernel.read");
  // The model and the checksums agree: the page read holds the old room's bytes.
  assert.ok(violated(report, "checksum-mismatch").some((m) => m.room === newRoom && /stale/.test(m.title)));
  assert.equal(report.suspects[0]?.cause, "stale-slot-reuse");
});

test("control: the old room's late write lands before the new room's own write, which overwrites it: no stale read", async () => {
  const { report } = await bundle("late-write-overwritten");
  assert.equal(coverage(report, "stale-slot-reuse").verdict, "consistent");
  assert.equal(coverage(report, "checksum-mismatch").verdict, "consistent");
  assert.ok(!report.suspects.some((s) => s.cause === "stale-slot-reuse"));
});

test("healthy run with no probe records: clean, and every probe-based rule undetermined", async () => {
  const { report } = await bundle("healthy-no-probe");
  assert.deepEqual(report.findings.filter((f) => f.verdict === "violated" && f.severity !== "low").map((f) => f.title), []);
  assert.deepEqual(report.suspects, []);
  for (const rule of ["read-before-landed-write", "stale-slot-reuse", "incomplete-completion", "collective-divergence", "checksum-mismatch", "unhandled-abort"] as const) {
    assert.equal(coverage(report, rule).verdict, "undetermined", rule);
  }
  // Both servers' server_args lines state enable_hierarchical_cache=False: no HiCache load, so no ungated read.
  for (const rule of ["transfer-stall", "process-failure", "transport-failure", "hicache-ungated-read"] as const) assert.equal(coverage(report, rule).verdict, "consistent", rule);
});

test("per-rank files and probe records interleaved: replay and rules name the same ABORT per thread, and each rank its own traceback", async () => {
  const { db, report } = await bundle("abort-attribution");
  const taken = (tp: number): string => bundleText("abort-attribution", `p0/probe-tp${tp}.jsonl`).split("\n").find((l) => l.includes('"kind": "ABORT"'))!.match(/"room": (\d{19})/)![1]!;
  const [death] = violated(report, "unhandled-abort");
  assert.ok(death);
  assert.equal(death.severity, "critical");
  assert.match(death.explanation, new RegExp(`prefill/tp0 room ${taken(0)} \\(.*probe-tp0\\.jsonl:\\d+\\), prefill/tp1 room ${taken(1)} \\(.*probe-tp1\\.jsonl:\\d+\\)`));
  assert.deepEqual(roomsOf(death), [taken(0), taken(1)]);
  const modelled = replayIncident(db).violations.filter((v) => v.check === "unhandled-abort");
  assert.deepEqual(modelled.map((v) => [v.rank, v.room]).sort(), [["prefill/tp0", taken(0)], ["prefill/tp1", taken(1)]]);
  for (const v of modelled) {
    const tp = v.rank!.slice(-1);
    const traceback = v.witness.find((w) => w.text.startsWith("Exception in thread"));
    assert.ok(traceback?.source.endsWith(`prefill-tp${tp}.log`), `${v.rank}: its own traceback`);
  }
});
