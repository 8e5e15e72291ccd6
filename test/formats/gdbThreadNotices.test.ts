// gdb's notices of the inferior's threads (ingest/formats/templates/platform/gdb.ts: `[New %s]`, gdb/thread.c
// add_thread_with_info; `[%s exited]`, gdb/linux-nat.c exit_lwp; the thread's name `Thread 0x%lx (LWP %ld)`,
// gdb/linux-thread-db.c, or `LWP %ld`) and the V2 DeepEP test's bandwidth lines
// (ingest/formats/templates/clusterTests/deepepTests.ts, tests/elastic/test_ep.py). The first test's lines are the working
// half's nccl-tests-273-a as pasted (an nccl-tests run under gdb); the others are written by hand from the format
// strings, with faulthandler's dump (`Thread 0x%0*lx (most recent call first):`, CPython Python/traceback.c), which
// stays a dump.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("gdb's notice that a thread exited, among NCCL's lines, is gdb's information, not a thread dump", () => {
  const { events, issues } = parseLines([
    "dc02-p21-t208-n012:7622:7638 [2] NCCL INFO Init timings: rank 2 nranks 8 total 0.66 (kernels 0.42, bootstrap 0.07, allgathers 0.03, topo 0.06, graphs 0.05, connections 0.02, rest 0.00)",
    "dc02-p21-t208-n012:7622:7642 [6] NCCL INFO ncclCommInitRank comm 0x55555b0ba430 rank 6 nranks 8 cudaDev 6 nvmlDev 6 busId bb000 commId 0xb1a317b2c0f1498c - Init COMPLETE",
    "dc02-p21-t208-n012:7622:7640 [4] NCCL INFO ncclCommInitRank comm 0x55555b048e40 rank 4 nranks 8 cudaDev 4 nvmlDev 4 busId 9a000 commId 0xb1a317b2c0f1498c - Init COMPLETE",
    "[Thread 0x7ffe64ffd000 (LWP 7638) exited]",
  ]);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 4);
  const gdb = events[3]!;
  assert.equal(gdb.kind, LogKind.message);
  assert.deepEqual([gdb.attrs?.level, gdb.attrs?.debugger, gdb.attrs?.thread, gdb.attrs?.lwp], ["info", "gdb", "exited", 7638]);
  assert.ok(events.every((e) => e.kind !== LogKind.error && e.kind !== LogKind.crash));
});

test("gdb's notices of new threads and bare LWPs are read; faulthandler's dump and gdb's signal report are not notices", () => {
  const { events } = parseLines([
    "[New Thread 0x7fff3a1fe640 (LWP 48213)]",
    "[New LWP 48214]",
    "[LWP 48214 exited]",
    "Thread 0x00007f3b6e7fc700 (most recent call first):",
    '  File "/usr/lib/python3.10/threading.py", line 320 in wait',
    'Thread 1 "python3" received signal SIGSEGV, Segmentation fault.',
  ]);
  assert.deepEqual(
    events.slice(0, 3).map((e) => [e.kind, e.attrs?.thread, e.attrs?.lwp]),
    [
      [LogKind.message, "new", 48213],
      [LogKind.message, "new", 48214],
      [LogKind.message, "exited", 48214],
    ],
  );
  assert.notEqual(events[3]!.kind, LogKind.message, "faulthandler's dump stays what it was");
  assert.equal(events[3]!.attrs?.debugger, undefined);
  assert.equal(events.at(-1)!.kind, LogKind.crash, "gdb's report of the signal is a crash");
});

test("a notice gdb does not print in that shape stays unread: no closing bracket, or words after it", () => {
  const { events } = parseLines(["[Thread 0x7ffe64ffd000 (LWP 7638) exited", "[New Thread 0x7fff3a1fe640 (LWP 48213)] and more"]);
  assert.ok(events.every((e) => e.attrs?.debugger === undefined));
});

test("the V2 DeepEP test's bandwidth lines, a pasted block of them, are the test's information", () => {
  const { events, issues } = parseLines([
    "   - EP:   4/16 | expanded dispatch: 115 GB/s (SO), 376 GB/s (SU), 1064.000 us, 400593024 bytes | copy: 4791 GB/s, 187.879 us",
    "   # EP:   4/16 | cached dispatch: 118 GB/s (SO), 384 GB/s (SU), 1039.000 us, 399177792 bytes | copy: 4308 GB/s, 208.726 us",
    "   + EP:  15/16 | reduced combine: 90 GB/s (SO), 288 GB/s (SU), 1501.250 us, 432537600 bytes | reduce: 1750 GB/s, 250.000 us",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.test, e.attrs?.op, e.attrs?.epRank, e.attrs?.us]),
    [
      [1, LogKind.message, "info", "deepep", "expanded dispatch", 4, 1064],
      [2, LogKind.message, "info", "deepep", "cached dispatch", 4, 1039],
      [3, LogKind.message, "info", "deepep", "reduced combine", 15, 1501.25],
    ],
  );
});

test("a line of the same opening with other words stays unread", () => {
  const { events } = parseLines(["- EP: the expert parallel size is 16"]);
  assert.equal(events[0]!.attrs?.test, undefined);
});
