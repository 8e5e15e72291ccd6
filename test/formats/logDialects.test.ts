// The shared log parser on lines as real deployments write them: container
// wrappers (CRI with partial lines, docker json-file, kubectl --timestamps,
// journald), the dialects that interleave with SGLang's own lines (glog/absl,
// NCCL, Python logging, faulthandler dumps, torch C++ backtraces), pasted
// text, and undated records keeping their place. Lines are written by hand
// in the shapes these runtimes and libraries print.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import type { DatingHints } from "../../ingest/formats/log/dating.js";
import { detectFormat } from "../../ingest/formats/index.js";
import { parseLines, us } from "./sglangHarness.js";

const ROOM = "8972542885242963296";
const RID = "9f2c4c0e1b2a4f7d8e6a1c3b5d7f9e0a";
const FAILED =
  `Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} ` +
  `with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.WaitingForInput`;
const BATCH =
  "Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, " +
  "#transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0";

function hints(over: Partial<DatingHints> = {}): DatingHints {
  return {
    hasDatedLines: true,
    anchorUs: us("2026-06-11T14:10:00Z"),
    anchorOrigin: "the file's modification time",
    yearNearUs: us("2026-06-11T14:00:00Z"),
    yearOrigin: "host d0's dated lines in other files",
    ...over,
  };
}

test("CRI: the runtime's prefix is stripped, partial lines are joined, the raw lines are kept", () => {
  const lines = [
    `2026-06-11T14:03:07.554102345Z stderr F [2026-06-11 14:03:07 DP0 TP3] ${FAILED}`,
    `2026-06-11T14:03:08.100000001Z stderr P [2026-06-11 14:03:08 DP0 TP3] ${BATCH.slice(0, 60)}`,
    `2026-06-11T14:03:08.100000002Z stderr F ${BATCH.slice(60)}`,
    "2026-06-11T14:03:09.000000000Z stdout F Loading safetensors checkpoint shards: 100% Completed | 163/163",
  ];
  const { events, issues } = parseLines(lines, { wrapper: "cri", dating: hints() });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.tsUs, e.tsInferred === true]),
    [
      // SGLang's prefix states whole seconds; the runtime's stamp inside that second gives the microseconds.
      [1, LogKind.transferFailed, us("2026-06-11T14:03:07.554102Z"), false],
      [2, LogKind.decodeBatch, us("2026-06-11T14:03:08.1Z"), false],
      // A line with no time of its own takes the runtime's: a real time, not an inferred one.
      [4, LogKind.unparsed, us("2026-06-11T14:03:09Z"), false],
    ],
  );
  assert.equal(events[0]!.room, ROOM);
  assert.equal(events[0]!.tp, 3);
  assert.equal(events[0]!.text, lines[0]);
  assert.equal(events[1]!.attrs?.["#transfer-req"], 58);
  assert.equal(events[1]!.text, `${lines[1]}\n${lines[2]}`);
});

test("docker json-file: the log field is read, split entries joined, a broken JSON line kept as text and named by line", () => {
  const entry = (log: string, time: string) => JSON.stringify({ log, stream: "stderr", time });
  const lines = [
    entry(`[2026-06-11 14:03:07 TP3] ${FAILED}\n`, "2026-06-11T14:03:07.554102345Z"),
    entry(`[2026-06-11 14:03:08 TP3] ${BATCH.slice(0, 40)}`, "2026-06-11T14:03:08.1Z"),
    entry(`${BATCH.slice(40)}\n`, "2026-06-11T14:03:08.2Z"),
    '{"log":"[2026-06-11 14:03:09 TP3] cut off by a full disk',
    entry("Exception in thread Thread-3 (bootstrap_thread):\n", "2026-06-11T14:03:10Z"),
  ];
  const { events, issues } = parseLines(lines, { wrapper: "docker-json", dating: hints() });
  assert.deepEqual(
    events.map((e) => [e.line, e.kind]),
    [
      [1, LogKind.transferFailed],
      [2, LogKind.decodeBatch],
      [4, LogKind.unparsed],
      [5, LogKind.exception],
    ],
  );
  assert.equal(events[2]!.text, lines[3]);
  assert.equal(issues.length, 1);
  assert.equal(issues[0]!.line, 4);
  assert.match(issues[0]!.message, /broken docker json-file entry .*kept as it stands/);
});

test("kubectl logs --timestamps and journald short-iso: stripped, journald's host named", () => {
  const kubectl = parseLines([`2026-06-11T14:03:07.554102345Z [2026-06-11 14:03:07 TP3] ${FAILED}`], { wrapper: "kubectl" });
  assert.equal(kubectl.events[0]!.kind, LogKind.transferFailed);
  const journald = parseLines([`2026-06-11T14:03:07+0000 gpu-node-3 python3[48211]: [2026-06-11 14:03:07 TP3] ${FAILED}`], {
    wrapper: "journald",
  });
  assert.deepEqual([journald.events[0]!.kind, journald.events[0]!.host], [LogKind.transferFailed, "gpu-node-3"]);
});

