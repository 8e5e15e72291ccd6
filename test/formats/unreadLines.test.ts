// Lines no template reads still land with a severity, and a failure among
// them is a failure record (ingest/formats/log/unread.ts). The lines are as
// users pasted them into public issue threads (the working half of
// test/corpus; the held-back half is never used to write tests or templates),
// shortened where the point does not need the whole paste; a few lines that
// the pastes cut (an exception line, the line after a traceback) are written
// by hand in the same shape.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines, parseOne } from "./sglangHarness.js";

test("a glog error line from Mooncake's sources that no row reads is that engine's transport error", () => {
  const ev = parseOne("E0905 14:46:37.882738 15817 master_client.cpp:297] Failed to end put operation: invalid rpc arg");
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.attrs?.engine, "mooncake");
  assert.equal(ev.attrs?.component, "mooncakeStore");
  assert.equal(ev.attrs?.error, "Failed to end put operation: invalid rpc arg");
  assert.equal(ev.attrs?.failureClass, "transport");
  assert.equal(ev.attrs?.level, "error");
});

test("a glog info line is read (level and place) but not interpreted", () => {
  const ev = parseOne("I0616 07:25:02.235610 40412 allocator.cpp:109] initializing_simple_allocator size=1073741824");
  assert.equal(ev.kind, LogKind.message);
  assert.equal(ev.attrs?.level, "info");
  assert.equal(ev.attrs?.source, "allocator.cpp:109");
});

test("vLLM re-logs a traceback line by line under its prefix: one exception record, with the worker's rank", () => {
  const prefix = "(VllmWorker rank=0 pid=4893) ERROR 10-23 10:41:13 [multiproc_executor.py:487]";
  const { events } = parseLines([
    `${prefix} WorkerProc failed to start.`,
    `${prefix} Traceback (most recent call last):`,
    `${prefix}   File "/deepseek/zyq/codes/LMCache/lmcache/integration/vllm/lmcache_connector_v1.py", line 34, in __init__`,
    `${prefix}     self._lmcache_engine = LMCacheConnectorV1Impl(vllm_config, role, self)`,
    `${prefix}                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^`,
    `${prefix} RuntimeError: Failed to initialize the LMCache engine`,
    "(VllmWorker rank=0 pid=4893) INFO 10-23 10:41:14 [multiproc_executor.py:520] Worker exiting",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [7, LogKind.message]]);
  const exc = events[0]!;
  assert.equal(exc.tp, 0);
  assert.equal(exc.attrs?.excType, "RuntimeError");
  assert.equal(exc.attrs?.excMessage, "Failed to initialize the LMCache engine");
  assert.equal(exc.attrs?.level, "error");
  assert.equal(exc.text.split("\n").length, 6, "the record keeps every raw line");
});

test("dynamo re-logs a traceback at DEBUG, indented by the paste: frames without header or exception line are still an exception", () => {
  const p = "    2025-06-06T19:02:34.252Z DEBUG dynamo_run::subprocess:";
  const { events } = parseLines([
    `${p}     raise e`,
    `${p}   File "/opt/dynamo/venv/lib/python3.12/site-packages/vllm/engine/multiprocessing/engine.py", line 586, in run_mp_engine`,
    `${p}     engine = MQLLMEngine.from_vllm_config(`,
    `${p}              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^`,
  ]);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.kind, LogKind.exception);
  assert.equal(events[0]!.attrs?.source, "dynamo_run::subprocess");
  assert.equal(events[0]!.attrs?.excType, undefined);
  assert.match(String(events[0]!.attrs?.what), /header and exception line are not in the log/);
});

test("a bare exception line is an exception; str(KVTransferError) gives its room and reason", () => {
  const port = parseOne("ValueError: port_base at 11434 is not available in 30 seconds. port_base is used by a process already.");
  assert.equal(port.kind, LogKind.exception);
  assert.equal(port.attrs?.excType, "ValueError");
  // A library's class, qualified by its module, whose name ends as PyTorch's compile failures do.
  const dynamo = parseOne("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:");
  assert.deepEqual([dynamo.kind, dynamo.attrs?.excType], [LogKind.exception, "torch._dynamo.exc.BackendCompilerFailed"]);
  // Any class of a module of exceptions.
  const triton = parseOne("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 233472, Hardware limit: 232448.");
  assert.deepEqual([triton.kind, triton.attrs?.excType], [LogKind.exception, "triton.runtime.errors.OutOfResources"]);
  // A C++ exception a pybind11 module registered under its camel-cased C++ name (NIXL's bindings), with its module.
  const nixl = parseOne("nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND");
  assert.deepEqual([nixl.kind, nixl.attrs?.excType], [LogKind.exception, "nixl._bindings.nixlBackendError"]);
  assert.equal(parseOne("nixl._bindings.nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT").attrs?.failureClass, "transport");
  // The base class itself, as CPython prints an exception of it and as a program's `except Exception as e:` handler
  // prints one (`print(f"Exception: {e}")`, triton_distributed's hello_world client): the message may name another
  // library's class, which stays the message.
  const base = parseOne("Exception: nats: ServiceUnavailableError: code=503 err_code=10077 description='stream not found'");
  assert.deepEqual([base.kind, base.attrs?.excType], [LogKind.exception, "Exception"]);
  assert.equal(parseOne("Exception: Connection closed").kind, LogKind.exception);
  // A word that only begins like the class is no exception line.
  assert.notEqual(parseOne("Exceptional: the request took 3 retries").kind, LogKind.exception);
  // Without a module such a name is a field of a record, not a class.
  assert.notEqual(parseOne("lastError: 0").kind, LogKind.exception);
  // A warning's category is no failure.
  assert.notEqual(parseOne("UserWarning: TypedStorage is deprecated.").kind, LogKind.exception);
  const kv = parseOne("KVTransferError(bootstrap_room=6677116944225248479): Could not fetch prefill parallel info from bootstrap_addr: sglang-prefill-svc:30000");
  assert.equal(kv.kind, LogKind.exception);
  assert.equal(kv.room, "6677116944225248479");
  assert.equal(kv.attrs?.reasonKind, "bootstrap");
});

