// Error-level prints a library makes on its way to a fallback
// (ingest/formats/log/fallbacks.ts): each is read as a warning that names what
// the code does next, and the same library's print on the path that gives up
// stays a failure. The lines are in the shape each logger prints them: c10's
// `[E304 19:44:40.793259564 TCPStore.cpp:277] ` (the torchrun lines are a
// user's output, held in the public-code index), glog's and absl's
// `E0611 14:03:07.554102 88213 utils.cpp:166] `, the messages as the cited
// calls format them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { ParsedEvent } from "../../domain/event.js";
import { LogKind } from "../../domain/kinds.js";
import { renderFallbackDocs } from "../../ingest/formats/log/fallbackDocs.js";
import { FALLBACK_PRINTS } from "../../ingest/formats/log/fallbacks.js";
import { parseLines } from "./sglangHarness.js";

/** Each record's kind, level and the fallback row that read it. */
function readings(lines: readonly string[]): [string, unknown, unknown][] {
  return parseLines(lines).events.map((e: ParsedEvent) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint]);
}

test("torchrun's agent store: the bind that the agent's store explains is a warning, the client's timeout a failure", () => {
  const lines = [
    "[W304 19:44:40.789045482 socket.cpp:767] [c10d] The client socket cannot be initialized to connect to [localhost]:29500 (errno: 97 - Address family not supported by protocol).",
    "[E304 19:44:40.793259564 TCPStore.cpp:277] [c10d] The server socket on 29500 has failed to bind. TORCHELASTIC_USE_AGENT_STORE is enabled so ignoring the error.",
    "[E304 19:54:40.801122334 TCPStore.cpp:310] [c10d] TCP client failed to connect/validate to host localhost:29500 - timed out (try=57, timeout=600000ms): The client socket has timed out after 600000ms while trying to connect to (localhost, 29500).",
    "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
  ];
  assert.deepEqual(readings(lines), [
    [LogKind.message, "warning", undefined],
    [LogKind.message, "warning", "torchC10d.agent_store_bind"],
    [LogKind.error, "error", undefined],
    [LogKind.exception, undefined, undefined],
  ]);
  const bind = parseLines(lines).events[1]!;
  assert.equal(bind.attrs?.printedLevel, "error");
  assert.equal(bind.attrs?.source, "TCPStore.cpp:277");
  assert.match(String(bind.attrs?.fallback), /agent already serves the store/);
});

test("Mooncake's arena allocator that does not start is a fallback to mmap; a buffer mmap cannot map stays a failure", () => {
  assert.deepEqual(
    readings([
      "E0611 14:03:07.551002 88213 mmap_arena.cpp:123] Arena mmap failed: size=17179869184, errno=12 (Cannot allocate memory)",
      "E0611 14:03:07.554102 88213 utils.cpp:166] === ARENA INITIALIZATION FAILED ===",
      "E0611 14:03:07.554110 88213 utils.cpp:167] Falling back to traditional mmap()",
      "E0611 14:03:07.554113 88213 utils.cpp:169] MC_STORE_USE_HUGEPAGE is set, so the fallback path will also require hugepages",
      "E0611 14:03:07.554117 88213 utils.cpp:172] Arena initialization is only attempted once per process; restart after fixing the environment if you want to retry arena bring-up",
      "E0611 14:03:07.560201 88213 mmap_arena.cpp:103] Arena hugepage mmap failed for pool_size=17179869184 bytes, errno=12 (Cannot allocate memory); regular-page fallback disabled because MC_STORE_USE_HUGEPAGE explicitly requested hugepages",
      "E0611 14:03:09.120044 88213 utils.cpp:435] mmap failed (hugepage=yes), size=4294967296, errno=12 (Cannot allocate memory)",
    ]),
    [
      [LogKind.message, "warning", "mooncakeStore.arena_pool_mmap"],
      [LogKind.message, "warning", "mooncakeStore.arena_init_failed"],
      [LogKind.message, "warning", "mooncakeStore.arena_fallback_mmap"],
      [LogKind.message, "warning", "mooncakeStore.arena_fallback_hugepages"],
      [LogKind.message, "warning", "mooncakeStore.arena_once"],
      [LogKind.message, "warning", "mooncakeStore.arena_pool_hugepages"],
      [LogKind.error, "error", undefined],
    ],
  );
});

test("Mooncake's topology skips an RDMA device whose sysfs path does not resolve; no transport at all stays the engine's failure", () => {
  const { events } = parseLines([
    "E0611 14:03:07.554102 88213 topology.cpp:236] listInfiniBandDevices: realpath /sys/class/infiniband/mlx5_bond_0/../.. failed: No such file or directory [2]",
    "E0611 14:03:07.601532 88213 transfer_engine_impl.cpp:397] No HCA detected and neither NVLink nor TCP transport is compiled in",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint]),
    [
      [LogKind.message, "warning", "mooncakeTransferEngine.hca_path_unresolved"],
      [LogKind.transportError, "error", undefined],
    ],
  );
  assert.equal(events[1]!.attrs?.engine, "mooncake");
});