test("a wrapped file whose prefix times are a zone away from the runtime's UTC stamps is read in that zone", () => {
  // The servers logged in UTC+08:00; the container runtime stamps UTC.
  const { events } = parseLines(
    [
      `2026-06-11T06:03:07.554Z stderr F [2026-06-11 14:03:07 TP3] ${FAILED}`,
      `2026-06-11T06:03:08.001Z stderr F [2026-06-11 14:03:08 TP3] ${BATCH}`,
    ],
    { wrapper: "cri" },
  );
  assert.deepEqual(
    events.map((e) => e.tsUs),
    [us("2026-06-11T06:03:07.554Z"), us("2026-06-11T06:03:08.001Z")],
  );
});

test("a prefix of whole seconds takes the runtime's microseconds only inside its own second", () => {
  const { events } = parseLines(
    [
      // The stamp inside the prefix's second: the line was written then.
      `2026-06-11T14:03:07.998001Z stderr F [2026-06-11 14:03:07 TP3] ${BATCH}`,
      // The runtime stamped the line in the next second: the prefix's own second stands.
      `2026-06-11T14:03:09.000200Z stderr F [2026-06-11 14:03:08 TP3] ${BATCH}`,
      // SGLANG_LOG_MS: the prefix states its milliseconds, and they stand.
      `2026-06-11T14:03:09.512345Z stderr F [2026-06-11 14:03:09.511 TP3] ${BATCH}`,
    ],
    { wrapper: "cri" },
  );
  assert.deepEqual(
    events.map((e) => e.tsUs),
    [us("2026-06-11T14:03:07.998001Z"), us("2026-06-11T14:03:08Z"), us("2026-06-11T14:03:09.511Z")],
  );
});

test("wrappers are detected from the head, and the file's format from the lines inside them", () => {
  const cri = `2026-06-11T14:03:07.554102345Z stderr F [2026-06-11 14:03:07 TP3] ${BATCH}\n`.repeat(3);
  assert.equal(detectFormat(cri).name, "sglang-log");
  const glog = "2026-06-11T14:03:07.554102345Z stderr F E0611 14:03:07.554102 88213 transfer_engine.cpp:120] handshake failed\n".repeat(3);
  assert.equal(detectFormat(glog).name, "glog");
  assert.equal(detectFormat("restarted the decode pods at 10:20\n").name, "text");
});

test("glog / absl lines of the transfer engines: dated with the year the hints give, the file's rank kept", () => {
  const lines = [
    "E0611 14:03:07.554102 88213 worker_pool.cpp:245] Worker: Process failed for slice (opcode: 1, source_addr: 0x7f3a00000000, length: 65536, dest_addr: 0x7f2000000000, local_nic: mlx5_0, peer_nic: 10.0.3.21:16001@mlx5_0, dest_rkey: 2148, retry_cnt: 0): transport retry counter exceeded",
    "W0611 14:03:08.001000 88213 transfer_engine.cpp:412] rpc handshake timed out",
  ];
  const { events, issues } = parseLines(lines, { dating: hints(), rank: { tp: 3 } });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.tsUs, e.tsInferred === true, e.tp]),
    [
      [us("2026-06-11T14:03:07.554102Z"), false, 3],
      [us("2026-06-11T14:03:08.001Z"), false, 3],
    ],
  );
});

test("a file half SGLang log and half glog: each line read in its own dialect, the glog year from the SGLang lines", () => {
  const lines = [
    `[2025-12-31 23:59:58 TP0] ${BATCH}`,
    "I1231 23:59:59.100000 5521 transfer_engine.cpp:77] Transfer Engine started",
    "I0101 00:00:01.250000 5521 transfer_engine.cpp:90] Metadata server connected",
    `[2026-01-01 00:00:02 TP0] ${BATCH}`,
  ];
  const { events } = parseLines(lines);
  assert.deepEqual(
    events.map((e) => e.tsUs),
    [us("2025-12-31T23:59:58Z"), us("2025-12-31T23:59:59.1Z"), us("2026-01-01T00:00:01.25Z"), us("2026-01-01T00:00:02Z")],
  );
});

test("NCCL lines: no time of their own (placed between their dated neighbours), WARN kept as nccl.warn", () => {
  const lines = [
    `[2026-06-11 14:03:00 TP3] ${BATCH}`,
    "gpu-node-3:48211:48520 [3] NCCL INFO comm 0x55d1c0a0 rank 3 nranks 8 cudaDev 3 busId 61000 - Init COMPLETE",
    "gpu-node-3:48211:48530 [3] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer gpu-node-5<58132>",
    `[2026-06-11 14:03:03 TP3] ${BATCH}`,
  ];
  const { events } = parseLines(lines);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.tsInferred === true]),
    [
      [LogKind.decodeBatch, us("2026-06-11T14:03:00Z"), false],
      [LogKind.message, us("2026-06-11T14:03:01Z"), true],
      [LogKind.ncclWarning, us("2026-06-11T14:03:02Z"), true],
      [LogKind.decodeBatch, us("2026-06-11T14:03:03Z"), false],
    ],
  );
  // Written after 14:03:00 and before 14:03:03: all the file says of its time.
  assert.deepEqual(events[2]!.attrs, { ncclLevel: "WARN", ncclHost: "gpu-node-3", cudaDev: 3, writtenBetweenUs: [us("2026-06-11T14:03:00Z"), us("2026-06-11T14:03:03Z")] });
});

