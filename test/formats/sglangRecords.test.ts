// Multi-line records: logger.exception tracebacks, thread deaths, chained
// exceptions, C++ terminate blocks, and records with no timestamp of their own.

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { BOOTSTRAP_DEATH } from "../ingest/bundle.js";
import { parseLines, parseText, us } from "./sglangHarness.js";

const ROOM = "8972542885242963296";
const BATCH =
  "Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, " +
  "#transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0";

// §3.2: NIXL transfer_worker's logger.exception, as Python prints it.
const WORKER_ERROR = [
  `[2026-08-20 10:20:05 DP0 TP3] Unexpected transfer worker error for room ${ROOM}`,
  "Traceback (most recent call last):",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1101, in transfer_worker',
  "    self._wait_xfer_handles(handles, room)",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1187, in _wait_xfer_handles',
  `    raise RuntimeError(f"NIXL transfer encountered ERR room={room}")`,
  `RuntimeError: NIXL transfer encountered ERR room=${ROOM}`,
];


test("a traceback after a logger.exception line belongs to that line's event", () => {
  const { events, issues } = parseLines([...WORKER_ERROR, `[2026-08-20 10:20:06 DP0 TP3] ${BATCH}`]);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 2);
  const [err, batch] = events;
  assert.equal(err.kind, LogKind.transportError);
  assert.equal(err.room, ROOM);
  assert.equal(err.line, 1);
  assert.equal(err.tp, 3);
  assert.equal(err.text, WORKER_ERROR.join("\n"));
  assert.deepEqual(err.attrs, {
    errorKind: "worker",
    excType: "RuntimeError",
    excMessage: `NIXL transfer encountered ERR room=${ROOM}`,
    failureClass: "transport",
  });
  assert.equal(batch.kind, LogKind.decodeBatch);
  assert.equal(batch.line, 8);
});

test("a bootstrap-thread death is one log.exception event naming the thread and the assertion", () => {
  const lines = [`[2026-08-20 10:20:00.500 TP0] ${BATCH}`, ...BOOTSTRAP_DEATH, `[2026-08-20 10:20:41 TP0] ${BATCH}`];
  const { events, issues } = parseLines(lines);
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => e.kind),
    [LogKind.decodeBatch, LogKind.exception, LogKind.decodeBatch],
  );
  const death = events[1];
  assert.equal(death.line, 2);
  assert.equal(death.text, BOOTSTRAP_DEATH.join("\n"));
  // Python's excepthook writes no timestamp: the record is placed halfway between its dated neighbours, marked inferred.
  assert.equal(death.tsUs, us("2026-08-20T10:20:20.750Z"));
  assert.equal(death.tsInferred, true);
  assert.equal(death.tp, undefined);
  assert.deepEqual(death.attrs, {
    thread: "bootstrap_thread",
    threadName: "Thread-3 (bootstrap_thread)",
    excType: "AssertionError",
    excMessage: "First message should be b'NixlMsgGuard'. Foreign traffic?",
    failureClass: "assertion",
    writtenBetweenUs: [us("2026-08-20T10:20:00.500Z"), us("2026-08-20T10:20:41Z")],
  });
});

test("a thread death straight after another record's traceback opens its own record", () => {
  const { events } = parseLines([...WORKER_ERROR, ...BOOTSTRAP_DEATH]);
  assert.equal(events.length, 2);
  assert.equal(events[0].kind, LogKind.transportError);
  assert.equal(events[0].text.split("\n").length, WORKER_ERROR.length);
  assert.equal(events[1].kind, LogKind.exception);
  assert.equal(events[1].attrs?.thread, "bootstrap_thread");
  assert.equal(events[1].line, WORKER_ERROR.length + 1);
  assert.equal(events[1].tsUs, us("2026-08-20T10:20:05Z"));
});

test("Mooncake's transfer thread crash (§3.3) names its thread and the dead prefill", () => {
  const lines = [
    `[2026-08-20 10:20:00 TP1] ${BATCH}`,
    "Exception in thread Thread-7 (transfer_worker):",
    "Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/mooncake/conn.py", line 702, in transfer_worker',
    "    raise RuntimeError(",
    "RuntimeError: Transfer thread failed because of Failed to send kv chunk. Prefill instance with bootstrap_port=8998 is dead.",
  ];
  const { events } = parseLines(lines);
  assert.equal(events.length, 2);
  assert.equal(events[1].kind, LogKind.exception);
  assert.equal(events[1].attrs?.thread, "transfer_worker");
  assert.equal(events[1].attrs?.excType, "RuntimeError");
  assert.match(String(events[1].attrs?.excMessage), /bootstrap_port=8998 is dead\.$/);
});

