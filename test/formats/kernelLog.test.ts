// A machine's kernel log beside its server logs, in the shapes an operator
// collects it: `dmesg` (seconds since boot), `dmesg -T` (ctime), `journalctl -k`
// and /var/log/kern.log (syslog lines of the `kernel` identifier), journalctl's
// `-o json` (`_TRANSPORT=kernel`). Lines written by hand from the kernel's and
// the NVIDIA driver's format strings (docs/log-templates.md "The machine").

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { detectWrapper } from "../../ingest/formats/wrappers/index.js";
import { parseLines, us } from "./sglangHarness.js";

/** An OOM kill as `dmesg` prints it (mm/oom_kill.c: dump_header, the summary, __oom_kill_process), then the GPU's fall. */
const DMESG = [
  "[ 1843.308145] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
  "[ 1843.308160] CPU: 12 PID: 41234 Comm: python3 Tainted: P           OE     5.15.0-91-generic #101-Ubuntu",
  "[ 1843.309001] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope,task=python3,pid=41234,uid=1000",
  "[ 1843.309055] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:493212kB oom_score_adj:0",
  "[ 2011.551020] NVRM: Xid (PCI:0000:3b:00): 79, pid=41301, name=python3, GPU has fallen off the bus.",
  "[ 2011.551031] NVRM: GPU at PCI:0000:3b:00: GPU-3f1c2b7e-9a4d-4c1e-8b7a-2d5e6f708192",
];

test("dmesg: the OOM killer's kill and an Xid are failures of the folder's machine, with no rank and no time of ours", () => {
  const { events, issues } = parseLines(DMESG, { host: "gpu-node-3" });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.failureClass, e.attrs?.scope, e.host, e.tp]),
    [
      [1, LogKind.message, "warning", undefined, "machine", "gpu-node-3", undefined],
      [2, LogKind.message, undefined, undefined, undefined, "gpu-node-3", undefined],
      [3, LogKind.message, "info", undefined, "machine", "gpu-node-3", undefined],
      [4, LogKind.crash, undefined, "host-oom", "machine", "gpu-node-3", undefined],
      [5, LogKind.error, "error", "transport", "machine", "gpu-node-3", undefined],
      [6, LogKind.message, undefined, undefined, undefined, "gpu-node-3", undefined],
    ],
  );
  assert.equal(events[3]!.attrs?.error, "python3 (pid 41234) killed by the kernel's OOM killer");
  assert.equal(events[3]!.attrs?.fatal, true);
  // Seconds since boot are no wall time: nothing in the file dates its lines.
  for (const ev of events) assert.notEqual(ev.tsInferred, false);
});

test("dmesg -T: the ctime in brackets dates each line in the zone it was read in", () => {
  const lines = [
    "[Thu Jun 11 14:07:11 2026] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:493212kB oom_score_adj:0",
    "[Thu Jun 11 14:09:02 2026] python3[41301]: segfault at 0 ip 00007f3a9c2b1e40 sp 00007ffd4c1a2b30 error 4 in libmooncake_transfer_engine.so[7f3a9c200000+3b1000]",
    "[Thu Jun 11 14:11:30 2026] INFO: task python3:41388 blocked for more than 122 seconds.",
    '[Thu Jun 11 14:11:30 2026] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
  ];
  const { events } = parseLines(lines, { host: "gpu-node-3", tzOffsetMinutes: 120 });
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.failureClass, e.tsUs]), [
    [LogKind.crash, "host-oom", us("2026-06-11T12:07:11Z")],
    [LogKind.crash, "segfault", us("2026-06-11T12:09:02Z")],
    [LogKind.error, "hung-task", us("2026-06-11T12:11:30Z")],
    [LogKind.message, undefined, us("2026-06-11T12:11:30Z")],
  ]);
  assert.equal(events[1]!.attrs?.error, "python3 (pid 41301) killed by SIGSEGV: segfault at 0 in libmooncake_transfer_engine.so");
});