test("NCCL lines whose host, pid and tid a user replaced with placeholders are still NCCL's; its IB completion error is a failure", () => {
  // sgl-project/sglang#4857, as pasted (the lines end in two spaces; the GIDs the WARN printed wrapped onto a line of their own).
  const lines = [
    "[Node-A]:[PID]:[Thread] [0] NCCL WARN NET/IB : Got completion from peer [PRIVATE_IP] with error 12, opcode 0, len 0, vendor err 129 (Recv)  ",
    "localGid ::ffff:[MASKED_IP] remoteGid ::ffff:[MASKED_IP]  ",
    "",
    "[Node-A]:[PID]:[Thread] [0] NCCL INFO transport/net.cc:1302 -> 6  ",
    "[Node-A]:[PID]:[Thread] [0] NCCL INFO proxy.cc:698 -> 6  ",
  ];
  const { events } = parseLines(lines);
  const nccl = events.filter((e) => e.attrs?.ncclHost !== undefined);
  assert.deepEqual(
    nccl.map((e) => [e.line, e.kind, e.attrs?.ncclLevel, e.attrs?.ncclHost]),
    [
      [1, LogKind.error, "WARN", "[Node-A]"],
      // The error passed up by each caller (NCCL src/include/checks.h NCCLCHECK): failures too, at INFO.
      [4, LogKind.error, "INFO", "[Node-A]"],
      [5, LogKind.error, "INFO", "[Node-A]"],
    ],
  );
  assert.deepEqual(
    [nccl[0]!.attrs?.peer, nccl[0]!.attrs?.wcStatus, nccl[0]!.attrs?.vendorErr, nccl[0]!.attrs?.failureClass],
    ["[PRIVATE_IP]", 12, 129, "nccl"],
  );
  // Words that only look like a prefix stay someone else's.
  assert.equal(parseLines(["see a:b:c [0] NCCL WARN x"]).events[0]!.attrs?.ncclHost, undefined);
});

test("an absl / glog record that starts inside another writer's unfinished line is read as that record", () => {
  // ai-dynamo/nixl#1561: nixlbench's own output and absl's lines interleaved on one terminal.
  const lines = [
    "E0421 11:56:59.775353  709103 nixl_agent.cpp:322] createBackend: unsupported backend 'UCX'",
    "NIXL: createBackend failed! (Error code: E0421 11:56:59.776371  709103 nixl_agent.cpp:322] createBackend: unsupported backend 'UCX'",
    "Init nixl worker, dev all rank 1, type target, hostname S-5126GS-TNRT2",
  ];
  const { events } = parseLines(lines, { dating: hints() });
  assert.equal(events[1]!.kind, events[0]!.kind);
  assert.notEqual(events[1]!.kind, LogKind.unparsed);
  assert.equal(events[1]!.tsUs - events[0]!.tsUs, 1018);
  assert.equal(events[1]!.text, lines[1]);
  // A line in no dialect whose words merely hold a letter and digits stays as it was.
  assert.equal(events[2]!.kind, LogKind.unparsed);
  assert.equal(parseLines(["node E0421 is down: 11:56:59 12 a.cc:3] x"]).events[0]!.kind, LogKind.unparsed);
});

test("glibc's malloc_printerr line is the process's abort; a line that only names free() is not", () => {
  // The first as ai-dynamo/dynamo#2998 pasted it, after a nixl exception; the second another message of
  // malloc_printerr (glibc malloc/malloc.c); the third written by hand, a line that only names free().
  const { events } = parseLines(["free(): invalid pointer", "double free or corruption (out)", "free(): called from the pool"]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.signal, e.attrs?.what]),
    [
      [LogKind.crash, "SIGABRT", "glibc heap check failed: free(): invalid pointer"],
      [LogKind.crash, "SIGABRT", "glibc heap check failed: double free or corruption (out)"],
      [LogKind.unparsed, undefined, undefined],
    ],
  );
});

test("a warning warnings.showwarning prints is a warning of the file it names; its source line below is the same record", () => {
  // sgl-project/sglang#29562: torchao's SyntaxWarning at import, its source line indented by two spaces.
  const { events } = parseLines([
    "/usr/local/lib/python3.12/dist-packages/torchao/quantization/quant_api.py:1731: SyntaxWarning: invalid escape sequence '\\.'",
    '  """Configuration class for applying different quantization configs to modules or parameters based on their fully qualified names (FQNs).',
    "[2026-06-28 13:58:47] Use dsa attention backend for DeepSeek with DSA.",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind]), [[1, LogKind.message], [3, LogKind.message]]);
  assert.equal(events[0]!.attrs?.level, "warning");
  assert.equal(events[0]!.attrs?.source, "quant_api.py:1731");
  assert.equal(events[0]!.text.split("\n").length, 2);
});