test("a traceback whose exception is of the base class ends at its `Exception: …` line", () => {
  const { events } = parseLines([
    "Traceback (most recent call last):",
    '  File "/workspace/examples/python/hello_world/client/client.py", line 71, in run',
    "    raise Exception(\"no responders available\")",
    "Exception: no responders available",
    "Clients Stopped Exit Code 1",
  ]);
  assert.equal(events[0]!.kind, LogKind.exception);
  assert.equal(events[0]!.attrs?.excType, "Exception");
  assert.equal(events[0]!.attrs?.excMessage, "no responders available");
});

test("an exception header whose traceback the paste cut is still an exception", () => {
  const { events } = parseLines([
    "Exception in ControllerSingle:",
    "Traceback (most recent call last):",
    '  File "/opt/tiger/sglang_src/python/sglang/srt/managers/controller_single.py", line 166, in start_controller_process',
    "    controller.loop_for_forward()",
  ]);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.kind, LogKind.exception);
  assert.match(String(events[0]!.attrs?.what), /exception line is not in the log/);
});

test("LMCache's bracketed ISO prefix: the level is read, an ERROR line is a failure", () => {
  const { events } = parseLines([
    "[2026-08-29 12:45:30,871] LMCache INFO: AffinityThreadPool: affinity_key=1855983328443029146 assigned to worker slot 0 of 1 (thread affinity-pool-0-0); 1 distinct key(s) now bound (affinity_pool.py:108:lmcache.v1.multiprocess.affinity_pool)",
    "[2026-08-29 12:45:30,873] LMCache ERROR: Error in blocking handler (mq.py:579:lmcache.v1.multiprocess.mq)",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [[LogKind.message, "info"], [LogKind.error, "error"]]);
  assert.equal(events[1]!.tsUs, Date.UTC(2026, 7, 29, 12, 45, 30, 873) * 1000);
});

test("an LMCache line without its bracketed time: the level is still read, an ERROR line is a failure", () => {
  // As LMCache/LMCache#2907 quoted it (the selection started at the logger's name); the WARNING line
  // is written by hand in the same shape.
  const { events } = parseLines([
    "LMCache WARNING: Please set the chunk size to a multiple of 256 for better performance",
    "LMCache ERROR: Failed to initialize LMCacheManager components: . System will operate in degraded mode (recompute).",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [[LogKind.message, "warning"], [LogKind.error, "error"]]);
  assert.equal(events[1]!.attrs?.error, "Failed to initialize LMCacheManager components: . System will operate in degraded mode (recompute).");
  // Only the logger's own name opens the form: a sentence that starts with another word stays a line of its own.
  assert.equal(parseOne("LMCacheConnector ERROR: x").kind, LogKind.unparsed);
});

test("TensorRT-LLM's backtrace continues the exception that carries it, each `]` reading `[]` as the thread's text holds it", () => {
  // As ai-dynamo/aiconfigurator#375 pasted it (each `]` reads `[]` in the thread's text), cut to two frames; the
  // third is written by hand, a two-digit frame with its padding squeezed and its signature shortened.
  const lines = [
    "2026-02-13T00:15:52.483521Z ERROR engine.get_llm_engine: Error in engine context: Executor worker returned error",
    "RuntimeError: [TensorRT-LLM[][ERROR[] Assertion failed: maxNumTokens.value() % tokensPerBlock == 0 (../tensorrt_llm/batch_manager/cacheTransBuffer.cpp:206)",
    "1       0x7f8524ec97bf tensorrt_llm::_v1::common::throwRuntimeError(char const*, int, char const*) + 76",
    "2       0x7f84ec42d3c8 /opt/dynamo/venv/lib/python3.12/site-packages/tensorrt_llm/libs/libtensorrt_llm.so(+0x18473c8) [0x7f84ec42d3c8[]",
    "12 0x7f84ed8af610 tensorrt_llm::batch_manager::CacheTransceiver::CacheTransceiver() + 1024",
  ];
  const { events } = parseLines(lines);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.error], [2, LogKind.exception]]);
  assert.equal(events[1]!.attrs?.excType, "RuntimeError");
  assert.equal(events[1]!.text, lines.slice(1).join("\n"));
  // A numbered line that is no frame (no pointer after the number) is not taken in.
  assert.equal(parseLines([lines[0]!, "1       request finished"]).events.length, 2);
});

test("a Rust tracing ERROR line of the router is a failure record naming its target", () => {
  const ev = parseOne(
    "2025-08-31 07:32:08 ERROR sglang_router_rs::routers::http::pd_router: src/routers/http/pd_router.rs:1319: Stream error from decode server http://10.3.238.50:30000: error decoding response body",
  );
  assert.equal(ev.kind, LogKind.error);
  assert.equal(ev.attrs?.source, "sglang_router_rs::routers::http::pd_router");
});

test("a CUDA kernel's failed assert() is a CUDA error", () => {
  const ev = parseOne(
    "/root/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1478: indexSelectSmallIndex: block: [16,0,0], thread: [0,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
  );
  assert.equal(ev.kind, LogKind.error);
  assert.equal(ev.attrs?.failureClass, "cuda-error");
});