test("journalctl -k and kern.log: a `kernel` line is read by the kernel's templates, with or without dmesg's stamp; the line names the host", () => {
  const lines = [
    "Jun 11 14:07:11 gpu-node-3 kernel: Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:493212kB oom_score_adj:0",
    "Jun 11 14:09:02 gpu-node-3 kernel: [ 2011.551020] NVRM: Xid (PCI:0000:3b:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 3(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    "Jun 11 14:09:03 gpu-node-3 python3[41301]: INFO: task python3:41388 blocked for more than 122 seconds.",
  ];
  assert.equal(detectWrapper(lines)?.name, "journald");
  const { events, issues } = parseLines(lines, { wrapper: "journald" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.host, e.attrs?.failureClass]), [
    [LogKind.crash, "gpu-node-3", "host-oom"],
    [LogKind.error, "gpu-node-3", "transport"],
    // Only the kernel's own lines are its: a program that prints the same words is read as that program's line.
    [LogKind.message, "gpu-node-3", undefined],
  ]);
  assert.equal(events[1]!.attrs?.xid, 74);
  assert.equal(events[1]!.attrs?.pid, undefined, "no process owned the channel");
});

test("kern.log in rsyslog's RFC 3339 form: the syslog stamp dates the kernel's line, not dmesg's seconds since boot", () => {
  const lines = [
    "2026-06-11T14:07:11.309055+00:00 gpu-node-3 kernel: [ 1843.309055] Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:493212kB oom_score_adj:0",
    "2026-06-11T14:09:02.551020+00:00 gpu-node-3 kernel: [ 2011.551020] NVRM: Xid (PCI:0000:3b:00): 79, pid=41301, name=python3, GPU has fallen off the bus.",
  ];
  assert.equal(detectWrapper(lines)?.name, "journald");
  const { events } = parseLines(lines, { wrapper: "journald" });
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs, e.tsInferred]), [
    [LogKind.crash, us("2026-06-11T14:07:11.309055Z"), undefined],
    [LogKind.error, us("2026-06-11T14:09:02.551020Z"), undefined],
  ]);
});

test("journalctl -o json: an entry of the kernel's transport is read by the kernel's templates", () => {
  const entry = (message: string, transport: string) =>
    JSON.stringify({ __CURSOR: "s=9f;i=1", __REALTIME_TIMESTAMP: "1781186831309055", _HOSTNAME: "gpu-node-3", _TRANSPORT: transport, MESSAGE: message });
  const xid = "NVRM: Xid (PCI:0000:3b:00): 48, pid=41301, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.";
  const batch = "[2026-06-11 14:07:11 TP3] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, #transfer-req: 9, gen throughput (token/s): 3712.55, #queue-req: 0";
  const { events } = parseLines([entry(xid, "kernel"), entry(batch, "stdout")], { wrapper: "journald-json" });
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.failureClass, e.tsUs]), [
    [LogKind.error, "gpu-device", 1781186831309055],
    // A program's line keeps its own dialect; its prefix's whole second takes the journal's microseconds.
    ["batch.decode", undefined, us("2026-06-11T14:07:11.309055Z")],
  ]);
});

test("a bare kernel line without dmesg's stamp (`dmesg -t`, a console, a paste that cut it) is the kernel's when only the kernel prints its text", () => {
  const { events } = parseLines([
    "NVRM: Xid (PCI:0000:3b:00): 48, pid=41301, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 6, subpartition 0.",
    "Out of memory: Killed process 41301 (python3) total-vm:812345678kB, anon-rss:501234567kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:1234kB oom_score_adj:0",
    "INFO: task python3:41301 blocked for more than 122 seconds.",
    "NVRM: GPU at PCI:0000:3b:00: GPU-3f1c2b7e-9a4d-4c1e-8b7a-2d5e6f708192",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.failureClass]),
    [
      [LogKind.error, "gpu-device"],
      [LogKind.crash, "host-oom"],
      [LogKind.error, "hung-task"],
      // The driver's other lines name no failure.
      [LogKind.unparsed, undefined],
    ],
  );
});