test("Python logging defaults and ISO-dated lines of other loggers are records of their own; their messages are still read", () => {
  const lines = [
    "WARNING:root:Warning: FlashInfer is not installed, falling back to triton",
    `2026-06-11 14:03:05,120 - sglang.srt.disaggregation.decode - ERROR - ${FAILED}`,
    `2026-06-11T14:03:06.5Z ${BATCH}`,
  ];
  const { events } = parseLines(lines);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.tsInferred === true]),
    [
      [LogKind.message, us("2026-06-11T14:03:05.12Z"), true],
      [LogKind.transferFailed, us("2026-06-11T14:03:05.12Z"), false],
      [LogKind.decodeBatch, us("2026-06-11T14:03:06.5Z"), false],
    ],
  );
  assert.equal(events[1]!.room, ROOM);
});

test("sglang_router's loggers name themselves before the time: the time, the level and the message are read", () => {
  // The first two as sgl-project/sglang#6370 pasted them; the third written by hand in the Rust logger's shape.
  const lines = [
    "[Router (Python)] 2025-05-17 01:10:45 - INFO - Launching DP server process 0 on port 31000 - launch_server.py:175",
    "[Router (Rust)] 2025-05-17 01:10:45 - INFO - 🚧 Initializing router on 127.0.0.1:30000",
    "[Router (Rust)] 2025-05-17 01:12:02 - ERROR - Failed to send request to http://10.0.0.7:31000/generate: connection refused",
  ];
  const { events, issues } = parseLines(lines);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.kind, e.tsUs, e.attrs?.level]),
    [
      [LogKind.message, us("2025-05-17T01:10:45Z"), "info"],
      [LogKind.message, us("2025-05-17T01:10:45Z"), "info"],
      [LogKind.error, us("2025-05-17T01:12:02Z"), "error"],
    ],
  );
  // A bracketed name that is not the router's is no prefix of the router's: its time is not read (the level word
  // after its fields still is, ingest/formats/log/dialects/levelField.ts).
  const other = parseLines(["[Router (Go)] 2025-05-17 01:10:45 - INFO - x"]).events[0]!;
  assert.deepEqual([other.kind, other.tsInferred, other.attrs?.level], [LogKind.message, true, "info"]);
});

test("Gloo's connectivity report is a line of its own: info when every peer is connected, warning when some are not", () => {
  // The first as sgl-project/sglang#37215 pasted it (the print cut after its first sentence); the others written by
  // hand in the shape gloo/transport/tcp/context.cc printConnectivityInfo prints.
  const lines = [
    "[Gloo] Rank 0 is connected to 0 peer ranks.",
    "[Gloo] Rank 3 is connected to 7 peer ranks. Expected number of connected peer ranks is : 7",
    "[Gloo] Rank 3 is connected to 5 peer ranks. Expected number of connected peer ranks is : 7",
    "[Gloo] Rank 3 is NOT connected to: [4, 6]",
    "[Gloo] hello",
  ];
  const { events } = parseLines(lines);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.level]),
    [
      [LogKind.message, "info"],
      [LogKind.message, "info"],
      [LogKind.message, "warning"],
      [LogKind.message, "warning"],
      [LogKind.unparsed, undefined],
    ],
  );
});

test("cuFile's cufile.log lines: the day-first date, the level and the module are read, the leading space kept or not", () => {
  // The first two as LMCache/LMCache#795 pasted them (the whole paste indented by cuFile's space); the third as an
  // ABCI guide shows `head cufile.log` below its shell prompt, the space kept; the last, a month 13, is no date.
  const alone = parseLines([
    " 09-06-2025 01:51:11:418 [pid=7742 tid=7742] NOTICE  cufio-drv:830 running in compatible mode",
    " 09-06-2025 01:52:46:947 [pid=7742 tid=7921] ERROR  cufio-fs:327 error creating udev_device for block device dev_no: 0:383",
  ]).events;
  assert.deepEqual(
    alone.map((e) => [e.kind, e.tsUs, e.tsInferred === true, e.attrs?.level]),
    [
      [LogKind.message, us("2025-06-09T01:51:11.418Z"), false, "info"],
      [LogKind.error, us("2025-06-09T01:52:46.947Z"), false, "error"],
    ],
  );
  const mixed = parseLines([
    "[username@hnode001 ~] head cufile.log",
    " 06-02-2025 18:40:12:770 [pid=2528915 tid=2528915] INFO   0:163 nvidia_fs driver open invoked",
    " 13-13-2025 18:40:12:770 [pid=2528915 tid=2528915] INFO   0:163 nvidia_fs driver open invoked",
  ]).events;
  assert.deepEqual(
    mixed.map((e) => [e.line, e.kind, e.tsUs]),
    [
      [1, LogKind.unparsed, us("2025-02-06T18:40:12.77Z")],
      [2, LogKind.message, us("2025-02-06T18:40:12.77Z")],
    ],
  );
  assert.equal(mixed[1]!.text.split("\n").length, 2, "a line that is no date continues the record above");
});