test("the watchdog's debug info is one record up to the blank line after it", () => {
  const { events } = parseLines([
    "[2026-01-29 13:12:36 PP1 TP0] Scheduler debug info:",
    "scheduler.cur_batch.batch_size()=1",
    "scheduler.cur_batch.reqs=[Req(rid=628ffa3360394d7681fd7d803ac86954, input_ids=[671, 6102, 4593, 294, 8760, 344], output_ids=[])]",
    "self.max_total_num_tokens=1180096, available_size=1180032, evictable_size=0, protected_size=0",
    "",
    "[2026-01-29 13:12:36 PP2 TP0] Scheduler debug info:",
    "scheduler.cur_batch.batch_size()=1",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.pp]), [[1, LogKind.schedulerWatchdog, 1], [6, LogKind.schedulerWatchdog, 2]]);
  assert.equal(events[0]!.attrs?.report, "debug-info");
  assert.equal(events[0]!.text.split("\n").length, 5);
});

test("a faulthandler dump whose header is lost in interleaved output is still a failure", () => {
  const ev = parseLines([
    "1016\"\"  File Thread 0x, line   File",
    " in /usr/lib/python3.10/threading.pyThread 0x_bootstrap_inner\"00007e9dd3fff640 in \"00007f8437fff640/usr/lib/python3.10/threading.py973\"",
    ", line /usr/lib/python3.10/threading.py  File  (most recent call first):",
  ]).events;
  assert.ok(ev.some((e) => e.kind === LogKind.error && e.attrs?.failureClass === "thread-dump"));
});

test("an SGLang line no template reads is a message; a line in no dialect stays unparsed", () => {
  const { events } = parseLines(["[2025-06-16 07:25:02 DP5 TP5] Connect to Mooncake store successfully.", "Loading safetensors checkpoint shards: 100% Completed | 163/163"]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.message, LogKind.unparsed]);
});

test("docker compose: the service's prefix is stripped and names the host; a second service is another host", () => {
  const { events } = parseLines(
    [
      "sglang-1  | [2025-11-01 16:50:36 TP0] sglang is using nccl==2.27.3",
      "sglang-1  | [2025-11-01 16:50:36 TP1] Setup Custom allreduce failed with CUDART error: peer access is not supported between these two devices.",
      "router-1  | 2025-11-01 16:50:37 ERROR sglang_router_rs::routers::http::pd_router: src/routers/http/pd_router.rs:1319: Stream error from decode server",
    ],
    { wrapper: "compose" },
  );
  assert.deepEqual(
    events.map((e) => [e.host, e.kind, e.tp]),
    [["sglang-1", LogKind.message, 0], ["sglang-1", LogKind.message, 1], ["router-1", LogKind.error, undefined]],
  );
});

test("docker compose's line for a container that stopped: a death of that container unless it was a clean exit or a stop asked for", async () => {
  // compose v2 pkg/compose/printer.go: Status(container, "exited with code %d"), printed without the bar, coloured.
  const lines = [
    "sglang-decode-1  | [2025-11-01 16:50:36 TP0] sglang is using nccl==2.27.3",
    "\x1b[36msglang-decode-1 exited with code 137\x1b[0m",
    "router-1 exited with code 1",
    "sglang-prefill-1 exited with code 143",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines)?.name, "compose");
  const { events, issues } = parseLines(lines, { wrapper: "compose" });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.host, e.kind, e.attrs?.signal]),
    [
      ["sglang-decode-1", LogKind.message, undefined],
      ["sglang-decode-1", LogKind.crash, "SIGKILL"],
      ["router-1", LogKind.crash, undefined],
      // SIGTERM's code: someone stopped it.
      ["sglang-prefill-1", LogKind.unparsed, undefined],
    ],
  );
  assert.equal(events[1]!.attrs?.what, "container sglang-decode-1 exited with code 137");
});

test("a quote mark the paste left before the first line's prefix is debris", () => {
  const ev = parseOne('"I1120 11:09:23.594488 203018 pybind_client.cpp:218] Mounting segment: 13421772800 bytes, 13421772800 of 13421772800  ');
  assert.equal(ev.kind, LogKind.message);
  assert.equal(ev.attrs?.source, "pybind_client.cpp:218");
});

test("the watchdog's py-spy dump is one record up to the next log line, naming where the main thread was", () => {
  const { events } = parseLines([
    "[2026-07-07 07:20:50] Pyspy dump for PID 163685 (py-spy dump --native --pid 163685):",
    "Process 163685: sglang::scheduler_TP0",
    "Python v3.11.14 (/usr/local/python3.11.14/bin/python3.11)",
    "",
    'Thread 163685 (idle): "MainThread"',
    "    recv_multipart (zmq/sugar/socket.py:799)",
    "    recv_requests (sglang/srt/managers/scheduler.py:1021)",
    "",
    'Thread 163702 (idle): "Thread-2 (_watchdog_thread)"',
    "    _watchdog_once (sglang/srt/utils/watchdog.py:125)",
    "[2026-07-07 07:20:51] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=True)",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.attrs?.report]), [[1, LogKind.schedulerWatchdog, "pyspy-dump"], [11, LogKind.schedulerWatchdog, undefined]]);
  assert.equal(events[0]!.attrs?.stuckIn, "recv_multipart (zmq/sugar/socket.py:799)");
  assert.equal(events[0]!.text.split("\n").length, 10);
});

test("a UCX line whose `[host:pid:thread]` part is missing is still UCX's; an error no row reads is a UCX transport error", () => {
  const ev = parseOne("[1760048752.141287] proto_reconfig.c:60   UCX  ERROR cannot find remote protocol for: ucp_context_0 inter-node cfg#2 | get(multi) into cuda/GPU0 from host");
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.tsUs, 1760048752141287);
  assert.equal(ev.attrs?.engine, "ucx");
  assert.equal(ev.attrs?.level, "error");
  assert.equal(ev.attrs?.error, "cannot find remote protocol for: ucp_context_0 inter-node cfg#2 | get(multi) into cuda/GPU0 from host");
  assert.equal(ev.attrs?.failureClass, "transport");
});

