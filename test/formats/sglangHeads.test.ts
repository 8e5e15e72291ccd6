// SGLang prints no level, so a line no template reads takes the level of the
// logger call whose head its message opens with
// (ingest/formats/templates/sglang/sglangHeads.ts). The lines are written in the
// shape SGLang prints them (`[%(asctime)s DPx TPy] message`), the messages as
// the f-strings of the cited files format them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { SGLANG_HEADS, sglangHeadOf } from "../../ingest/formats/templates/sglang/sglangHeads.js";
import { templatesOf } from "../../ingest/formats/templates/index.js";
import { parseLines, parseOne } from "./sglangHarness.js";

const PREFIX = "[2026-01-05 10:00:00 DP0 TP0] ";

test("the KV pool's out-of-memory error, logged before the scheduler raises, is a failure", () => {
  // mem_cache/common.py alloc_for_extend: logger.error(f"Prefill out of memory. Try to lower your batch size.\nTry to allocate {n} tokens.\n{…}")
  const { events } = parseLines([
    `${PREFIX}Prefill out of memory. Try to lower your batch size.`,
    "Try to allocate 8192 tokens.",
    "Available full tokens: 899840 (full_available_size=11776 + full_evictable_size_=888064)",
  ]);
  assert.deepEqual([events[0]!.kind, events[0]!.attrs?.level, events[0]!.attrs?.source], [LogKind.error, "error", "mem_cache/common.py"]);
});

test("an SGLang error head no template reads is a failure record with the level and file of its call", () => {
  // entrypoints/http_server.py health_generate: logger.error(f"Health check failed. Server couldn't get a response from detokenizer for last {HEALTH_CHECK_TIMEOUT} seconds. …")
  const ev = parseOne(`${PREFIX}Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: 10:00:00. last_heartbeat time: 09:58:41`);
  assert.equal(ev.kind, LogKind.error);
  assert.equal(ev.attrs?.level, "error");
  assert.equal(ev.attrs?.source, "entrypoints/http_server.py");
  assert.equal(ev.attrs?.error, "Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: 10:00:00. last_heartbeat time: 09:58:41");
  assert.notEqual(ev.attrs?.failureClass, "transport");
  assert.equal(ev.dp, 0);
  assert.equal(ev.tp, 0);
});

test("a bootstrap's or a peer's error head is a transport failure unless its words name a narrower class", () => {
  // disaggregation/common/conn.py (ad7733e4) CommonKVReceiver._get_prefill_dp_size_from_server:
  // logger.error(f"Failed to get prefill parallel info: {response.status_code}, {response.text}")
  const status = parseOne(`${PREFIX}Failed to get prefill parallel info: 404, Bootstrap info not Found`);
  assert.equal(status.kind, LogKind.error);
  assert.equal(status.attrs?.failureClass, "transport");
  assert.equal(status.attrs?.source, "disaggregation/common/conn.py");
  // The same call's other branch: logger.error(f"Error fetching prefill parallel info from bootstrap: {e}"), a requests timeout.
  const timeout = parseOne(`${PREFIX}Error fetching prefill parallel info from bootstrap: HTTPConnectionPool(host='10.0.3.17', port=8998): Read timed out. (read timeout=5)`);
  assert.equal(timeout.kind, LogKind.error);
  assert.equal(timeout.attrs?.failureClass, "timeout");
});

test("an error head of an engine's SGLang side is that engine's transport error", () => {
  // disaggregation/mooncake/conn.py MooncakeKVManager._send_kvcache_generic
  const ev = parseOne(`${PREFIX}Prefill transfer kvcache error, layers_current_pp_stage is out of range: layers_current_pp_stage=61, len(dst_k_ptrs)=30`);
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.attrs?.engine, "mooncake");
  assert.equal(ev.attrs?.errorKind, "unrecognised");
  assert.equal(ev.attrs?.failureClass, "transport");
  assert.equal(ev.attrs?.level, "error");
  assert.equal(ev.attrs?.source, "disaggregation/mooncake/conn.py");
  // mem_cache/storage/mooncake_store/mooncake_store.py MooncakeStore.__init__: logger.error(f"failed to setup mooncake store, error code: {ret_code}")
  const store = parseOne(`${PREFIX}failed to setup mooncake store, error code: -800`);
  assert.equal(store.kind, LogKind.transportError);
  assert.equal(store.attrs?.engine, "mooncake");
  assert.equal(store.attrs?.source, "mem_cache/storage/mooncake_store/mooncake_store.py");
});