test("libfabric's EFA provider abort is one proc.crash record, its error lines and last words in it", () => {
  // As a CI triage comment of ai-dynamo/nixl#2278 quoted the nixl_example LIBFABRIC run; the blank lines are the ones
  // the provider's fprintf writes (ofiwg/libfabric prov/efa efa_base_ep_write_eq_error), the older spelling by hand.
  const abort = [
    "Libfabric EFA provider has encountered an internal error:",
    "",
    "Libfabric error: (-13) Permission denied",
    "EFA internal error: (4111) RMA address verification failed",
    "",
    "Your application will now abort().",
  ];
  const { events } = parseLines([...abort, "Libfabric EFA provider has encounterd an internal error:", "Libfabric error: (-5) Input/output error"]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.what, e.attrs?.signal]),
    [
      [LogKind.crash, "libfabric EFA provider internal error", "SIGABRT"],
      [LogKind.crash, "libfabric EFA provider internal error", "SIGABRT"],
    ],
  );
  assert.equal(events[0]!.text, abort.join("\n"));
  // The tail's words continue nothing else: after another record they are a line of their own.
  assert.equal(parseLines(["[2026-06-11 14:03:07 TP3] " + BATCH, "Your application will now abort()."]).events.length, 2);
});

test("a faulthandler dump is one proc.crash record: the signal, the crashing thread's frame, the threads dumped", () => {
  const dump = [
    "Fatal Python error: Segmentation fault",
    "",
    "Thread 0x00007f3a1bfff640 (most recent call first):",
    '  File "/usr/lib/python3.12/threading.py", line 355 in wait',
    '  File "/usr/lib/python3.12/threading.py", line 1012 in run',
    "",
    "Current thread 0x00007f3b6d4a9740 (most recent call first):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/layers/attention/nsa/index_buf_accessor.py", line 214 in get_index_k_continuous',
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1034 in event_loop_overlap_disagg_decode',
    "",
    "Extension modules: numpy.core._multiarray_umath, torch._C, zmq.backend.cython._zmq (total: 85)",
  ];
  const { events, issues } = parseLines([`[2026-06-11 14:03:07 TP3] ${BATCH}`, ...dump], { rank: { tp: 3 } });
  assert.deepEqual(issues, []);
  assert.equal(events.length, 2);
  const crash = events[1]!;
  assert.equal(crash.kind, LogKind.crash);
  assert.equal(crash.text, dump.join("\n"));
  assert.equal(crash.tp, 3, "a per-rank file's rank");
  assert.deepEqual(crash.attrs, {
    what: "Segmentation fault",
    fatal: true,
    signal: "SIGSEGV",
    failureClass: "segfault",
    threads: 2,
    frame: "get_index_k_continuous (/sgl-workspace/sglang/python/sglang/srt/layers/attention/nsa/index_buf_accessor.py:214)",
    // The dump ends the file: written after the last dated line, nothing bounds it after.
    writtenBetweenUs: [us("2026-06-11T14:03:07Z"), null],
  });
});

test("a torch C++ backtrace continues the c10 line above it; a file of only frames is still kept", () => {
  const lines = [
    "[rank3]:[E611 14:03:07.554102345 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered",
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f3b6d41df86 in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)",
    "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 (0x7f3b6d3c8a2b in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)",
  ];
  const { events } = parseLines(lines, { dating: hints() });
  assert.equal(events.length, 1);
  assert.equal(events[0]!.text, lines.join("\n"));
  assert.equal(events[0]!.attrs?.globalRank, 3);
  const only = parseLines(lines.slice(2), { dating: hints({ hasDatedLines: false }) });
  assert.deepEqual(
    only.events.map((e) => [e.line, e.text.split("\n").length, e.tsUs, e.tsInferred]),
    [[1, 2, us("2026-06-11T14:10:00Z"), true]],
  );
});

test("other deaths: terminate, absl's and glog's signal handlers (with their unix time), the shell's message", () => {
  const { events } = parseLines(
    [
      `[2026-06-11 14:03:00 TP3] ${BATCH}`,
      "*** SIGSEGV received at time=1781186587 on cpu 3 ***",
      "PC: @     0x7f3b6d41df86  (unknown)  nixlUcxEngine::postXfer()",
      "    @     0x7f3b6d41df86        192  nixlUcxEngine::postXfer()",
      "Segmentation fault (core dumped)",
    ],
    { dating: hints() },
  );
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.signal, e.tsInferred === true]),
    [
      [LogKind.decodeBatch, undefined, false],
      [LogKind.crash, "SIGSEGV", false],
      // "PC: @ …" is absl's next line but not indented: its own record, kept.
      [LogKind.unparsed, undefined, true],
      [LogKind.crash, "SIGSEGV", true],
    ],
  );
  assert.equal(events[1]!.tsUs, 1781186587_000_000);
});