test("journalctl -o short-iso (+00:00), -o short-full: the stamp dates the line where it names its offset; a zone's name dates nothing", () => {
  const batch = "[2026-06-11 14:03:07 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, #transfer-req: 9, gen throughput (token/s): 3712.55, #queue-req: 0";
  const iso = [`2026-06-11T16:03:07+02:00 gpu-node-3 python3[41234]: ${batch}`, "2026-06-11T16:07:11+02:00 gpu-node-3 python3[41234]: torch.OutOfMemoryError: CUDA out of memory."];
  assert.equal(detectWrapper(iso)?.name, "journald");
  assert.equal(parseLines(iso, { wrapper: "journald" }).events[1]!.tsUs, us("2026-06-11T14:07:11Z"));
  const full = [
    "Thu 2026-06-11 14:07:11 UTC gpu-node-3 python3[41234]: torch.OutOfMemoryError: CUDA out of memory.",
    "Thu 2026-06-11 19:37:12 +0530 gpu-node-3 python3[41234]: torch.OutOfMemoryError: CUDA out of memory.",
    "Thu 2026-06-11 16:07:13 CEST gpu-node-3 python3[41234]: torch.OutOfMemoryError: CUDA out of memory.",
  ];
  assert.equal(detectWrapper(full)?.name, "journald");
  const { events, issues } = parseLines(full, { wrapper: "journald" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.host]), Array(3).fill([LogKind.exception, "gpu-node-3"]));
  assert.equal(events[0]!.tsUs, us("2026-06-11T14:07:11Z"));
  assert.equal(events[1]!.tsUs, us("2026-06-11T14:07:12Z"));
  assert.equal(events[2]!.tsInferred, true, "CEST names no offset for sure: the line takes its time from its neighbours");
});

/** One entry as `journalctl -o json-pretty` prints it (logs-show.c output_json, JSON_FORMAT_PRETTY). */
function pretty(realtimeUs: number, message: string): string[] {
  return [
    "{",
    `\t"__CURSOR" : "s=739ad463348b4ceca5a9e69c95a9c93f;i=4ece8;b=6c7c6013a8ca4d74b5a3a2c1c1a0d5ee;m=4e2dd0c3b;t=${realtimeUs.toString(16)};x=3f05e2c9a3a4d5c2",`,
    `\t"__REALTIME_TIMESTAMP" : "${realtimeUs}",`,
    '\t"__MONOTONIC_TIMESTAMP" : "1843309055",',
    '\t"_BOOT_ID" : "6c7c6013a8ca4d74b5a3a2c1c1a0d5ee",',
    '\t"PRIORITY" : "3",',
    '\t"_TRANSPORT" : "stdout",',
    '\t"_HOSTNAME" : "gpu-node-3",',
    '\t"SYSLOG_IDENTIFIER" : "python3",',
    `\t"MESSAGE" : ${JSON.stringify(message)}`,
    "}",
  ];
}

test("journalctl -o json-pretty: an entry over several lines is one line, its MESSAGE read with the entry's time and host", () => {
  const lines = [
    ...pretty(1781186587000000, "[2026-06-11 14:03:07 DP0 TP0] Decode batch, #running-req: 3, #token: 181234, token usage: 0.43, #transfer-req: 9, gen throughput (token/s): 3712.55, #queue-req: 0"),
    ...pretty(1781186831554102, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."),
  ];
  assert.equal(detectWrapper(lines)?.name, "journald-json-pretty");
  const { events, issues } = parseLines(lines, { wrapper: "journald-json-pretty" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.host, e.tsUs]), [
    [1, "batch.decode", "gpu-node-3", us("2026-06-11T14:03:07Z")],
    [12, LogKind.exception, "gpu-node-3", 1781186831554102],
  ]);
  assert.equal(events[1]!.text.split("\n").length, 11, "the event keeps the entry's lines");
});