test("a UCX line with its metadata alone, its time and process fields cut, is still UCX's and its error a UCX transport error", () => {
  // smg-project/smg#2503: the paste keeps UCX's `file:line  UCX  LEVEL` and no `[time] [host:pid:thread]`.
  const ev = parseOne("ib_mlx5_dv.c:433  UCX  ERROR   mlx5dv_devx_obj_modify(opcode=0x503) failed, syndrome 0x5d668c: Remote I/O error");
  assert.equal(ev.kind, LogKind.transportError);
  assert.equal(ev.tsInferred, true, "no time of its own");
  assert.equal(ev.attrs?.engine, "ucx");
  assert.equal(ev.attrs?.level, "error");
  assert.equal(ev.attrs?.failureClass, "transport");
  // A file and line before other words is not UCX's.
  assert.equal(parseOne("scheduler.cc:120 started the loop").kind, LogKind.unparsed);
});

test("urllib3's retry failure broken over lines of its own continues the error that logged it", () => {
  // ai-dynamo/dynamo#5309: SGLang's bootstrap error as the PR quoted it, the message broken after each `: ` part.
  const { events } = parseLines([
    "ERROR conn._get_prefill_parallel_info_from_server: Error fetching prefill parallel info from bootstrap: ",
    "HTTPConnectionPool(host='10.52.49.143', port=32963): Max retries exceeded with url: /route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1 ",
    `(Caused by NewConnectionError("HTTPConnection(host='10.52.49.143', port=32963): Failed to establish a new connection: [Errno 111] Connection refused"))`,
    "",
    "ERROR decode._update_handshake_waiters: Decode handshake failed ... with exception NIXL KVReceiver Exception",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.text.split("\n").length]), [[1, 4], [5, 1]]);
  assert.equal(events[0]!.attrs?.level, "error");
});

test("multiprocessing's `Process Process-2:` opens a child's death, whether or not the paste kept its traceback", () => {
  const alone = parseLines(["DetokenizerManager hit an exception:", "  ...", "  OSError: Unable to load vocabulary from file.", "", "Process Process-2:"]).events;
  assert.deepEqual(alone.map((e) => e.kind), [LogKind.error, LogKind.exception]);
  assert.equal(alone[1]!.attrs?.process, "Process-2");
  assert.equal(alone[1]!.attrs?.fatal, true);
  // The traceback below the header, written by hand in the shape multiprocessing prints it.
  const whole = parseLines([
    "Process Process-2:",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/multiprocessing/process.py", line 314, in _bootstrap',
    "    self.run()",
    "UnboundLocalError: local variable 'manager' referenced before assignment",
  ]).events;
  assert.equal(whole.length, 1);
  assert.equal(whole[0]!.attrs?.excType, "UnboundLocalError");
  assert.equal(parseOne("Process 309: sglang::scheduler_TP6").kind, LogKind.stackDump, "py-spy's process line is no death: it opens the dump's record");
});

test("SGLang v0.1's `Prefill out of memory. This should nerver happen.` is a fatal failure; its radix-tree dump stays with it", () => {
  const { events } = parseLines(["Prefill out of memory. This should nerver happen.", " 3 (151644, 8948, 198) r=1", "   1 (2610,) r=1", "#tokens: 7"]);
  assert.equal(events[0]!.kind, LogKind.error);
  assert.equal(events[0]!.attrs?.fatal, true);
  assert.equal(events[0]!.text.split("\n").length, 3);
  assert.notEqual(parseOne("[2025-01-06 02:58:44 TP0] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.0980 -> 0.9446").kind, LogKind.error, "a retraction is no failure");
});

test("UCX's backtrace of a fatal signal is one record: under its `Caught signal` line, and on its own when the paste cut that line", () => {
  // The frames of a pasted NIXL segfault, the paste starting at frame 4 (backtrace_symbols' text, UCX's `"%2d  %s"`).
  const cut = parseLines([
    " 4  /home/venv/lib/python3.12/site-packages/nixl/../.nixl.mesonpy.libs/./../nixl.libs/libucp-595be55f.so.0.0.0(+0x9140f) [0x7fc44301140f]",
    " 5  /home/venv/lib/python3.12/site-packages/nixl/../.nixl.mesonpy.libs/./../nixl.libs/libuct-4eacacdc.so.0.0.0(uct_tcp_ep_am_bcopy+0x8d) [0x7fc4604d557d]",
    " 9  /home/venv/lib/python3.12/site-packages/nixl/../.nixl.mesonpy.libs/./../nixl.libs/libucs-36b9ef61.so.0.0.0(+0x2bab0) [0x7fc4608a3ab0]",
    "10  /home/venv/lib/python3.12/site-packages/nixl/../.nixl.mesonpy.libs/./../nixl.libs/libucp-595be55f.so.0.0.0(ucp_worker_progress+0x7a) [0x7fc442fe8b7a]",
    "11  /home/venv/lib/python3.12/site-packages/nixl/../.nixl.mesonpy.libs/libnixl.so(_ZN13nixlUcxEngine12progressFuncEv+0x4c) [0x7fc5026bf7bc]",
    "12  /lib/x86_64-linux-gnu/libstdc++.so.6(+0xecdb4) [0x7fc5c2c6edb4]",
  ]).events;
  assert.equal(cut.length, 1);
  assert.equal(cut[0]!.kind, LogKind.exception);
  assert.match(String(cut[0]!.attrs?.what), /UCX backtrace/);
  assert.equal(cut[0]!.text.split("\n").length, 6);
  // Whole, built with BFD (`"%2d 0x%016lx %s()  %s:%u"`), as a public NIXL example printed it.
  const whole = parseLines([
    "[h000:2722682:0:2722812] Caught signal 11 (Segmentation fault: invalid permissions for mapped object at address 0x147980000000)",
    "==== backtrace (tid:2722812) ====",
    " 0 0x000000000003ebf0 __GI___sigaction()  :0",
    " 9 0x000000000002ae17 uct_tcp_iface_progress()  ???:0",
    "10 0x000000000006187a ucp_worker_progress()  ???:0",
    "11 0x000000000003f131 nixlUcxSharedThread::run()  :0",
    "=================================",
  ]).events;
  assert.equal(whole.length, 1);
  assert.equal(whole[0]!.text.split("\n").length, 7, "the backtrace stays with its signal line");
  // Numbered lines of other shapes are not frames.
  assert.notEqual(parseOne(" 3 (151644, 8948, 198) r=1").kind, LogKind.exception);
  // A row of `=` closes a backtrace; alone it is the rule a benchmark's summary or a banner draws, and no failure.
  const benchmark = parseLines([
    "============ Serving Benchmark Result ============",
    "Backend:                                 sglang",
    "Benchmark duration (s):                  51.72",
    "==================================================",
  ]).events;
  assert.deepEqual(benchmark.filter((e) => e.kind === LogKind.exception || e.kind === LogKind.error), []);
  assert.notEqual(parseOne("=================================================================").kind, LogKind.exception);
});

