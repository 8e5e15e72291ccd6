// ROCm's runtime as a process on an AMD GPU prints it, written by hand in the printers' shapes: the HIP runtime's log
// (ROCm/clr rocclr/utils/debug.cpp log_printf: `:%d:%-25s:%-4d: %010lld us: `, newer releases adding the pid and tid),
// whose level 0 is printed only on the two paths that abort, and the HSA runtime's reports of a device fault before it
// aborts (ROCR-Runtime runtime.cpp VMFaultHandler, HwExceptionHandler). Lookalikes stay what they were.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("the HIP runtime's log: each line's level from its number, its place where the mask asked for it", () => {
  const { events, issues } = parseLines([
    ":3:hip_device_runtime.cpp    :651 : 2817416349 us: [pid:1234  tid:0x7f3a5c1ff640]  hipGetDeviceCount ( 0x7ffd5e2c1a4c ) ",
    ":3:hip_device_runtime.cpp    :653 : 2817416350 us: [pid:1234  tid:0x7f3a5c1ff640] hipGetDeviceCount: Returned hipSuccess : ",
    ":4:rocvirtual.cpp           :1105: 2817416353 us: [pid:1234  tid:0x7f3a5c1ff640] SWq=0x7f3a40, HWq=0x7f3a41, id=1, Dispatch Header = 0xb02",
    ":1:hip_code_object.cpp       :624 : 2817416352 us: [pid:1234  tid:0x7f3a5c1ff640] Cannot find CO in the bundle /opt/rocm/lib/libtorch_hip.so for ISA: amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
    ":2:                         :0   : 0093150211 us: Invalid size of the kernel argument",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.source]),
    [
      [1, LogKind.message, "info", "hip_device_runtime.cpp:651"],
      [2, LogKind.message, "info", "hip_device_runtime.cpp:653"],
      [3, LogKind.message, "debug", "rocvirtual.cpp:1105"],
      [4, LogKind.error, "error", "hip_code_object.cpp:624"],
      [5, LogKind.message, "warning", undefined],
    ],
  );
});

test("a HIP line of level 0 is the runtime's last word before it aborts: its queue's error, a guarantee that failed", () => {
  const { events, issues } = parseLines([
    ":0:rocdevice.cpp            :2984: 6545699276902 us: [pid:196431 tid:0x7f2301dff640] Callback: Queue 0x7f2301400000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory beyond the largest legal address. code: 0x29",
    ":0:rocdevice.cpp            :3020: 7262982208d us:  Callback: Queue 0x77ec42100000 aborting with error : HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.source, e.attrs?.failureClass]),
    [
      [LogKind.error, "fatal", "rocdevice.cpp:2984", "cuda-error"],
      [LogKind.error, "fatal", "rocdevice.cpp:3020", "cuda-error"],
    ],
  );
});

test("the HSA runtime's report of a GPU's memory fault or hardware exception is the process's death, a fault of its GPU work", () => {
  const { events, issues } = parseLines([
    "Quantizing mlp.experts.14.up_proj in layer     [1 of 47] 4.2%",
    "Memory access fault by GPU node-1 (Agent handle: 0x556e9b7e3360) on address 0x7f52c3f5f000. Reason: Page not present or supervisor privilege.",
    "Memory access fault by GPU node-4 on address 0x7551d8402000(may not be exact address). Reason: Write access to a read-only page.",
    "HW Exception by GPU node-1 (Agent handle: 0x563e71f098b0) reason :GPU Hang",
  ]);
  assert.deepEqual(issues, []);
  const crashes = events.filter((e) => e.kind === LogKind.crash);
  assert.deepEqual(
    crashes.map((e) => [e.line, e.attrs?.signal, e.attrs?.failureClass, e.attrs?.fatal]),
    [
      [2, "SIGABRT", "cuda-error", true],
      [3, "SIGABRT", "cuda-error", true],
      [4, "SIGABRT", "cuda-error", true],
    ],
  );
});

test("PyTorch's HIP errors are classed as its CUDA errors are", () => {
  const { events } = parseLines([
    "RuntimeError: HIP error: an illegal memory access was encountered",
    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 6 has a total capacity of 191.98 GiB of which 222.00 MiB is free.",
    "RuntimeError: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.failureClass]),
    [
      [LogKind.exception, "cuda-error"],
      [LogKind.exception, "cuda-oom"],
      [LogKind.exception, "cuda-error"],
    ],
  );
});

test("lookalikes of the HIP and HSA lines are not theirs", () => {
  const { events } = parseLines([
    ":0: warning: the config key 'x' is deprecated",
    "Memory access fault handling is described in the ROCm documentation",
    "hipSuccess returned by every call; HSA_STATUS_SUCCESS",
  ]);
  assert.ok(events.every((e) => e.kind !== LogKind.crash && e.kind !== LogKind.error), JSON.stringify(events.map((e) => [e.kind, e.attrs])));
});