test("journalctl -o json-pretty cut short: an entry a new one cuts off, or the file's end, keeps every line and says so", () => {
  const first = pretty(1781186587000000, "torch.OutOfMemoryError: CUDA out of memory.");
  const lines = [...first.slice(0, 5), ...pretty(1781186831554102, "RuntimeError: NCCL error"), ...first.slice(0, 4)];
  const { events, issues } = parseLines(lines, { wrapper: "journald-json-pretty" });
  const covered = new Set(events.flatMap((e) => e.text.split("\n").map((_, i) => e.line + i)));
  for (let i = 1; i <= lines.length; i++) assert.ok(covered.has(i), `line ${i} is in an event`);
  assert.deepEqual(issues.map((i) => i.line), [1], "the issue names the entry that was cut off");
  assert.ok(events.some((e) => e.kind === LogKind.exception && e.attrs?.excMessage === "NCCL error"));
});

test("journalctl -o json-pretty: the entry that cut another off is its own, whatever line follows its `{`", () => {
  const cutting = pretty(1781186831554102, "RuntimeError: NCCL error");
  // The new entry's first field mangled (not a field's shape), as a damaged file or a paste leaves it.
  const lines = [...pretty(1781186587000000, "x").slice(0, 4), "{", '\t"中_REALTIME_TIMESTAMP" : "1781186831554102",', ...cutting.slice(2)];
  const { events, issues } = parseLines(lines, { wrapper: "journald-json-pretty" });
  const at = new Map<number, number>();
  for (const e of events) e.text.split("\n").forEach((_, i) => at.set(e.line + i, (at.get(e.line + i) ?? 0) + 1));
  for (let i = 1; i <= lines.length; i++) assert.equal(at.get(i), 1, `line ${i} is in one event`);
  assert.equal(issues[0]!.line, 1);
  assert.equal(events.find((e) => e.line === 5)?.text.split("\n")[0], "{", "the cutting entry's `{` opens its own record");
});

test("before 4.19 the OOM killer names its choice first, or a child of it: both lines are the machine's host OOM; a trap kills the process it names", () => {
  const lines = [
    "[ 1843.308145] python3 invoked oom-killer: gfp_mask=0x24280ca(GFP_HIGHUSER_MOVABLE|__GFP_ZERO), nodemask=0, order=0, oom_score_adj=0",
    "[ 1843.309050] Out of memory: Kill process 41234 (python3) score 912 or sacrifice child",
    "[ 1843.309055] Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB",
    "[ 2011.551020] traps: python3[41301] general protection ip:7f3a9c2b1e40 sp:7ffd4c1a2b30 error:0 in libnccl.so.2[7f3a9c200000+3b1000]",
    "[ 2011.551044] traps: pt_main_thread[41388] trap divide error ip:7f3a9c2b1e40 sp:7ffd4c1a2b30 error:0",
  ];
  const { events, issues } = parseLines(lines, { host: "gpu-node-3" });
  assert.deepEqual(issues, []);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.failureClass, e.attrs?.pid, e.attrs?.signal, e.attrs?.scope]), [
    [LogKind.message, undefined, undefined, undefined, "machine"],
    [LogKind.crash, "host-oom", 41234, "SIGKILL", "machine"],
    [LogKind.crash, "host-oom", 41234, "SIGKILL", "machine"],
    [LogKind.crash, "segfault", 41301, "SIGSEGV", "machine"],
    [LogKind.crash, "crash", 41388, "SIGFPE", "machine"],
  ]);
  // The choice may fall on a child: the line says so, and no more.
  assert.equal(events[1]!.attrs?.error, "python3 (pid 41234) or a child of it killed by the kernel's OOM killer");
  assert.equal(events[4]!.attrs?.error, "pt_main_thread (pid 41388) killed by SIGFPE: trap divide error");
});