test("a Rust panic (Dynamo's frontend) is a thread's death: the message below its header and the hook's note stay with it", () => {
  const { events } = parseLines([
    "thread 'tokio-runtime-worker' panicked at /workspace/lib/llm/src/http/service/service_v2.rs:116:33:",
    "could not bind to address: 0.0.0.0:8000",
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    'Error: task 20 panicked with message "could not bind to address: 0.0.0.0:8000"',
    "2025-08-05T10:33:42.382Z  INFO watcher._stop: dynamo_SGLangWorker stopped",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.exception], [4, LogKind.error], [5, LogKind.message]]);
  const panic = events[0]!;
  assert.equal(panic.attrs?.thread, "tokio-runtime-worker");
  assert.equal(panic.attrs?.excType, "panic");
  assert.equal(panic.attrs?.excMessage, "could not bind to address: 0.0.0.0:8000");
  assert.equal(panic.attrs?.source, "/workspace/lib/llm/src/http/service/service_v2.rs:116:33");
  // Before Rust 1.73 the hook printed the message on the header line (written by hand in that shape).
  const old = parseOne("thread 'main' panicked at 'could not bind to address: 0.0.0.0:8000', lib/llm/src/http/service/service_v2.rs:116:33");
  assert.equal(old.kind, LogKind.exception);
  assert.equal(old.attrs?.excMessage, "could not bind to address: 0.0.0.0:8000");
});

test("colour codes around Ray's worker prefix, their escape character lost in the paste or not, are debris", () => {
  const pasted = [
    " [36m(RayWorkerVllm pid=5085) [0m [E ProcessGroupNCCL.cpp:475] [Rank 4] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=20518, OpType=ALLREDUCE, NumelIn=106496, NumelOut=106496, Timeout(ms)=1800000) ran for 1800270 milliseconds before timing out.",
    " [36m(RayWorkerVllm pid=5310) [0m [W CUDAGraph.cpp:145] Warning: Waiting for pending NCCL work to finish before starting graph capture. (function operator()) [32m [repeated 6x across cluster] [0m",
  ];
  const { events } = parseLines(pasted);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level, e.attrs?.source]), [
    [LogKind.watchdog, undefined, undefined],
    [LogKind.message, "warning", "CUDAGraph.cpp:145"],
  ]);
  assert.equal(events[1]!.text, pasted[1], "the record keeps the raw line");
  const noSpace = parseOne(pasted[1]!.trimStart());
  assert.deepEqual([noSpace.kind, noSpace.attrs?.level], [LogKind.message, "warning"], "the escape character lost without a space in its place");
  const escaped = parseOne(pasted[1]!.replace(/ \[(\d+)m/g, "\x1b[$1m"));
  assert.equal(escaped.kind, LogKind.message);
  assert.equal(escaped.attrs?.level, "warning");
  assert.equal(parseOne("    [0m is not a colour code in an indented line that does not open with one").kind, LogKind.unparsed);
});

test("colour codes around a process tag that lost their whole escape sequence (`36m(…)0m`) are debris", () => {
  // gpustack/gpustack#4194: vLLM-Ascend under Ray, each `\x1b[` of the tag's colour codes gone from the paste.
  const pasted = [
    "36m(EngineCore_DP0 pid=820)0m ERROR 01-08 09:17:07 [core.py:708] EngineCore failed to start.",
    "36m(EngineCore_DP0 pid=820)0m ERROR 01-08 09:17:07 [core.py:708] Traceback (most recent call last):",
    '36m(EngineCore_DP0 pid=820)0m ERROR 01-08 09:17:07 [core.py:708]   File "/usr/local/python3.11/lib/python3.11/site-packages/vllm/v1/engine/core.py", line 699, in run_engine_core',
  ];
  const { events } = parseLines(pasted);
  // vLLM's error line and the traceback it logged are one record, as without the debris.
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level, e.attrs?.source]), [[LogKind.exception, "error", "core.py:708"]]);
  const clean = parseLines(pasted.map((l) => l.replace("36m(EngineCore_DP0 pid=820)0m", "(EngineCore_DP0 pid=820)"))).events;
  assert.deepEqual(events.map((e) => [e.kind, e.attrs]), clean.map((e) => [e.kind, e.attrs]));
  assert.equal(events[0]!.text.split("\n")[0], pasted[0], "the record keeps the raw line");
  assert.equal(parseOne("36m is not a colour code where no process tag follows").kind, LogKind.unparsed);
});