test("a thread named without a target (Python < 3.10 or a custom name)", () => {
  const { events } = parseLines([
    `[2026-08-20 10:20:00 TP1] ${BATCH}`,
    "Exception in thread Thread-3:",
    "Traceback (most recent call last):",
    '  File "conn.py", line 1, in bootstrap_thread',
    "    assert waiting_req_bytes[0] == GUARD",
    "AssertionError",
  ]);
  assert.equal(events[1].attrs?.thread, "Thread-3");
  assert.equal(events[1].attrs?.threadName, "Thread-3");
  assert.equal(events[1].attrs?.excType, "AssertionError");
  assert.equal(events[1].attrs?.excMessage, undefined);
});

test("a chained traceback stays in one record and reports the last exception", () => {
  const lines = [
    `[2026-08-20 10:20:05 TP3] Unexpected transfer worker error for room ${ROOM}`,
    "Traceback (most recent call last):",
    '  File "conn.py", line 10, in transfer_worker',
    "    handle = self.agent.transfer(req)",
    "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND",
    "",
    "During handling of the above exception, another exception occurred:",
    "",
    "Traceback (most recent call last):",
    '  File "conn.py", line 14, in transfer_worker',
    "    raise RuntimeError(msg) from e",
    `RuntimeError: NIXL transfer encountered ERR room=${ROOM}`,
  ];
  const { events } = parseLines(lines);
  assert.equal(events.length, 1);
  assert.equal(events[0].text.split("\n").length, lines.length);
  assert.equal(events[0].attrs?.excType, "RuntimeError");
  assert.equal(events[0].attrs?.excMessage, `NIXL transfer encountered ERR room=${ROOM}`);
});

test("a second traceback with no chain marker is a new record", () => {
  const { events } = parseLines([
    ...WORKER_ERROR,
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.12/runpy.py", line 198, in _run_module_as_main',
    "KeyboardInterrupt",
  ]);
  assert.equal(events.length, 2);
  assert.equal(events[1].kind, LogKind.exception);
  assert.equal(events[1].line, WORKER_ERROR.length + 1);
  assert.equal(events[1].attrs?.excType, "KeyboardInterrupt");
  assert.equal(events[1].tsUs, us("2026-08-20T10:20:05Z"));
});

test("`Scheduler hit an exception:` carries its traceback inside the message", () => {
  const lines = [
    "[2026-08-20 10:25:00 DP0 TP2] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2950, in run_scheduler_process',
    "    scheduler.event_loop_overlap_disagg_decode()",
    '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/utils.py", line 88, in poll_and_all_reduce',
    "    dist.all_reduce(tensor_to_reduce, op=dist.ReduceOp.MIN, group=gloo_group)",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete",
    "",
  ];
  const { events } = parseLines(lines);
  assert.equal(events.length, 1);
  const ev = events[0];
  // A gloo collective timeout is read as a watchdog event (gloo has no watchdog line of its own).
  assert.equal(ev.kind, LogKind.watchdog);
  assert.equal(ev.tp, 2);
  assert.equal(ev.attrs?.backend, "gloo");
  assert.equal(ev.attrs?.report, "timeout");
  assert.equal(ev.attrs?.op, "recv");
  assert.equal(ev.attrs?.timeoutMs, 1800000);
  assert.equal(ev.attrs?.thread, "scheduler");
  assert.equal(ev.attrs?.excType, "RuntimeError");
});

test("a plain scheduler crash without a gloo timeout stays a log.exception", () => {
  const { events } = parseLines([
    "[2026-08-20 10:25:00 TP2] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "scheduler.py", line 2950, in run_scheduler_process',
    "    scheduler.event_loop_normal_disagg_prefill()",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
  ]);
  assert.equal(events[0].kind, LogKind.exception);
  assert.equal(events[0].attrs?.excType, "torch.OutOfMemoryError");
  assert.equal(events[0].attrs?.excMessage, "CUDA out of memory. Tried to allocate 2.00 GiB.");
});