test("NIXL before 0.7.1: a plugin that does not open at discovery is a warning; the backend asked for and not loaded stays NIXL's failure", () => {
  const { events } = parseLines([
    "E0721 08:06:26.781179    4330 nixl_plugin_manager.cpp:122] Failed to load plugin from /usr/local/nixl/lib/x86_64-linux-gnu/plugins/libplugin_GDS.so: libcufile.so.0: cannot open shared object file: No such file or directory",
    "E0721 08:06:26.781201    4330 nixl_plugin_manager.cpp:288] Failed to load plugin 'GDS' from any directory",
    "I0721 08:06:26.790020    4330 nixl_plugin_manager.cpp:316] Discovered and loaded plugin: UCX",
    "E0721 08:06:27.100000    4330 nixl_agent.cpp:335] createBackend: unsupported backend 'GDS'",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint]),
    [
      [LogKind.message, "warning", "nixlAgent.plugin_dlopen_failed"],
      [LogKind.message, "warning", "nixlAgent.plugin_not_loaded"],
      [LogKind.message, "info", undefined],
      [LogKind.transportError, "error", undefined],
    ],
  );
  assert.equal(events[3]!.attrs?.engine, "nixl");
});

test("Triton's pipeliner leaving a loop unpipelined is a warning; a compiler pass that fails stays a failure", () => {
  // A DP-attention start-up's paste (sgl-project/sglang#3667); Triton ≤ 3.1 PipelineExpander.cpp verifySchedule
  // emitError("operation scheduled before its operands"), MLIR's diagnostic printed as `loc(…): error: …`.
  const loc = 'loc("/workspace/sglang/python/sglang/srt/layers/attention/triton_ops/decode_attention.py":310:16)';
  const { events } = parseLines([
    `${loc}: error: operation scheduled before its operands`,
    `${loc}: error: operation scheduled before its operands`,
    `${loc}: error: failed to legalize unresolved materialization from ('i64') to 'index' that remained live after conversion`,
    "RuntimeError: PassManager::run failed",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint]),
    [
      [LogKind.message, "warning", "triton.schedule_before_operands"],
      [LogKind.message, "warning", "triton.schedule_before_operands"],
      [LogKind.error, undefined, undefined],
      [LogKind.exception, undefined, undefined],
    ],
  );
  assert.match(String(events[0]!.attrs?.fallback), /leaves that loop as it was, not pipelined/);
});

test("SGLang's tokenizer manager degrading one request's top logprobs to nested lists is a warning; its crash stays a failure", () => {
  // managers/tokenizer_manager.py add_logprob_to_meta_info: logger.error("Falling back to nested input top logprobs for rid=%s: %s", …, e)
  const { events } = parseLines([
    "[2026-06-11 14:03:07] Falling back to nested input top logprobs for rid=5b1c0f2e9a6d4e31: input_top_logprobs_val has ragged rows",
    "[2026-06-11 14:03:09] TokenizerManager hit an exception: Traceback (most recent call last):",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint]),
    [
      [LogKind.message, "warning", "sglang.nested_top_logprobs"],
      [LogKind.exception, "error", undefined],
    ],
  );
  assert.equal(events[0]!.attrs?.source, "managers/tokenizer_manager.py");
});

test("SGLang's refusal of one request and an output after its request's abort are warnings; the scheduler's crash stays a failure", () => {
  // entrypoints/http_server.py generate_request: logger.error(f"[http_server] Error: {e}") then the error to that client;
  // managers/tokenizer_manager.py _handle_batch_output: logger.error(f"Received output for {rid=} but the state was deleted in TokenizerManager.") then continue.
  const { events } = parseLines([
    "[2026-06-11 14:03:07] [http_server] Error: The input (132000 tokens) is longer than the model's context length (131072 tokens).",
    "[2026-06-11 14:03:08] Received output for rid='5e5de8901d2349fd8d9107f21df3ab92' but the state was deleted in TokenizerManager.",
    "[2026-06-11 14:03:09 TP0] Scheduler hit an exception: Traceback (most recent call last):",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level, e.attrs?.fallbackPrint, e.attrs?.printedLevel]),
    [
      [LogKind.message, "warning", "sglang.request_error", "error"],
      [LogKind.message, "warning", "sglang.output_after_abort", "error"],
      [LogKind.exception, undefined, undefined, undefined],
    ],
  );
});