test("a glog line whose place a rich-text paste mangled (underscores and bracket lost) is still glog, and its error line a failure", () => {
  // vllm-project/vllm-ascend#13966: `ascend_direct_transport.cpp:460]` as the paste left it.
  const info = parseOne("I0805 09:42:09.763092 80495 ascend direct transport.cpp:444 AscendDirectTransport register mem addr:0x12da73a00000, length:183369728, location:, mem type:0");
  assert.equal(info.kind, LogKind.message);
  assert.equal(info.attrs?.level, "info");
  assert.equal(info.attrs?.source, "ascend direct transport.cpp:444");
  const error = parseOne("E0805 09:42:09.763501 80495 ascend direct transport.cpp:460 Register mem ret:103900.");
  assert.equal(error.kind, LogKind.error, "an error-level glog line no row reads is a failure record");
  assert.equal(error.attrs?.level, "error");
  // A line that only looks like a glog header, its place no C/C++ file, stays as it was.
  assert.equal(parseOne("E0805 09:42:09.763501 80495 some words here and more").kind, LogKind.unparsed);
});

test("a traceback whose frames a rich-text paste unindented and gave typographic quotes is one record", () => {
  // vllm-project/vllm-ascend#13966, under a vLLM worker's ERROR line.
  const { events } = parseLines([
    "(Worker_D2_TP0_EP8 pid=80495) ERROR 08-05 09:42:09 [multiproc_executor.py:962] WorkerProc hit an exception.",
    "Traceback (most recent call last):",
    "File \u201c/vllm-workspace/vllm/vllm/v1/executor/multiproc_executor.py\u201d, line 957, in worker_busy_loop",
    "output = func(*args, **kwargs)",
    "File \u201c/vllm-workspace/vllm/vllm/v1/worker/worker_base.py\u201d, line 311, in initialize_from_config",
    "self.worker.initialize_from_config(kv_cache_config) # type: ignore",
  ]);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.kind, LogKind.exception);
});

test("the lines PyTorch appends to a CUDA error's message continue the record that logged it", () => {
  // sgl-project/sglang#22987 (a c10 watchdog's CUDA illegal memory access), as pasted.
  const { events } = parseLines([
    "[rank3]:[E416 13:29:57.332110411 ProcessGroupNCCL.cpp:2057] [PG ID 2 PG GUID 3 Rank 3] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered",
    "Search for `cudaErrorIllegalAddress' in [https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html](https://www.google.com/url?sa=D&q=https%3A%2F%2Fdocs.nvidia.com%2Fcuda%2Fcuda-runtime-api%2Fgroup__CUDART__TYPES.html) for more information.",
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "",
  ]);
  assert.equal(events.length, 1);
  assert.equal(events[0]!.kind, LogKind.error);
  assert.equal(events[0]!.text.split("\n").length, 6);
  // With nothing above it to continue, such a line is the CUDA error whose error line the paste cut (./cutRecords.test.ts).
  assert.equal(parseLines(["For debugging consider passing CUDA_LAUNCH_BLOCKING=1"]).events[0]!.attrs?.failureClass, "cuda-error");
});

test("TensorRT-LLM's C++ logger: `[TensorRT-LLM][LEVEL] ` gives the level; an error no row reads is a failure, its info and warnings are not", () => {
  // ai-dynamo/dynamo#1572 (TensorRT-LLM's cache transceiver under Dynamo), as pasted.
  const ev = parseOne("[TensorRT-LLM][ERROR] Exception in DataRequester request(): Message truncated");
  assert.equal(ev.kind, LogKind.error);
  assert.equal(ev.attrs?.level, "error");
  assert.equal(ev.attrs?.error, "Exception in DataRequester request(): Message truncated");
  // The forms `Logger::getPrefix` prints, with and without the rank (written in the same shape).
  const info = parseOne("[TensorRT-LLM][INFO] Set logger level by INFO");
  assert.equal(info.kind, LogKind.message);
  assert.equal(info.attrs?.level, "info");
  const ranked = parseOne("[TensorRT-LLM][WARNING][3] Fix optionalParams : KV cache reuse disabled because model was not built with paged context FMHA support");
  assert.equal(ranked.kind, LogKind.message);
  assert.equal(ranked.attrs?.level, "warning");
  assert.equal(ranked.attrs?.globalRank, 3);
});

test("TensorRT-LLM's Python logger: `[TRT-LLM] [RANK n] [E] ` gives the level, the rank and, under its handler, the time", () => {
  // Written in the shapes tensorrt_llm/logger.py's Logger.log joins, under its handler's `[%m/%d/%Y-%H:%M:%S] `.
  const timed = parseOne("[06/11/2026-14:03:07] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: Executor worker returned error", { tzOffsetMinutes: 0 });
  assert.equal(timed.kind, LogKind.error);
  assert.equal(timed.attrs?.level, "error");
  assert.equal(timed.attrs?.globalRank, 1);
  assert.equal(timed.tsUs, Date.UTC(2026, 5, 11, 14, 3, 7) * 1000);
  assert.equal(timed.attrs?.error, "Failed to initialize executor on rank 1: Executor worker returned error");
  // The oldest form (no rank), the newest (severity first, then the module and the rank), and an info line.
  assert.equal(parseOne("[TRT-LLM] [E] Executor worker returned error").kind, LogKind.error);
  const newest = parseOne("[TRT-LLM] [F] [executor] [RANK 0] Executor worker died");
  assert.deepEqual([newest.kind, newest.attrs?.level, newest.attrs?.globalRank], [LogKind.error, "fatal", 0]);
  const info = parseOne("[TRT-LLM] [RANK 0] [I] Starting TensorRT-LLM init.");
  assert.deepEqual([info.kind, info.attrs?.level], [LogKind.message, "info"]);
});

