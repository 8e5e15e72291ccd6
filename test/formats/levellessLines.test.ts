// Lines whose dialect states no level, or states it in a form first seen in
// users' pastes (ingest/formats/log/dialects/otherDialects.ts, unread.ts, logParser.ts):
// glog with its year, the kernel's log as dmesg prints it, a verdict on a line
// in no dialect, tqdm progress lines. The lines are from pastes in public issue
// threads: the working half of test/corpus (the held-back half is never used
// to write tests), and a kernel log in NVIDIA/NVSentinel#155.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne, us } from "./sglangHarness.js";

test("glog with its year (`log_year_in_prefix`): dated by the line itself, an error from Mooncake's sources is that engine's", () => {
  const ev = parseOne("E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to target: 172.17.0.16:25482, status: 103900");
  assert.equal(ev.tsUs, us("2026-01-06T06:43:02.966156Z"));
  assert.equal(ev.tsInferred, undefined);
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.attrs?.engine, "mooncake");
  assert.equal(ev.attrs?.source, "ascend_direct_transport.cpp:820");
});

test("dmesg -T: the kernel's line is dated in the reader's zone; a verdict on its subject is a failure", () => {
  const { events } = parseLines(
    [
      "[Wed Jul 29 14:40:27 2026] mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)",
      "[Wed Jul 29 14:40:27 2026] mlx5_bond_1/1: QP 114233 error: local length error (0x8e 0x0 0x0)",
    ],
    { tzOffsetMinutes: 480 },
  );
  assert.deepEqual(events.map((e) => [e.kind, e.tsUs]), [
    [LogKind.error, us("2026-07-29T06:40:27Z")],
    [LogKind.error, us("2026-07-29T06:40:27Z")],
  ]);
  assert.equal(events[0]!.attrs?.error, "mlx5_bond_0/1: QP 51291 error: local length error (0x8e 0x0 0x0)");
});

test("dmesg's seconds since boot: a kernel line with no time of ours; its indented lines continue it; the module's count of GPUs it could not bring up is the failure", () => {
  const { events } = parseLines([
    "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0",
    "               NVRM: (PCI ID: 10de:26b5) installed in this system has",
    "               NVRM: fallen off the bus and is not responding to commands.",
    "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).",
  ]);
  // The first record (rm_is_supported_device's three lines) has no verdict of its own; the module's count after it
  // (kernel-open/nvidia/nv.c, the kernel's devices.gpu_probe_failed) says a GPU was not brought up.
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.tsInferred]), [
    [1, LogKind.message, true],
    [4, LogKind.error, true],
  ]);
});

test("a verdict on a line in no dialect is a failure; the same words on an SGLang warning are not", () => {
  const cut = parseOne("> [224] [coro_connection.hpp:209] ibverbs init qp failed: End of file conn_id  1");
  assert.equal(cut.kind, LogKind.error);
  const warning = parseOne(
    "[2025-11-01 16:50:36 TP1] Setup Custom allreduce failed with CUDART error: peer access is not supported between these two devices. To silence this warning, specify --disable-custom-all-reduce explicitly.",
  );
  assert.equal(warning.kind, LogKind.message);
});

// deepseek-ai/DeepEP#17, llm-d/llm-d#650, kvcache-ai/Mooncake#2011 and ai-dynamo/nixl#2069 (the working half of
// test/corpus); the prose lines are written by hand.
test("a verdict in other words on a bare line, or after glog's place alone, is a failure; prose without one, or a warning's, is not", () => {
  const { events } = parseLines([
    "connect EPS failed",
    "AsyncLLM output_handler failed.",
    "Prefetch operation ... failed to retrieve page ...",
    "gds_utils.cpp:163] Error in setting up Batch",
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
    "Loaded plugin UCX_MO",
    "ibgda init: WARN: Failed to initialize all selected devices. Perf may be limited.",
    "the failed requests were retried by the router",
    "Cuda graph is disabled for prefill server",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [
    LogKind.error,
    LogKind.error,
    LogKind.error,
    LogKind.transportError,
    LogKind.error,
    LogKind.unparsed,
    LogKind.unparsed,
    LogKind.unparsed,
    LogKind.unparsed,
  ]);
  // Mooncake store's file storage (mooncake-store/src/storage_backend.cpp StorageBackend::Init) is Mooncake's, though NIXL names its backends `*_backend.cpp`.
  const store = parseLines(["E1206 10:01:02.123456 12345 storage_backend.cpp:318] Failed to create storage root directory: \"/mnt/mooncake/offload\""]).events[0]!;
  assert.equal(store.attrs?.engine, "mooncake");
  // glog's place names NIXL's sources (nixlAgent.ts sourceFiles), so its error is that engine's.
  assert.deepEqual([events[3]!.attrs?.engine, events[3]!.attrs?.source, events[3]!.attrs?.error], ["nixl", "gds_utils.cpp:163", "Error in setting up Batch"]);
});

test("glog's place alone opens a line only with a C/C++ source and glog's bracket", () => {
  const { events } = parseLines(["setup.py:12] not a C++ source", "gds_utils.cpp:163 Error without the bracket"]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.unparsed, LogKind.unparsed]);
});

test("tqdm progress lines are read as progress at info, whatever their description", () => {
  const { events } = parseLines([
    "Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.04it/s]",
    "Capturing batches (avail_mem=29.01 GB):  87%|████████▋ | 20/23 [00:07<00:00,  3.19it/s]",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.message, "info"],
    [LogKind.message, "info"],
    [LogKind.message, "info"],
  ]);
});

