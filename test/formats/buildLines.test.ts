// What a build or a CI job prints when a server's JIT compile, an install or a test fails: the CUDA toolkit's compilers
// (`{tool} {level} :`, the level padded to seven; ptxas with its input and line first — the shapes XLA's and Numba's
// ptxas wrappers match and Triton's PTXASError quotes), ninja's `FAILED: `, GNU make's and CMake's errors, pytest's
// short summary and a GitHub Actions `##[error]`, and a supervisor's plain words that a process ended unexpectedly or a
// wait timed out (ingest/formats/log/dialects/otherDialects.ts readCudaToolHead, ingest/formats/log/unread.ts
// BARE_VERDICT, FAILURE_WORDS and EXCEPTION_WORDS).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

test("the CUDA toolkit's compilers: fatal and error lines are failures with the tool named; warning and info lines are read at their level", () => {
  const { events } = parseLines([
    "nvcc fatal   : Unsupported gpu architecture 'compute_100a'",
    "ptxas /tmp/tempfile-node3-528e6f61-1909-622b8be3ab01d, line 10; fatal   : Unsupported .version 8.7; current version is '8.4'",
    "ptxas application ptx input, line 36; error   : Call has wrong number of parameters",
    "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
    "nvcc warning : The 'compute_35', 'compute_37', 'sm_35', and 'sm_37' architectures are deprecated, and may be removed in a future release (Use -Wno-deprecated-gpu-targets to suppress warning).",
    "ptxas info    : Used 64 registers, 400 bytes cmem[0]",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.source]),
    [
      [LogKind.error, "fatal", "nvcc"],
      [LogKind.error, "fatal", "ptxas"],
      [LogKind.error, "error", "ptxas"],
      [LogKind.error, "error", "nvcc"],
      [LogKind.message, "warning", "nvcc"],
      [LogKind.message, "info", "ptxas"],
    ],
  );
  assert.equal(events[0]!.attrs?.error, "Unsupported gpu architecture 'compute_100a'");
});

test("nvcc's version banner is no diagnostic", () => {
  const { events } = parseLines(["nvcc: NVIDIA (R) Cuda compiler driver", "Cuda compilation tools, release 12.8, V12.8.93"]);
  assert.ok(events.every((e) => e.kind !== LogKind.error && e.attrs?.source !== "nvcc"), JSON.stringify(events.map((e) => [e.kind, e.attrs])));
});

test("ninja's failed step, a process that ended unexpectedly and a wait that timed out are failures on lines with no level", () => {
  const { events } = parseLines([
    "FAILED: flashinfer/build/batch_decode_kernel.cuda.o",
    "Worker process died unexpectedly",
    "Timed out waiting for the server to become healthy",
    "[2/9] Building CUDA object csrc/CMakeFiles/common_ops.dir/moe_align.cu.o",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.error, LogKind.error, LogKind.error, LogKind.unparsed]);
});

test("GNU make's and CMake's errors and the CUDA front end's count of errors are failures; make's other lines are not", () => {
  const { events } = parseLines([
    "gmake[2]: *** [CMakeFiles/common_ops.dir/build.make:90: CMakeFiles/common_ops.dir/csrc/moe/moe_align.cu.o] Error 1",
    "make: *** [Makefile:136: all] Error 2",
    "CMake Error at CMakeLists.txt:42 (find_package):",
    '1 error detected in the compilation of "csrc/moe/moe_align.cu".',
    "make[1]: Leaving directory '/workspace/Mooncake/build'",
    "CMake Warning at CMakeLists.txt:18 (message):",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.error, LogKind.error, LogKind.error, LogKind.error, LogKind.unparsed, LogKind.unparsed]);
});

test("asyncio's task that failed with nobody awaiting it is a failure, bare or through logging", () => {
  const { events } = parseLines(["Task exception was never retrieved", "ERROR:asyncio:Future exception was never retrieved"]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.error, LogKind.error]);
});

test("a CI job's failures: pytest's summary of a failed test and a GitHub Actions `##[error]`, behind the runner's time or not", () => {
  const { events } = parseLines([
    "FAILED test/srt/test_disaggregation.py::TestDisaggregationMooncake::test_gsm8k - AssertionError: 0.12 not greater than 0.62",
    "=========================== short test summary info ============================",
    "2025-06-11T14:03:07.1234567Z ##[error]Process completed with exit code 1.",
    "##[error]The operation was canceled.",
    "2025-06-11T14:03:08.0000000Z ##[group]Run python3 -m pytest test/srt",
  ]);
  assert.deepEqual(events.map((e) => e.kind === LogKind.error), [true, false, true, true, false]);
});