test("a row's message printed from another file, or at glog's fatal level, stays a failure", () => {
  assert.deepEqual(
    readings([
      "E0611 14:03:07.554110 88213 main.cpp:167] Falling back to traditional mmap()",
      "F0611 14:03:07.554110 88213 utils.cpp:167] Falling back to traditional mmap()",
    ]),
    [
      [LogKind.error, "error", undefined],
      [LogKind.error, "fatal", undefined],
    ],
  );
});

test("every row's print is read by it, and by no other row", () => {
  for (const p of FALLBACK_PRINTS) {
    const others = FALLBACK_PRINTS.filter((q) => q !== p && q.file === p.file);
    const sample = p.format.replace(/\{[^}]*\}/g, "1");
    assert.ok(p.message.test(sample), `${p.id} does not read its own format: ${sample}`);
    for (const q of others) assert.ok(!q.message.test(sample), `${p.id}'s format is also ${q.id}'s`);
  }
  assert.equal(new Set(FALLBACK_PRINTS.map((p) => p.id)).size, FALLBACK_PRINTS.length);
});

test("docs/log-templates.md's fallback table is fallbacks.ts's (npm run docs:templates)", () => {
  const doc = readFileSync(new URL("../../../docs/log-templates.md", import.meta.url), "utf8");
  assert.equal(renderFallbackDocs(doc), doc);
  for (const p of FALLBACK_PRINTS) assert.ok(doc.includes(`| \`${p.id}\` |`), p.id);
});

test("pip's list of dependency conflicts after an install is a warning; a requirement it cannot resolve stays a failure", () => {
  // pip 24's output of `pip install -r requirements.txt` in an image build: the conflicts, then the install's success.
  const lines = [
    "Successfully uninstalled fsspec-2024.9.0",
    "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
    "gcsfs 2024.9.0.post1 requires fsspec==2024.9.0, but you have fsspec 2024.10.0 which is incompatible.",
    "Successfully installed fsspec-2024.10.0 huggingface_hub-0.26.2",
    // pip 20.2's legacy resolver: one line per conflict.
    "ERROR: tensorflow 2.3.0 has requirement numpy<1.19.0,>=1.16.0, but you'll have numpy 1.19.4 which is incompatible.",
    "ERROR: Could not find a version that satisfies the requirement sgl-kernel==9.9.9 (from versions: 0.3.9, 0.3.10)",
  ];
  const events = parseLines(lines).events;
  const conflicts = events.filter((e) => e.attrs?.fallbackPrint !== undefined);
  assert.deepEqual(
    conflicts.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.fallbackPrint]),
    [
      [2, LogKind.message, "warning", "pip.conflicts_after_install"],
      [5, LogKind.message, "warning", "pip.legacy_conflict"],
    ],
  );
  assert.match(String(conflicts[0]!.attrs?.fallback), /Successfully installed/);
  const unresolved = events.find((e) => e.line === 6)!;
  assert.equal(unresolved.kind, LogKind.error);
});

test("XLA's factories already registered by a second copy of XLA are warnings, under absl's prefix and TensorFlow's sink", () => {
  // The lines as TensorFlow 2.17 and JAX print them at import (TensorFlow's sink first, then absl's before InitializeLog).
  const lines = [
    "2024-08-15 02:37:52.102563: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:485] Unable to register cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered",
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "E0000 00:00:1764833020.571581    9063 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
    "E0000 00:00:1764833020.581461    9063 cuda_blas.cc:1407] Unable to register cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered",
    // The same file's other error, written by hand from its format: a failure.
    "E0000 00:00:1764833020.581999    9063 cuda_dnn.cc:8601] Attempting to initialize an instance of the cuDNN support library with a non-CUDA StreamExecutor",
  ];
  assert.deepEqual(readings(lines), [
    [LogKind.message, "warning", "xla.cufft_factory_registered"],
    [LogKind.message, "warning", undefined],
    [LogKind.message, "warning", "xla.cudnn_factory_registered"],
    [LogKind.message, "warning", "xla.cublas_factory_registered"],
    [LogKind.error, "error", undefined],
  ]);
});

test("the loader's refusal of a preloaded library is a warning; a library the program needs that will not load stays a failure", () => {
  // glibc's elf/rtld.c do_preload and elf/dl-error.c, as a container that preloads jemalloc prints them.
  assert.deepEqual(
    readings([
      "ERROR: ld.so: object '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' from LD_PRELOAD cannot be preloaded (cannot open shared object file): ignored.",
      "python3: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory",
    ]),
    [
      [LogKind.message, "warning", "glibc.preload_ignored"],
      [LogKind.error, undefined, undefined],
    ],
  );
});