test("a warning head is no failure, whatever its words say", () => {
  // disaggregation/common/conn.py CommonKVManager._resolve_rank_mapping (warning_once)
  const tp = parseOne(`${PREFIX}Performance is NOT guaranteed when using different TP sizes for non-MLA models. `);
  assert.equal(tp.kind, LogKind.message);
  assert.equal(tp.attrs?.level, "warning");
  assert.equal(tp.attrs?.source, "disaggregation/common/conn.py");
  // entrypoints/engine.py sigchld_handler: logger.warning(f"Child process unexpectedly failed with {exitcode=}. {pid=}")
  const child = parseOne(`${PREFIX}Child process unexpectedly failed with exitcode=256. pid=32885`);
  assert.equal(child.kind, LogKind.message);
  assert.equal(child.attrs?.level, "warning");
  // mooncake/conn.py _do_staging_transfer: "failing affected requests" is the warning's own words.
  const staging = parseOne(`${PREFIX}[Staging] a chunk exceeds the staging ring; failing affected requests. Increase SGLANG_DISAGG_STAGING_POOL_SIZE_MB or reduce chunked_prefill_size.`);
  assert.equal(staging.kind, LogKind.message);
  assert.equal(staging.attrs?.level, "warning");
});

test("a line with no known head is read as before: a message, or a failure by its words alone", () => {
  const plain = parseOne(`${PREFIX}Setup Custom allreduce failed with CUDART error: peer access is not supported between these two devices. To silence this warning, specify disable_custom_all_reduce=True explicitly.`);
  assert.equal(plain.kind, LogKind.message);
  assert.equal(plain.attrs, undefined, "no level, no source");
  // managers/controller_single.py of v0.2: `Exception in ControllerSingle:`, a failure by its words, a call no head names.
  const words = parseOne(`${PREFIX}Exception in ControllerSingle:`);
  assert.equal(words.kind, LogKind.error);
  assert.equal(words.attrs?.source, undefined);
});

// The scheduler and its workers print `[time DPx TPy]` or `[time TPy]`; the tokenizer manager, the data parallel
// controller and the HTTP server print `[time]` alone (utils/common.py configure_logger's prefix).
const TP3 = "[2026-01-05 10:00:00 TP3] ";
const MAIN = "[2026-01-05 10:00:00] ";

test("error heads of the scheduler's process, the tokenizer manager and the launcher are failures of their files", () => {
  // managers/scheduler_output_processor_mixin.py process_batch_result_decode: logger.error(f"Grammar accept_token failed for req {req.rid} with token {next_token_id}: {e}")
  const grammar = parseOne(`${TP3}Grammar accept_token failed for req 9f1c2a77d0e04b7c with token 128009: Token 128009 is rejected by the grammar`);
  assert.equal(grammar.kind, LogKind.error);
  assert.equal(grammar.attrs?.source, "managers/scheduler_output_processor_mixin.py");
  assert.equal(grammar.tp, 3);
  assert.equal(grammar.dp, undefined);
  // managers/tokenizer_manager.py SignalHandler.running_phase_sigquit_handler: logger.error(f"SIGQUIT received. {signum=}, {frame=}. It usually means one child failed.")
  const sigquit = parseOne(`${MAIN}SIGQUIT received. signum=3, frame=None. It usually means one child failed.`);
  assert.equal(sigquit.kind, LogKind.error);
  assert.equal(sigquit.attrs?.level, "error");
  assert.equal(sigquit.attrs?.source, "managers/tokenizer_manager.py");
  // managers/data_parallel_controller.py run_data_parallel_controller_process: f"Scheduler or DataParallelController {proc.pid} terminated with {proc.exitcode}"
  const died = parseOne(`${MAIN}Scheduler or DataParallelController 48213 terminated with -9`);
  assert.equal(died.kind, LogKind.error);
  assert.equal(died.attrs?.source, "managers/data_parallel_controller.py");
  assert.notEqual(died.attrs?.failureClass, "transport");
});