test("a launch script's shell reporting its child's death by a signal: the death, with the signal; a shell's other words are not", () => {
  // bash jobs.c notify_of_job_status: `%s: line %d: ` then the job as `jobs -l` lists it (pid, the signal's
  // description padded, the command).
  const { events } = parseLines([
    "./launch_decode.sh: line 12: 48211 Killed                  python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --disaggregation-mode decode",
    "line 3: 9120 Segmentation fault      (core dumped) python3 -m sglang.launch_server --model-path /models/Qwen3-8B",
    "./launch_decode.sh: line 14: cd: /models/missing: No such file or directory",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.what, e.attrs?.signal]),
    [
      [LogKind.crash, "Killed", "SIGKILL"],
      [LogKind.crash, "Segmentation fault", "SIGSEGV"],
      [LogKind.unparsed, undefined, undefined],
    ],
  );
});

// Written by hand in zsh's words (Src/signames1.awk, Src/jobs.c printjob) and glibc's (debug/fortify_fail.c).
test("zsh reporting a job's death in its own words, and glibc's fortify abort: the death, with the signal; a job stopped by SIGTERM is none", () => {
  const { events } = parseLines([
    "zsh: killed     python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --disaggregation-mode decode",
    "zsh: segmentation fault (core dumped)  python3 -m sglang.launch_server --model-path /models/Qwen3-8B",
    "[1]  + 48211 bus error  python3 -m sglang.launch_server --model-path /models/Qwen3-8B",
    "*** stack smashing detected ***: terminated",
    "zsh: terminated  python3 -m sglang.launch_server --model-path /models/Qwen3-8B",
  ]);
  assert.deepEqual(
    events.map((e) => [e.kind, e.attrs?.signal, e.attrs?.failureClass]),
    [
      [LogKind.crash, "SIGKILL", undefined],
      [LogKind.crash, "SIGSEGV", "segfault"],
      [LogKind.crash, "SIGBUS", "segfault"],
      [LogKind.crash, "SIGABRT", undefined],
      [LogKind.unparsed, undefined, undefined],
    ],
  );
});

test("a sanitizer's report of the error it stops for is the process's death; ThreadSanitizer's race and LeakSanitizer's report at exit are none", () => {
  const { events } = parseLines([
    "=================================================================",
    "==4711==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55d1c2a3b1e4 bp 0x7ffc8a0e2c10 sp 0x7ffc8a0e2c08",
    "READ of size 4 at 0x602000000010 thread T0",
    "==4712==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x7f2b1c3a1e4 bp 0x7ffc8a0 sp 0x7ffc890 T0)",
    "==4713==WARNING: MemorySanitizer: use-of-uninitialized-value",
    "WARNING: ThreadSanitizer: data race (pid=4714)",
    "==4715==ERROR: LeakSanitizer: detected memory leaks",
  ]);
  const crashes = events.filter((e) => e.kind === LogKind.crash);
  assert.deepEqual(
    crashes.map((e) => [e.line, e.attrs?.signal, e.attrs?.failureClass]),
    [
      [2, undefined, undefined],
      [4, "SIGSEGV", "segfault"],
      [5, undefined, undefined],
    ],
  );
  assert.match(String(crashes[0]!.attrs?.what), /^AddressSanitizer: heap-use-after-free on address/);
  assert.equal(events.some((e) => e.line === 1 && e.kind === LogKind.exception), false, "the rule of `=` above the report is no backtrace");
});

test("torchrun's per-line prefix (`[rank3]: `, `[default0]:`) is stripped: the traceback and the exception under it are read; c10's `[rank3]:[E…]` stays torch's", () => {
  const { events } = parseLines([
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2673, in run_scheduler_process',
    "[rank3]:     scheduler.event_loop_overlap_disagg_decode()",
    "[rank3]: RuntimeError: NCCL communicator was aborted on rank 3.",
    "[default0]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "[rank3]:[E1206 10:01:02.123456789 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600032 milliseconds before timing out.",
  ], { dating: hints() });
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.excType ?? e.attrs?.globalRank, e.tp]),
    [
      // `[rank3]: ` is torch's global rank (its excepthook's prefix, or torchrun's `[rank${rank}]:`): the line's rank;
      // `[default0]:` is a role and a local rank, no rank of the job.
      [1, LogKind.exception, "RuntimeError", 3],
      [5, LogKind.exception, "torch.OutOfMemoryError", undefined],
      [6, LogKind.watchdog, 3, 3],
    ],
  );
});