test("Mooncake's TCP transport: `TcpTransport: ASIO exception: …` is a transport error, under glog's prefix or pasted without it", () => {
  // kvcache-ai/Mooncake#180 (pasted without the prefix), and the same message under glog's prefix (written by hand in glog's shape).
  for (const line of ["TcpTransport: ASIO exception: connect: Connection refused", "E0611 14:03:07.554102 88213 tcp_transport.cpp:812] TcpTransport: ASIO exception: connect: Connection refused"]) {
    const ev = parseOne(line);
    assert.equal(ev.kind, LogKind.transportError, line);
    assert.equal(ev.attrs?.engine, "mooncake");
    assert.equal(ev.attrs?.errorKind, "tcp_transfer");
    assert.equal(ev.attrs?.error, "connect: Connection refused");
  }
});

test("a Rust error's cause chain (anyhow's `{:?}`: a blank line, `Caused by:`, the causes indented) stays with the error above it", () => {
  // ai-dynamo/dynamo#1188, as pasted.
  const { events } = parseLines([
    'ERROR dynamo_runtime::worker: Application shutdown with error: Failed to connect to etcd server with config ClientOptions { etcd_url: ["http://localhost:2379"], etcd_connect_options: None, attach_lease: true }',
    "",
    "Caused by:",
    "    0: creating primary lease",
    '    1: grpc request error: status: Unavailable, message: "tcp connect error: Connection refused (os error 111)", details: [], metadata: MetadataMap { headers: {} }',
    'Error: Failed to connect to etcd server with config ClientOptions { etcd_url: ["http://localhost:2379"], etcd_connect_options: None, attach_lease: true }',
    "",
    "Caused by:",
    "    0: creating primary lease",
    '    1: grpc request error: status: Unavailable, message: "tcp connect error: Connection refused (os error 111)", details: [], metadata: MetadataMap { headers: {} }',
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.error], [6, LogKind.error]]);
  assert.equal(events[0]!.text.split("\n").length, 5);
});

test("a C++ terminate message whose quote, type or what() interleaving put on lines of their own stays one record", () => {
  // sgl-project/sglang#6763 (decode ranks aborting at once on a Gloo enforce failure), as pasted.
  const { events } = parseLines([
    "terminate called after throwing an instance of 'terminate called after throwing an instance of 'terminate called after throwing an instance of 'gloo::EnforceNotMetgloo::EnforceNotMetgloo::EnforceNotMet'",
    "'",
    "'",
    "  what():    what():  [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= op.nbytes. 128 vs 8",
    "[enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:446] op.preamble.length <= op.nbytes. 128 vs 8",
    "terminate called after throwing an instance of '",
    "gloo::EnforceNotMet'",
    "Fatal Python error: Aborted",
  ]);
  assert.deepEqual(events.map((e) => e.kind), [LogKind.crash, LogKind.error, LogKind.crash]);
  assert.equal(events[0]!.text.split("\n").length, 5);
  assert.equal(events[1]!.text.split("\n").length, 2);
  // Below any other record, a lone quote is no part of it.
  assert.equal(parseLines(["[2026-08-20 10:31:00] Load weight end.", "'"]).events.length, 2);
});