test("an error head keeps the class its words name, and HiCache's NIXL backend fails as NIXL", () => {
  // model_executor/model_runner.py update_weights_from_distributed: f"Failed to update parameter online: {e}. The full weights of the ModelRunner are partially updated. …"
  const online = parseOne(
    `${PREFIX}Failed to update parameter online: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error. The full weights of the ModelRunner are partially updated. Please discard the whole weights.`,
  );
  assert.equal(online.kind, LogKind.error);
  assert.equal(online.attrs?.source, "model_executor/model_runner.py");
  assert.equal(online.attrs?.failureClass, "nccl");
  // mem_cache/storage/nixl/hicache_nixl.py HiCacheNixl._xfer_and_wait: logger.error(f"Failed to execute transfer: {e}")
  const store = parseOne(`${TP3}Failed to execute transfer: nixlBackendError: NIXL_ERR_BACKEND`);
  assert.equal(store.kind, LogKind.transportError);
  assert.equal(store.attrs?.engine, "nixl");
  assert.equal(store.attrs?.failureClass, "transport");
  assert.equal(store.attrs?.source, "mem_cache/storage/nixl/hicache_nixl.py");
});

test("warning heads of HiCache, the communicators and the tokenizer manager are no failures", () => {
  // managers/cache_controller.py _page_get_zero_copy: logger.warning(f"Prefetch operation {operation.request_id} failed to retrieve page {hash_values[i]}.")
  const prefetch = parseOne(`${TP3}Prefetch operation 3b5d0e8f41a24c1f failed to retrieve page 9c0f6b2d1e7a4f53.`);
  assert.equal(prefetch.kind, LogKind.message);
  assert.equal(prefetch.attrs?.level, "warning");
  assert.equal(prefetch.attrs?.source, "managers/cache_controller.py");
  // distributed/device_communicators/shm_broadcast.py MessageQueue.acquire_write: logger.warning("No available block found in %s second. ", …)
  const ring = parseOne(`${PREFIX}No available block found in 60 second. `);
  assert.equal(ring.kind, LogKind.message);
  assert.equal(ring.attrs?.source, "distributed/device_communicators/shm_broadcast.py");
  // distributed/device_communicators/custom_all_reduce.py CustomAllreduce.__init__: "… or P2P test failed. To silence this warning, …"
  const allreduce = parseOne(
    `${TP3}Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. To silence this warning, specify disable_custom_all_reduce=True explicitly.`,
  );
  assert.equal(allreduce.kind, LogKind.message);
  assert.equal(allreduce.attrs?.level, "warning");
  // A head is the whole sentence where calls of another level open the same way: this one is logger.info (index copies).
  const info = parseOne(`${MAIN}Disable piecewise CUDA graph because --disable-piecewise-cuda-graph is set`);
  assert.equal(info.kind, LogKind.message);
  assert.equal(info.attrs, undefined);
  // managers/tokenizer_manager.py SignalHandler.sigterm_handler: logger.warning(f"SIGTERM received. {signum=} {frame=}. Draining requests and shutting down...")
  const sigterm = parseOne(`${MAIN}SIGTERM received. signum=15 frame=None. Draining requests and shutting down...`);
  assert.equal(sigterm.kind, LogKind.message);
  assert.equal(sigterm.attrs?.source, "managers/tokenizer_manager.py");
});