// kvcache-ai/Mooncake#1627: glog lines whose time and thread id the paste cut, their level letter and place kept
// (the error line is written by hand in the same shape).
test("glog without its time and thread: the level and the place are read, the line undated; a warning is no failure", () => {
  const { events } = parseLines([
    "W topology.cpp:152] No RDMA devices found, check your device installation",
    "I transfer_engine_impl.cpp:232] Topology discovery complete. Found 0 HCAs.",
    "E transfer_engine.cpp:120] handshake failed",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.source]), [
    [1, LogKind.message, "warning", "topology.cpp:152"],
    [2, LogKind.message, "info", "transfer_engine_impl.cpp:232"],
    [3, LogKind.transportError, "error", "transfer_engine.cpp:120"],
  ]);
  assert.equal(events[2]!.attrs?.engine, "mooncake");
  assert.ok(events.every((e) => e.tsInferred === true), "no time of their own");
});

test("a line that opens with a capital letter and a space is glog only when a C/C++ place and its bracket follow", () => {
  const { events } = parseLines(["I think the transfer engine hung here", "E topology: no devices] found", "W setup.py:12] not a C++ source"]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.unparsed, LogKind.unparsed, LogKind.unparsed]);
});

// vllm-project/vllm-ascend#14802 (the working half of test/corpus): torch_npu's allocator writes glog's prefix with
// the place as the build gave its path; the second line is written by hand in the same shape.
test("glog's prefix whose place is a path, not glog's base name: the level, the place and the time are read", () => {
  const { events } = parseLines([
    "E0824 11:45:01.752239 15252 ../torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:3009] Event: aclrtSynchronizeEvent failed, event = 0xfff9dd8e3440",
    "E0824 11:45:01.752365 15252 /opt/build/mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp:223] Session::readBody failed.",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level, e.attrs?.source]), [
    [LogKind.error, "error", "../torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:3009"],
    [LogKind.transportError, "error", "/opt/build/mooncake-transfer-engine/src/transport/tcp_transport/tcp_transport.cpp:223"],
  ]);
  assert.equal(events[0]!.attrs?.error, "Event: aclrtSynchronizeEvent failed, event = 0xfff9dd8e3440");
  // The component is the place's base name's, whatever path precedes it.
  assert.equal(events[1]!.attrs?.engine, "mooncake");
});

// deepseek-ai/DeepEP#17, a ionic RDMA provider's line and kvcache-ai/Mooncake#691 (the working half of test/corpus);
// the perror lines, the counts, curl's and nvidia-smi's lines are written by hand in the shapes perror(3), Rust's
// io::Error, a test summary, curl (src/tool_operate.c) and nvidia-smi print.
test("a call's failure in the C library's words, `<subject> failed on|with|,`, `with error N`, `Unable to …` and curl's error on a bare line are failures; a count of no failures is not", () => {
  const { events } = parseLines([
    "ibgda_rc_init2rtr failed on RC #0.",
    "ionic_comp_msn:1277: cqe with error 12 for 0x1 (msn), qpid 2048 cqid 2049",
    "ugin: connect()10.1.0.21:15468: Connection refused [111]",
    "write: Broken pipe",
    "recv from 10.0.0.7:17001: Connection reset by peer (os error 104)",
    "open /dev/infiniband/uverbs0: Permission denied",
    "[Errno 111] Connection refused",
    "ls: cannot access '/dev/shm/mooncake': No such file or directory",
    "Tests: 5 passed, 0 failed",
    "bench: ok=500 failed=0",
    "job finished with error code 0",
    "curl: (52) Empty reply from server",
    "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [
    LogKind.error,
    LogKind.error,
    LogKind.error,
    LogKind.error,
    LogKind.error,
    LogKind.error,
    LogKind.error,
    LogKind.unparsed,
    LogKind.unparsed,
    LogKind.unparsed,
    LogKind.unparsed,
    LogKind.error,
    LogKind.error,
  ]);
  assert.equal(events[2]!.attrs?.failureClass, "transport");
  // The same words on a line whose level says info are no failure.
  assert.equal(parseOne("2025-09-22 20:20:40,102 INFO probe of 10.0.0.7:17001: Connection refused, retrying").kind, LogKind.message);
});

test("a statistic of no errors or failures in a report (`Error rate: 0.00%`, `Error count: 0`) is no failure; the same statistic above zero is", () => {
  const { events } = parseLines([
    "Error rate: 0.00%",
    "Error count: 0",
    "Total errors: 0",
    "Failed requests:                         0",
    "Error rate: 5.00%",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.unparsed, LogKind.unparsed, LogKind.unparsed, LogKind.unparsed, LogKind.error]);
});

// Each in its printer's words: Docker's client (moby client/errors.go), glibc's dynamic loader (elf/dl-error.c),
// CPython's main (Modules/main.c) and runpy (Lib/runpy.py).
test("a program that could not start, in its launcher's words, is a failure; the same program's name before other words is not", () => {
  const { events } = parseLines([
    'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
    "python3: error while loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory",
    "python3: can't open file '/sgl-workspace/bench_one.py': [Errno 2] No such file or directory",
    "/usr/bin/python3: No module named sglang.launch_server",
    "python3: loaded 8 shards of the checkpoint",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.error, LogKind.error, LogKind.error, LogKind.error, LogKind.unparsed]);
});
