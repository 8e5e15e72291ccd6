// The driver layer's lines that say a device or the daemon that manages it failed, written by hand in their
// printers' shapes: the NVIDIA module's count of GPUs its load could not bring up (kernel-open/nvidia/nv.c), the AMD
// GPU driver's reset of a GPU (drivers/gpu/drm/amd/amdgpu/amdgpu_device.c amdgpu_device_gpu_recover), systemd's
// failed control process (src/core/unit.c unit_log_process_exit, as a forking daemon's start shows it), and a journal
// whose locale prints the month as a number and 月 (strftime's `%b` under zh_CN) or as glibc's ru_RU abbreviation
// (`авг`). Lookalikes stay messages.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("the NVIDIA module's load that brought up fewer GPUs than it probed, or none", () => {
  const { events, issues } = parseLines([
    "[   11.402117] nvidia: loading out-of-tree module taints kernel.",
    "[   12.905098] nvidia 0000:3b:00.0: probe with driver nvidia failed with error -1",
    "[   12.905102] NVRM: The NVIDIA probe routine failed for 1 device(s).",
    "[   12.905140] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024",
    "[   40.118021] NVRM: None of the NVIDIA graphics adapters were initialized!",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.failureClass]),
    [
      [1, LogKind.message, undefined],
      [2, LogKind.message, undefined],
      [3, LogKind.error, "gpu-device"],
      [4, LogKind.message, undefined],
      [5, LogKind.error, "gpu-device"],
    ],
  );
  assert.equal(events[2]!.attrs?.scope, "machine");
  assert.equal(events[4]!.attrs?.fatal, true);
});

test("lines about the probe that are not the module's count stay messages", () => {
  const { events } = parseLines([
    "[   12.905102] NVRM: The NVIDIA probe routine was not called for 1 device(s).",
    "[   12.905140] NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330)",
    "probe routine failed for 1 device(s) in our test harness",
  ]);
  assert.ok(events.every((e) => e.kind !== LogKind.error), "only the count of GPUs that failed, or none initialized, is the failure");
});

test("amdgpu's reset of a GPU, with the driver's `amdgpu: ` and without it, behind dmesg and syslog", () => {
  const syslog = parseLines(["Oct  7 12:58:23 node-2 kernel: [ 2237.944732] amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!"], { wrapper: "journald" });
  assert.deepEqual(syslog.issues, []);
  assert.deepEqual(
    syslog.events.map((e) => [e.kind, e.host, e.attrs?.pci, e.attrs?.failureClass]),
    [[LogKind.error, "node-2", "0000:0a:00.0", "gpu-device"]],
  );
  const { events, issues } = parseLines([
    "[  312.774536] amdgpu 0000:28:00.0: GPU reset begin!. Source:  1",
    "[  316.082456] amdgpu 0000:28:00.0: GPU reset succeeded, trying to resume",
    "[  316.082650] amdgpu 0000:28:00.0: [drm] PCIE GART of 512M enabled (table at 0x0000008000300000).",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.pci]),
    [
      [LogKind.error, "0000:28:00.0"],
      [LogKind.message, undefined],
      [LogKind.message, undefined],
    ],
  );
});

const us = (iso: string): number => Date.parse(iso) * 1000;
const near = us("2025-10-01T00:00:00Z");
const dating = { hasDatedLines: false, anchorUs: near, anchorOrigin: "the test's", yearNearUs: near, yearOrigin: "the test's" };

test("a journal whose locale prints the month as a number and 月 is read as the journal's lines", () => {
  const { events, issues } = parseLines([
    "9月 05 09:24:07 gpu-node-7 kernel: [ 2237.944732] amdgpu 0000:0a:00.0: amdgpu: GPU reset begin!",
    "11月 15 14:15:47 gpu-node-7 systemd[1]: Starting NVIDIA fabric manager service...",
    "11月 15 14:15:49 gpu-node-7 systemd[1]: sglang-decode.service: Main process exited, code=exited, status=1/FAILURE",
    "12월 01 00:00:01 gpu-node-7 systemd[1]: Started NVIDIA Persistence Daemon.",
  ], { wrapper: "journald", dating });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.host]),
    // The manager's start-up lines are journald's lines no template reads (as with an English month): unread, their host and time read.
    [
      [LogKind.error, "gpu-node-7"],
      [LogKind.unparsed, "gpu-node-7"],
      [LogKind.crash, "gpu-node-7"],
      [LogKind.unparsed, "gpu-node-7"],
    ],
  );
  // September the 5th, November the 15th, December the 1st, in the year the dating hints give: the months are read as numbers.
  assert.deepEqual(
    events.map((e) => e.tsUs),
    [us("2025-09-05T09:24:07Z"), us("2025-11-15T14:15:47Z"), us("2025-11-15T14:15:49Z"), us("2025-12-01T00:00:01Z")],
  );
});

test("a journal whose locale prints the month as glibc's ru_RU abbreviation is read as the journal's lines", () => {
  const { events, issues } = parseLines([
    "янв 03 02:11:40 gpu-node-7 systemd[1]: Starting NVIDIA Persistence Daemon...",
    "мая 21 09:00:12 gpu-node-7 python3[4417]: (EngineCore pid=4417) INFO 05-21 09:00:12 [gpu_worker.py:475] Available KV cache memory: 12.40 GiB",
    "авг 18 14:15:02 gpu-node-7 systemd[1]: sglang-decode.service: Main process exited, code=exited, status=1/FAILURE",
    "дек  1 00:00:01.250000 gpu-node-7 systemd[1]: Started NVIDIA Persistence Daemon.",
  ], { wrapper: "journald", dating });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.host]),
    [
      [LogKind.unparsed, "gpu-node-7"],
      [LogKind.message, "gpu-node-7"],
      [LogKind.crash, "gpu-node-7"],
      [LogKind.unparsed, "gpu-node-7"],
    ],
  );
  // The genitive `мая` is May; the day may be space-padded and the seconds carry a fraction, as with an English month.
  // January the 3rd is nearer the dating hints' October 2025 in 2026, and the lines after it go on in that year.
  assert.deepEqual(
    events.map((e) => e.tsUs),
    [us("2026-01-03T02:11:40Z"), us("2026-05-21T09:00:12Z"), us("2026-08-18T14:15:02Z"), us("2026-12-01T00:00:01.250Z")],
  );
});

test("a month word of another shape is no journald line", () => {
  const { events } = parseLines(["13月 15 14:15:47 gpu-node-7 systemd[1]: Starting NVIDIA fabric manager service..."], { wrapper: "journald" });
  assert.ok(events.every((e) => e.host !== "gpu-node-7"), "there is no thirteenth month");
});

test("the nominative `май`, %Ob's, and a Cyrillic word that is no month are no journald line", () => {
  for (const line of [
    "май 21 09:00:12 gpu-node-7 systemd[1]: Started NVIDIA Persistence Daemon.",
    "Авг 18 14:15:02 gpu-node-7 systemd[1]: Started NVIDIA Persistence Daemon.",
    "сер 18 14:15:02 gpu-node-7 systemd[1]: Started NVIDIA Persistence Daemon.",
  ]) {
    const { events } = parseLines([line], { wrapper: "journald" });
    assert.ok(events.every((e) => e.host !== "gpu-node-7"), line);
  }
});