test("a template that reads the line wins over its head", () => {
  // `Decode transfer failed for request ` is both a head and sglangDisaggregation's template.
  const ev = parseOne(
    `${PREFIX}Decode transfer failed for request rank=0 decode_req.req.rid='a04107ccff5349bab42803eb77df5cd5' decode_req.req.bootstrap_room=6555093254675405189 with exception KVTransferError(bootstrap_room=6555093254675405189): Aborted by AbortReq.`,
  );
  assert.equal(ev.kind, LogKind.transferFailed);
  assert.equal(ev.attrs?.source, undefined);
});

test("a head logged with logger.exception keeps its traceback as one exception record, with the call's level and file", () => {
  const { events } = parseLines([
    `${PREFIX}Failed to deregister buffers during teardown`,
    "Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/mooncake/conn.py", line 512, in teardown',
    "    self.deregister_buffer_to_engine()",
    "RuntimeError: batch_unregister_memory failed",
  ]);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.kind, LogKind.exception);
  assert.equal(events[0]!.attrs?.excType, "RuntimeError");
});

test("the longest head a message opens with is its call's", () => {
  assert.equal(sglangHeadOf("Could not fetch prefill parallel info from bootstrap_addr: 10.0.3.17:8998")?.file, "disaggregation/nixl/conn.py");
  assert.equal(sglangHeadOf("Could not fetch prefill parallel info from 10.0.3.17:8998 after 15 attempts")?.file, "disaggregation/decode.py");
  assert.equal(sglangHeadOf("Could not fetch"), undefined);
});

test("every head is long enough to tell its call apart, and no head is listed twice", () => {
  for (const h of SGLANG_HEADS) assert.ok(h.head.length >= 12, h.head);
  assert.equal(new Set(SGLANG_HEADS.map((h) => h.head)).size, SGLANG_HEADS.length);
  for (const h of SGLANG_HEADS) assert.ok(h.engine === undefined || h.transfer === true, `${h.head}: an engine's head is a transfer's`);
});

test("a head that a template also reads has the level the template's row gives its call", () => {
  for (const h of SGLANG_HEADS) {
    for (const t of templatesOf("sglang")) {
      if (typeof t.head !== "string" || !(h.head.startsWith(t.head) || t.head.startsWith(h.head))) continue;
      // A template row names logger.exception's records `exception`: an error-level call.
      const level = t.level.startsWith("exception") ? "error" : t.level;
      assert.ok(level.startsWith(h.level), `${h.head}: template ${t.id} says ${t.level}`);
    }
  }
});

test("error heads of the newest decode queue, the scheduler and the Mooncake store are failures of their files", () => {
  // disaggregation/decode.py (0035ca42) DecodeTransferQueue._commit_transfer_to_req, a line cut before the template's fields:
  // still reported as a line its template could not read, and a failure by its head
  const gate = parseLines([`${PREFIX}Metadata unexpectedly not ready after readiness gate: request a04107ccff5349bab42803eb77df5cd5, bootstrap_room=`]);
  assert.equal(gate.issues.length, 1);
  assert.deepEqual([gate.events[0]!.kind, gate.events[0]!.attrs?.source], [LogKind.error, "disaggregation/decode.py"]);
  // managers/scheduler.py (0003215c) handle_generate_request: f"Invalid request: Disaggregated request received without bootstrap room id. {req.rid=}"
  const room = parseOne(`${TP3}Invalid request: Disaggregated request received without bootstrap room id. req.rid='9f1c2a77d0e04b7c'`);
  assert.equal(room.kind, LogKind.error);
  assert.equal(room.attrs?.level, "error");
  assert.equal(room.attrs?.source, "managers/scheduler.py");
  assert.notEqual(room.attrs?.failureClass, "transport");
  // mem_cache/storage/mooncake_store/mooncake_store.py (00fe477f) MooncakeBaseStore.register_buffer: the older copy's lowercase `failed` is its own row
  const store = parseOne(`${PREFIX}Failed to register buffer, error code: -600`);
  assert.equal(store.kind, LogKind.transportError);
  assert.equal(store.attrs?.engine, "mooncake");
  assert.equal(store.attrs?.source, "mem_cache/storage/mooncake_store/mooncake_store.py");
});