test("the kernel's clock as each shape states it: dmesg's seconds since boot, dmesg -T's ctime, journald's stamp with the kernel's own", () => {
  const oom = "Out of memory: Killed process 41234 (python3) total-vm:812345612kB, anon-rss:251234560kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:493212kB oom_score_adj:0";
  const plain = parseLines([`[ 1843.309055] ${oom}`, "[    0.000000] Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) #101-Ubuntu SMP"], { host: "gpu-node-3" }).events;
  assert.deepEqual(
    plain.map((e) => e.kernelLine),
    [{ plain: { run: 0, afterSleep: false, sinceBootUs: 1843309055, message: oom } }, { plain: { run: 1, afterSleep: false, sinceBootUs: 0, message: "Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045) #101-Ubuntu SMP" } }],
    "the seconds going back start a second boot",
  );
  assert.ok(plain.every((e) => e.timeless === true || e.tsInferred === true), "no anchor given: no time");
  const ctime = parseLines([`[Thu Jun 11 14:07:11 2026] ${oom}`]).events[0]!;
  assert.deepEqual(ctime.kernelLine, { dated: { wallUs: us("2026-06-11T14:07:11Z"), sinceBootUs: null, message: oom, stamp: "ctime" } });
  // rsyslog's RFC 3339 kern.log, which kept dmesg's stamp in the message (imklog).
  const kernLog = parseLines([`2026-06-11T14:07:11.204312+00:00 gpu-node-3 kernel: [ 1843.309055] ${oom}`], { wrapper: "journald" }).events[0]!;
  assert.deepEqual(kernLog.kernelLine, { dated: { wallUs: us("2026-06-11T14:07:11.204312Z"), sinceBootUs: 1843309055, message: oom, stamp: "received" } });
  const json = JSON.stringify({ __REALTIME_TIMESTAMP: "1781186831204312", __MONOTONIC_TIMESTAMP: "1843311200", _HOSTNAME: "gpu-node-3", _TRANSPORT: "kernel", _SOURCE_MONOTONIC_TIMESTAMP: "1843309055", MESSAGE: oom });
  assert.deepEqual(parseLines([json], { wrapper: "journald-json" }).events[0]!.kernelLine, { dated: { wallUs: 1781186831204312, sinceBootUs: 1843309055, message: oom, stamp: "received" } });
});

test("dmesg: a soft lockup, the kernel's oops and its panic are the machine's failures; the oops's register lines continue its record", () => {
  // A machine whose kernel faulted under a serving process, in the shapes kernel/watchdog.c, arch/x86/mm/fault.c,
  // arch/x86/kernel/dumpstack.c and kernel/panic.c print (the stamps and addresses written by hand).
  const { events, issues } = parseLines(
    [
      "[ 8411.207331] watchdog: BUG: soft lockup - CPU#17 stuck for 23s! [python3:41301]",
      "[ 9120.504112] BUG: unable to handle page fault for address: ffffafe180a40084",
      "[ 9120.504119] #PF: supervisor write access in kernel mode",
      "[ 9120.504152] Oops: 0002 [#1] PREEMPT SMP NOPTI",
      "[ 9121.017745] Kernel panic - not syncing: Fatal exception",
    ],
    { host: "gpu-node-3" },
  );
  assert.deepEqual(issues, []);
  const failures = events.filter((e) => e.kind === LogKind.error || e.kind === LogKind.crash);
  assert.deepEqual(
    failures.map((e) => [e.line, e.kind, e.attrs?.failureClass, e.attrs?.scope, e.host]),
    [
      [1, LogKind.error, "hung-task", "machine", "gpu-node-3"],
      [2, LogKind.error, "kernel-oops", "machine", "gpu-node-3"],
      [4, LogKind.error, "kernel-oops", "machine", "gpu-node-3"],
      [5, LogKind.crash, "kernel-panic", "machine", "gpu-node-3"],
    ],
  );
  assert.equal(failures[3]!.attrs?.fatal, true);
});