// Several ranks write to one stream a line at a time (torchrun's tee, vLLM's workers): each rank's lines are its record.
test("tracebacks of several ranks, interleaved line by line in one stream, are each their rank's record, in file order", () => {
  const torchrun = parseLines([
    "[rank0]: Traceback (most recent call last):",
    "[rank1]: Traceback (most recent call last):",
    '[rank0]:   File "/app/train.py", line 10, in <module>',
    '[rank1]:   File "/app/train.py", line 10, in <module>',
    "[rank0]:     main()",
    "[rank1]:     main()",
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "[rank1]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error",
  ]).events;
  assert.deepEqual(
    torchrun.map((e) => [e.line, e.kind, e.attrs?.excType, e.tp, e.text.split("\n").length]),
    [
      [1, LogKind.exception, "torch.OutOfMemoryError", 0, 4],
      [2, LogKind.exception, "RuntimeError", 1, 4],
    ],
  );
  const tag = (rank: number): string => `(VllmWorker rank=${rank} pid=${4893 + rank}) ERROR 06-11 14:03:07 [multiproc_executor.py:470]`;
  const vllm = parseLines([
    `${tag(0)} WorkerProc hit an exception.`,
    `${tag(1)} WorkerProc hit an exception.`,
    `${tag(0)} Traceback (most recent call last):`,
    `${tag(1)} Traceback (most recent call last):`,
    `${tag(0)}   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 465, in worker_busy_loop`,
    `${tag(1)}   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 465, in worker_busy_loop`,
    `${tag(0)} torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.`,
    `${tag(1)} RuntimeError: CUDA error: an illegal memory access was encountered`,
    "INFO 06-11 14:03:08 [launcher.py:80] Shutting down FastAPI HTTP server.",
  ]).events;
  assert.deepEqual(
    vllm.map((e) => [e.line, e.kind, e.attrs?.excType, e.tp]),
    [
      [1, LogKind.exception, "torch.OutOfMemoryError", 0],
      [2, LogKind.exception, "RuntimeError", 1],
      [9, LogKind.message, undefined, undefined],
    ],
  );
  // A C++ logger's line (c10's, naming a `.cpp` place) never prints a Python traceback: the traceback after it is a record of its own.
  const afterCpp = parseLines([
    "[rank8]:[W611 14:00:02.123456789 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 8] using GPU 0 to perform barrier as devices used by this process are currently unknown.",
    "[rank8]: Traceback (most recent call last):",
    '[rank8]:   File "/workspace/rollout.py", line 88, in <module>',
    "[rank8]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error",
  ], { dating: hints() }).events;
  assert.deepEqual(afterCpp.map((e) => [e.line, e.kind, e.attrs?.excType, e.tp]), [[1, LogKind.message, undefined, 8], [2, LogKind.exception, "torch.distributed.DistBackendError", 8]]);
  // A rank's traceback that ended is whole: a later line of that rank opens a record of its own.
  const after = parseLines([
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/app/train.py", line 10, in <module>',
    "[rank0]: RuntimeError: first",
    "[rank1]: RuntimeError: second",
    "[rank0]: RuntimeError: third",
  ]).events;
  assert.deepEqual(after.map((e) => [e.line, e.attrs?.excMessage, e.tp]), [[1, "first", 0], [4, "second", 1], [5, "third", 0]]);
});

test("MPI launchers' per-line tags (Open MPI's `--tag-output`, Hydra's `-prepend-rank`) are stripped, Open MPI's rank the line's; zsh's job table keeps its `[1]`", () => {
  const { events } = parseLines([
    "[1,3]<stdout>:gpu-node-2:20417:20533 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/0/GDRDMA",
    "[1,3]<stderr>: RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.21.5",
    "[1,5][gpu-node-2:20419]<stderr>: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "[2] gpu-node-1:13572:13572 [1] NCCL INFO Connected all rings",
    "[1]    20417 killed     python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --tp 16",
  ]);
  // Open MPI's tag names the line's rank, its detailed tag the machine; Hydra's `[2] ` may be another program's pid, and zsh's line names none.
  assert.deepEqual(events.map((e) => e.host), [undefined, undefined, "gpu-node-2", undefined, undefined]);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.attrs?.excType ?? e.attrs?.ncclHost ?? e.attrs?.signal, e.tp]),
    [
      [1, LogKind.message, "gpu-node-2", 3],
      [2, LogKind.exception, "RuntimeError", 3],
      [3, LogKind.exception, "torch.OutOfMemoryError", 5],
      [4, LogKind.message, "gpu-node-1", undefined],
      [5, LogKind.crash, "SIGKILL", undefined],
    ],
  );
});

test("pasted text: quote markers, backticks and spaces around a line do not hide it", () => {
  const { events, issues } = parseLines([
    "```",
    `> [2026-06-11 14:03:07 TP3] ${FAILED}`,
    `   \`[2026-06-11 14:03:08 TP3] ${BATCH}\`   `,
    "```",
  ]);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => e.kind),
    [LogKind.unparsed, LogKind.transferFailed, LogKind.decodeBatch],
  );
  assert.equal(events[1]!.text, `> [2026-06-11 14:03:07 TP3] ${FAILED}`, "the raw line is kept");
});

test("SGLang rank tags without a time: the ranks are read, the time inferred", () => {
  const { events } = parseLines([`[2026-06-11 14:03:00 TP3] ${BATCH}`, `[ TP3] ${FAILED}`, `[2026-06-11 14:03:02 TP3] ${BATCH}`]);
  assert.deepEqual(
    [events[1]!.kind, events[1]!.tp, events[1]!.tsUs, events[1]!.tsInferred],
    [LogKind.transferFailed, 3, us("2026-06-11T14:03:01Z"), true],
  );
});