test("Mori's transfer and bootstrap threads fail as transport failures with no engine of their own", () => {
  // disaggregation/mori/conn.py MoriKVManager._start_bootstrap_thread: logger.exception("Bootstrap worker failed"), its traceback cut
  const bootstrap = parseOne(`${PREFIX}Bootstrap worker failed`);
  assert.equal(bootstrap.kind, LogKind.error);
  assert.equal(bootstrap.attrs?.source, "disaggregation/mori/conn.py");
  assert.equal(bootstrap.attrs?.failureClass, "transport");
  // MoriKVManager.notify_decode_status: logger.exception("Failed to sync status %s to decode endpoint %s:%s for room %s", …), its traceback cut
  const sync = parseOne(`${PREFIX}Failed to sync status KVPoll.Success to decode endpoint 10.0.3.17:40127 for room 6555093254675405189`);
  assert.equal(sync.kind, LogKind.error);
  assert.equal(sync.attrs?.failureClass, "transport");
  assert.equal(sync.attrs?.engine, undefined);
  // disaggregation/common/staging_handler.py (008b79d2) DecodeStagingHandler.register_decode_req fails the room
  const staging = parseOne(`${TP3}[STAGING] decode prefix length 8200 is not page-aligned (page_size=64); failing room=6555093254675405189 (staging scatter offsets would be wrong).`);
  assert.equal(staging.kind, LogKind.error);
  assert.equal(staging.attrs?.source, "disaggregation/common/staging_handler.py");
  assert.equal(staging.attrs?.failureClass, "transport");
});

test("warning heads of the new transfer paths and the scheduler are no failures, whatever their words say", () => {
  // disaggregation/mori/conn.py MoriKVManager._send_swa_dsa_state
  const mismatch = parseOne(`${PREFIX}State index length mismatch for swa: src=12 dst=11; truncating to common prefix=11`);
  assert.equal(mismatch.kind, LogKind.message);
  assert.equal(mismatch.attrs?.level, "warning");
  assert.equal(mismatch.attrs?.source, "disaggregation/mori/conn.py");
  // disaggregation/decode_hicache_mixin.py _try_hicache_queue_load_back: "failed" in a warning's words
  const loadBack = parseOne(`${TP3}HiCache load_back failed for rid=9f1c2a77d0e04b7c: device_indices=0, new_indices=0, expected decode_prefix_len=4096 (l1=0, l2=4096, l3=0)`);
  assert.equal(loadBack.kind, LogKind.message);
  assert.equal(loadBack.attrs?.source, "disaggregation/decode_hicache_mixin.py");
  // managers/scheduler.py (0003215c) update_running_batch: a retraction, not an out-of-memory failure
  const retract = parseOne(`${PREFIX}KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_tokens_gained: 24576, #new_token_ratio: 0.7000 -> 0.9100`);
  assert.equal(retract.kind, LogKind.message);
  assert.equal(retract.attrs?.level, "warning");
  assert.equal(retract.attrs?.source, "managers/scheduler.py");
  // mem_cache/storage/mooncake_store/mooncake_store.py (00fe477f) MooncakeStore.__init__: setup() is retried without the parameter
  const setup = parseOne(
    `${TP3}The installed Mooncake version does not support the enable_ssd_offload parameter(s) in setup(). Retrying without enable_ssd_offload. Please upgrade Mooncake to enable SSD offload support.`,
  );
  assert.equal(setup.kind, LogKind.message);
  assert.equal(setup.attrs?.level, "warning");
});