test("multi-line messages without a traceback join their record unchanged", () => {
  const lines = ["[2026-08-20 10:00:00] server_args=ServerArgs(", "  model_path='deepseek-ai/DeepSeek-V3.2',", "  tp_size=8)"];
  const { events } = parseLines(lines);
  assert.equal(events.length, 1);
  assert.equal(events[0].kind, LogKind.message);
  assert.equal(events[0].text, lines.join("\n"));
  assert.equal(events[0].attrs, undefined);
});

test("the C++ terminate block torch prints after a watchdog timeout", () => {
  const lines = [
    `[2026-08-20 10:30:00 TP5] ${BATCH}`,
    "terminate called after throwing an instance of 'c10::DistBackendError'",
    "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=152064, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
    "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):",
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f3b6d41df86 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)",
  ];
  const { events } = parseLines(lines);
  assert.equal(events.length, 2);
  const ev = events[1];
  // std::terminate aborts the process: a crash, with the C++ exception that caused it.
  assert.equal(ev.kind, LogKind.crash);
  assert.equal(ev.attrs?.fatal, true);
  assert.equal(ev.attrs?.signal, "SIGABRT");
  assert.equal(ev.attrs?.excType, "c10::DistBackendError");
  assert.match(String(ev.attrs?.excMessage), /^\[PG ID 0 PG GUID 0\(default_pg\) Rank 5\] Process group watchdog thread terminated/);
  assert.equal(ev.text, lines.slice(1).join("\n"));
});

test("records before the first timestamp are dated by the first prefixed line", () => {
  const { events, issues } = parseLines([
    "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.",
    "  import pynvml",
    `[2026-08-20 10:00:03.250 TP0] ${BATCH}`,
  ]);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 2);
  // A Python warning (Lib/warnings.py's format), its source line below it: one record of no time.
  assert.equal(events[0].kind, LogKind.message);
  assert.equal(events[0].attrs?.level, "warning");
  assert.equal(events[0].line, 1);
  assert.equal(events[0].text.split("\n").length, 2);
  assert.equal(events[0].tsUs, us("2026-08-20T10:00:03.250Z"));
  assert.equal(events[1].line, 3);
});

test("a file with no timestamp at all keeps every line: each record takes the file's anchor, marked inferred", () => {
  const dating = { hasDatedLines: false, anchorUs: us("2026-08-20T10:30:00Z"), anchorOrigin: "the file's modification time", yearNearUs: 0, yearOrigin: "" };
  const { events, issues } = parseLines(["Loading safetensors checkpoint shards: 100% Completed | 163/163", "", "done"], { dating });
  assert.deepEqual(issues, []);
  assert.deepEqual(
    events.map((e) => [e.line, e.kind, e.tsUs, e.tsInferred]),
    [
      [1, LogKind.unparsed, us("2026-08-20T10:30:00Z"), true],
      [3, LogKind.unparsed, us("2026-08-20T10:30:00Z"), true],
    ],
  );
  // The blank line belongs to the record above it.
  assert.equal(events[0].text.split("\n").length, 2);
});

test("a runaway record is cut so memory stays bounded", () => {
  const lines = ["[2026-08-20 10:00:00 TP0] dumping state:"];
  for (let i = 0; i < 2500; i++) lines.push(`  slot ${i}: free`);
  const { events, issues } = parseLines(lines);
  assert.deepEqual(issues, []);
  assert.equal(events.length, 2);
  assert.equal(events[0].text.split("\n").length, 2001);
  assert.equal(events[1].line, 2002);
  assert.equal(events[1].tsUs, us("2026-08-20T10:00:00Z"));
  assert.equal(events[0].text.split("\n").length + events[1].text.split("\n").length, lines.length);
});

test("a CRLF file gives the same records as its LF twin", () => {
  const lines = [`[2026-08-20 10:20:00.500 TP0] ${BATCH}`, ...WORKER_ERROR, ...BOOTSTRAP_DEATH, `[2026-08-20 10:20:41 TP0] ${BATCH}`];
  const lf = parseText(lines.join("\n"));
  const crlf = parseText(lines.join("\r\n"));
  assert.deepEqual(crlf, lf);
  assert.deepEqual(
    crlf.events.map((e) => e.kind),
    [LogKind.decodeBatch, LogKind.transportError, LogKind.exception, LogKind.decodeBatch],
  );
  assert.equal(crlf.events[2].attrs?.excMessage, "First message should be b'NixlMsgGuard'. Foreign traffic?");
});