test("a file of only a traceback is one record, dated by the file's anchor", () => {
  const lines = [
    "Exception in thread Thread-3 (bootstrap_thread):",
    "Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1421, in bootstrap_thread',
    '    assert waiting_req_bytes[0] == GUARD, f"First message should be {GUARD}. Foreign traffic?"',
    "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
  ];
  const { events, issues } = parseLines(lines, { dating: hints({ hasDatedLines: false }), rank: { tp: 3 } });
  assert.deepEqual(issues, []);
  assert.equal(events.length, 1);
  assert.deepEqual(
    [events[0]!.kind, events[0]!.attrs?.thread, events[0]!.tp, events[0]!.tsUs, events[0]!.tsInferred],
    [LogKind.exception, "bootstrap_thread", 3, us("2026-06-11T14:10:00Z"), true],
  );
});

test("a traceback below a batch line is a crash of its own; below an error line it is that line's (logger.exception)", () => {
  const traceback = [
    "Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2100, in run_scheduler_process',
    "    scheduler.event_loop_overlap_disagg_prefill()",
    "RuntimeError: NCCL error: unhandled system error",
  ];
  const afterBatch = parseLines([`[2026-06-11 14:10:00 TP3] ${BATCH}`, ...traceback], { dating: hints() });
  assert.deepEqual(afterBatch.events.map((e) => e.kind), [LogKind.decodeBatch, LogKind.exception]);
  assert.deepEqual([afterBatch.events[1]!.line, afterBatch.events[1]!.attrs?.excType, afterBatch.events[1]!.tsInferred], [2, "RuntimeError", true]);
  assert.equal(afterBatch.events[0]!.attrs?.excType, undefined);
  const afterError = parseLines(["[2026-06-11 14:10:00 TP3] Scheduler hit an unexpected state", ...traceback], { dating: hints() });
  assert.equal(afterError.events.length, 1);
  assert.equal(afterError.events[0]!.attrs?.excType, "RuntimeError");
});

test("Rust tracing lines (Dynamo's runtime) open with an RFC3339 time too, but are no kubectl envelope; their WARNs are not failures", async () => {
  // ai-dynamo/dynamo#4299: a healthy worker start-up, a Python warning and deprecation WARNs.
  const lines = [
    "[2025-11-13 12:45:20] WARNING __init__.py:56: dynamo.nixl_connect: Failed to load CuPy for GPU acceleration, utilizing numpy to provide CPU based operations.",
    "2025-11-13T12:45:20.370003Z  WARN dynamo_runtime::config: DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS is deprecated and no longer used. System health is now determined by endpoints that register with health check payloads. Please update your configuration to register health check payloads directly on endpoints.",
    "2025-11-13T12:45:20.390047Z  INFO dynamo_runtime::system_status_server: [spawn_system_status_server] binding to: 0.0.0.0:9090",
    "2025-11-13T12:45:20.390248Z  INFO main.worker: Signal handlers set up for graceful shutdown",
  ];
  const { detectWrapper } = await import("../../ingest/formats/wrappers/index.js");
  assert.equal(detectWrapper(lines), null);
  assert.equal(detectWrapper(lines.slice(1).map((l) => `2025-11-13T12:45:21.000000001Z ${l}`))?.name, "kubectl", "a kubectl envelope around them is still one");
  const { events } = parseLines(lines);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.line === 1 ? "-" : e.attrs?.level]), [
    [1, LogKind.message, "-"],
    [2, LogKind.message, "warning"],
    [3, LogKind.message, "info"],
    [4, LogKind.message, "info"],
  ]);
});

test("spdlog's full pattern: the logger's name and the lower-case level after the bracketed time; an error is a failure record", () => {
  // InfiniStore's client under AIBrix (vllm-project/aibrix#1093, the working half of test/corpus), then lines
  // written by hand in spdlog's default pattern without a source location.
  const { events } = parseLines([
    "[2025-05-15 15:48:41.233] [infini] [error] [libinfinistore.cpp:910] Please register memory first",
    "[2025-05-15 15:48:41.240] [infini] [warning] retrying the connection",
    "[2025-05-15 15:48:41.250] [kvcache] [info] connected",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.error, "error"],
    [LogKind.message, "warning"],
    [LogKind.message, "info"],
  ]);
  assert.equal(events[0]!.attrs?.error, "Please register memory first");
  assert.equal(events[0]!.tsUs, us("2025-05-15T15:48:41.233Z"));
  // SGLang's own line, whose message may open with a bracket too, states no level.
  const { events: sglang } = parseLines(["[2025-05-15 15:48:41 TP0] [Router] request routed to decode-1"]);
  assert.equal(sglang[0]!.tp, 0);
  assert.equal(sglang[0]!.attrs?.level, undefined);
});