test("utils/common.py's heads: a launcher thread's failure is an error, a long GC pause and a leak report are warnings", () => {
  // utils/common.py launch_dummy_health_check_server: logger.error(f"Dummy health check server failed to start: {e}"), then raise
  const health = parseOne(`${MAIN}Dummy health check server failed to start: [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use`);
  assert.equal(health.kind, LogKind.error);
  assert.equal(health.attrs?.source, "utils/common.py");
  // configure_gc_warning: logger.warn(f"LONG GARBAGE COLLECTION DETECTED | Generation {gen} | Duration: {duration:.4f}s | …")
  const gc = parseOne(`${TP3}LONG GARBAGE COLLECTION DETECTED | Generation 2 | Duration: 1.2034s | # Objects: gen0=512, gen1=88, gen2=2310440 | This may cause latency jitter.`);
  assert.equal(gc.kind, LogKind.message);
  assert.equal(gc.attrs?.level, "warning");
  // managers/scheduler_components/invariant_checker.py _check_req_pool through raise_error_or_warn's logger.warning
  const leak = parseOne(`${PREFIX}req_to_token_pool memory leak detected!available_size=4093, session_held=0, total_size=4096`);
  assert.equal(leak.kind, LogKind.message);
  assert.equal(leak.attrs?.source, "managers/scheduler_components/invariant_checker.py");
});

test("a piecewise CUDA graph's failure is an error of its context manager, its exception's lines and advice its own", () => {
  // compilation/piecewise_context_manager.py enable_piecewise_cuda_graph:
  // logger.error("Piecewise CUDA Graph failed with error: %s\n%s", e, PIECEWISE_CUDA_GRAPH_CAPTURE_FAILED_MSG), then raise
  const advice = [
    "Piecewise CUDA Graph is enabled by default as an experimental feature.",
    "To work around this error, add --disable-piecewise-cuda-graph to your launch command.",
    "Please report this issue at https://github.com/sgl-project/sglang/issues/new/choose",
  ];
  const oneLine = parseLines([
    `${PREFIX}Piecewise CUDA Graph failed with error: 'NoneType' object has no attribute 'shape'`,
    ...advice,
    `${PREFIX}Scheduler hit an exception: Traceback (most recent call last):`,
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2802, in run_scheduler_process',
    "    scheduler.event_loop_overlap()",
    "AttributeError: 'NoneType' object has no attribute 'shape'",
  ]).events;
  assert.deepEqual(oneLine.map((e) => [e.line, e.kind]), [[1, LogKind.error], [5, LogKind.exception]]);
  assert.equal(oneLine[0]!.attrs?.level, "error");
  assert.equal(oneLine[0]!.attrs?.source, "compilation/piecewise_context_manager.py");
  assert.equal(oneLine[0]!.attrs?.error, "Piecewise CUDA Graph failed with error: 'NoneType' object has no attribute 'shape'");
  // An exception whose text runs over lines (torch's CUDA error and its hints): they are the record's too.
  const cuda = parseLines([
    `${PREFIX}Piecewise CUDA Graph failed with error: CUDA error: an illegal memory access was encountered`,
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    ...advice,
  ]).events;
  assert.deepEqual(cuda.map((e) => [e.line, e.kind]), [[1, LogKind.error]]);
  // After the advice's last line, a plain line is a record of its own; so is the ninth line of a message with no advice.
  const after = parseLines([`${PREFIX}Piecewise CUDA Graph failed with error: boom`, ...advice, "a print of the user's"]).events;
  assert.deepEqual(after.map((e) => e.line), [1, 5]);
  const noAdvice = parseLines([`${PREFIX}Piecewise CUDA Graph failed with error: boom`, ...Array.from({ length: 9 }, (_, i) => `line ${i + 2}`)]).events;
  assert.deepEqual(noAdvice.map((e) => e.line), [1, 10]);
  // The same words without SGLang's prefix open no such record.
  const bare = parseLines(["Piecewise CUDA Graph failed with error: boom", advice[0]!]).events;
  assert.equal(bare.length, 2);
});