test("a level a logger coloured (colorlog, loguru, tracing's ANSI output) reads as it does uncoloured; the raw line is kept", () => {
  const lines = [
    "2025-11-11 21:44:05 \x1b[31mERROR\x1b[0m scheduler: KV transfer failed for room 123",
    "2025-11-11 21:44:05,123 - sglang - \x1b[1;31mERROR\x1b[0m - KV transfer failed",
    "[2025-11-11 21:44:05] \x1b[31mERROR\x1b[0m scheduler: KV transfer failed for room 123",
    "2025-11-11T12:45:20.370003Z \x1b[31mERROR\x1b[0m \x1b[2mdynamo_runtime::pipeline\x1b[0m\x1b[2m:\x1b[0m transfer failed",
  ];
  const reading = (ls: string[]) => parseLines(ls).events.map((e) => [e.kind, e.tsUs, e.attrs?.level, e.attrs?.source]);
  const coloured = reading(lines);
  assert.deepEqual(coloured, reading(lines.map((l) => l.replace(/\x1b\[[\d;]*m/g, ""))));
  assert.deepEqual(coloured.map((r) => r[0]), [LogKind.error, LogKind.error, LogKind.error, LogKind.error]);
  assert.equal(parseLines(lines).events[0]!.text, lines[0]);
  // Without its escape character, `[0m` inside a line may be text: it stays.
  assert.match(parseOne("2025-11-11 21:44:06 \x1b[32mINFO\x1b[0m scheduler: [0m is written here as text").text, /\[0m is written here/);
});

test("a CUDA or HIP error code's name is a failure on a line of no level; a qualified `Exception` class is an exception", () => {
  // The names as cudaGetErrorName, hipGetErrorName and cuGetErrorName give them, in the `{name}: {string}` shape
  // programs print (nccl-tests' and nvbandwidth's checks), and mpi4py's exception as CPython prints its class.
  for (const line of [
    "cudaErrorNoDevice: no CUDA-capable device is detected",
    "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "Triton Error [CUDA]: CUDA_ERROR_ILLEGAL_ADDRESS",
  ]) {
    const ev = parseOne(line);
    assert.equal(ev.kind, LogKind.error, line);
  }
  // A type in a quoted source line, and the name of success, are not.
  assert.equal(parseOne("static_assert(std::is_same<cudaError_t, int>::value)").kind, LogKind.unparsed);
  assert.equal(parseOne("cuda status after init: cudaSuccess").kind, LogKind.unparsed);
  const mpi = parseOne("mpi4py.MPI.Exception: MPI_ERR_OTHER: known error not in list");
  assert.deepEqual([mpi.kind, mpi.attrs?.excType, mpi.attrs?.excMessage], [LogKind.exception, "mpi4py.MPI.Exception", "MPI_ERR_OTHER: known error not in list"]);
});

test("a failed absl::Status printed whole (XLA's, PJRT's, gRPC's) is a failure on a line of no level; OK, CANCELLED and a lookalike are not", () => {
  // `{CODE}: {message}` as abseil's StatusRep::ToString gives it (StatusCodeToString, ": ", message): the first line as a
  // user pasted it from a TPU server's start (the working half of batch 40), the others written by hand in that shape.
  for (const line of [
    "RESOURCE_EXHAUSTED: Error loading program 'jit__multi_slice': Attempting to reserve 6.14G at the bottom of memory. That was not possible.",
    "INTERNAL: Failed to execute XLA Runtime executable: run time error: custom call 'xla.gpu.all_reduce' failed.",
    "UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.7:8476: Failed to connect to remote host: Connection refused",
  ]) {
    const ev = parseOne(line);
    assert.equal(ev.kind, LogKind.error, line);
    assert.equal(ev.attrs?.error, line);
  }
  assert.equal(parseOne("DEADLINE_EXCEEDED: Deadline Exceeded").attrs?.failureClass, "timeout");
  // The name of success, a cancellation the caller asked for, another word in capitals, a code without its `: `.
  for (const line of ["OK: ", "CANCELLED: Cancelled", "INTERNAL_ERROR: see above", "NOT_FOUND"]) {
    assert.notEqual(parseOne(line).kind, LogKind.error, line);
  }
  // Behind a level that says information, the same words stay information.
  const info = parseOne("2025-07-09 15:56:28.133567: I external/xla/xla/pjrt/pjrt_client.cc:90] NOT_FOUND: no cached executable, compiling", { tzOffsetMinutes: 0 });
  assert.deepEqual([info.kind, info.attrs?.level], [LogKind.message, "info"]);
});

test("a child's failure as its waiter reports it is a failure: CalledProcessError's text, kubectl exec's exit code, an IDE's run console", () => {
  // The texts as CPython's CalledProcessError.__str__, client-go's remotecommand and a JetBrains run console print them.
  for (const line of [
    "Command '['/usr/bin/gcc', '-O2', '-c', 'csrc/allreduce.cu']' returned non-zero exit status 1.",
    "Command '['python3', '-m', 'sglang.launch_server']' died with <Signals.SIGKILL: 9>.",
    "command terminated with exit code 137",
    "Process finished with exit code 134 (interrupted by signal 6: SIGABRT)",
  ]) {
    assert.equal(parseOne(line).kind, LogKind.error, line);
  }
  // A success is not.
  assert.equal(parseOne("Process finished with exit code 0").kind, LogKind.unparsed);
});

test("TensorFlow's and XLA's log sink: the time, the severity letter and the place; an error no row reads is a failure, info is not", () => {
  // tsl/platform/default/logging.cc's `%s.%06d: %c%s %s:%d] %s`, as JAX and TensorFlow print it (the fatal line written by hand).
  const info = parseOne("2025-07-09 15:56:28.133567: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU instructions.", { tzOffsetMinutes: 0 });
  assert.deepEqual([info.kind, info.attrs?.level, info.attrs?.source, info.tsUs], [LogKind.message, "info", "tensorflow/core/platform/cpu_feature_guard.cc:182", Date.UTC(2025, 6, 9, 15, 56, 28) * 1000 + 133567]);
  const fatal = parseOne("2025-07-09 15:56:29.004112: F external/xla/xla/pjrt/pjrt_stream_executor_client.cc:1032] Check failed: device_buffer != nullptr");
  assert.deepEqual([fatal.kind, fatal.attrs?.level, fatal.attrs?.fatal, fatal.attrs?.failureClass], [LogKind.error, "fatal", true, "assertion"]);
  // With the thread id TF_CPP_LOG_THREAD_ID adds.
  assert.equal(parseOne("2025-07-09 15:56:29.004112: E    4242 tensorflow/core/common_runtime/gpu/gpu_device.cc:2020] Could not allocate GPU device").kind, LogKind.error);
});

test("an exception CPython reports as ignored (a finalizer's, an atexit callback's, at shutdown) is a warning naming it, not a failure", () => {
  // The default unraisable hook's report (Python/errors.c), after a server that shut down cleanly.
  const { events } = parseLines([
    "[2026-06-11 14:10:02] INFO:     Finished server process [41301]",
    "Exception ignored in: <function Pool.__del__ at 0x7f0a8c1d2e80>",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/multiprocessing/pool.py", line 268, in __del__',
    "ImportError: sys.meta_path is None, Python is likely shutting down",
    "Exception ignored in atexit callback: <function _exit_function at 0x7f0a8c1d2f20>",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/multiprocessing/util.py", line 357, in _exit_function',
    "KeyboardInterrupt: ",
  ]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.level, e.attrs?.ignoredException]),
    [
      [1, LogKind.message, undefined, undefined],
      [2, LogKind.message, "warning", "ImportError"],
      [6, LogKind.message, "warning", "KeyboardInterrupt"],
    ],
  );
  assert.equal(events[1]!.attrs?.excMessage, "sys.meta_path is None, Python is likely shutting down");
  // An exception that was raised, not ignored, stays a failure.
  assert.equal(parseLines(["Traceback (most recent call last):", '  File "x.py", line 1, in <module>', "ImportError: no module"]).events[0]!.kind, LogKind.exception);
});
