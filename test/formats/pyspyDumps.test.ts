// py-spy's dump of a live process (benfred/py-spy src/dump.rs), as a user pastes it of a server that stopped answering:
// written by hand in py-spy's format, the frames named after functions of SGLang's and PyTorch's sources (the
// scheduler's event loop and its receive, torch.distributed's all_reduce, the NIXL backend's poll).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

const HEADER = ["Process 48211: sglang::scheduler_DP1_TP3", "Python v3.10.12 (/usr/bin/python3.10)", ""];

test("a scheduler's dump is one record of its rank, from its process title; its main thread is caught in a collective", () => {
  const { events } = parseLines([
    ...HEADER,
    'Thread 48211 (idle): "MainThread"',
    "    all_reduce (torch/distributed/distributed_c10d.py:2501)",
    "    wrapper (torch/distributed/c10d_logger.py:83)",
    "    poll_and_all_reduce (sglang/srt/disaggregation/utils.py:84)",
    "    event_loop_normal_disagg_decode (sglang/srt/disaggregation/decode.py:760)",
    'Thread 48302 (idle): "Thread-3 (_recv_loop)"',
    "    _recv_loop (sglang/srt/managers/tp_worker_overlap_thread.py:90)",
    "[2026-06-11 14:10:31 DP1 TP3] Decode batch. #running-req: 0, #token: 0, token usage: 0.00, #queue-req: 0, ",
  ]);
  assert.equal(events.length, 2);
  const dump = events[0]!;
  assert.deepEqual([dump.kind, dump.dp, dump.tp], [LogKind.stackDump, 1, 3]);
  assert.deepEqual(
    [dump.attrs?.pid, dump.attrs?.threads, dump.attrs?.thread, dump.attrs?.stuckIn, dump.attrs?.waitingIn, dump.attrs?.waitOp, dump.attrs?.failureClass],
    [48211, 2, "MainThread (idle)", "all_reduce (torch/distributed/distributed_c10d.py:2501)", "collective", "all_reduce", "hang"],
  );
  assert.equal(dump.text.split("\n").length, 10);
});

test("an idle main thread caught in a transfer backend's code waits on a KV transfer; a running one, or one waiting for requests, is information only", () => {
  const transfer = parseLines([
    ...HEADER,
    'Thread 48211 (idle): "MainThread"',
    "    poll (sglang/srt/disaggregation/nixl/conn.py:912)",
    "    process_decode_queue (sglang/srt/disaggregation/decode.py:410)",
  ]).events[0]!;
  assert.deepEqual([transfer.attrs?.waitingIn, transfer.attrs?.waitOp, transfer.attrs?.failureClass], ["transfer", "poll", "hang"]);
  // vLLM's KV connectors live under vllm/distributed/ but wait on a transfer, not a collective; NIXL's bindings too.
  const vllm = parseLines([
    ...HEADER,
    'Thread 48211 (idle): "MainThread"',
    "    check_xfer_state (nixl/_api.py:712)",
    "    _pop_done_transfers (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py:1203)",
    "    get_finished (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py:1121)",
  ]).events[0]!;
  assert.deepEqual([vllm.attrs?.waitingIn, vllm.attrs?.waitOp], ["transfer", "check_xfer_state"]);
  const idle = parseLines([
    ...HEADER,
    'Thread 48211 (idle): "MainThread"',
    "    recv_pyobj (zmq/sugar/socket.py:1034)",
    "    recv_requests (sglang/srt/managers/scheduler.py:1021)",
    "    event_loop_normal (sglang/srt/managers/scheduler.py:780)",
  ]).events[0]!;
  assert.deepEqual([idle.kind, idle.attrs?.stuckIn, idle.attrs?.waitingIn, idle.attrs?.failureClass], [LogKind.stackDump, "recv_pyobj (zmq/sugar/socket.py:1034)", undefined, undefined]);
  const busy = parseLines([...HEADER, 'Thread 48211 (active): "MainThread"', "    all_reduce (torch/distributed/distributed_c10d.py:2501)"]).events[0]!;
  assert.deepEqual([busy.attrs?.thread, busy.attrs?.waitingIn, busy.attrs?.failureClass], ["MainThread (active)", undefined, undefined]);
});

test("the server's own process: its launch command gives the role", () => {
  const dump = parseLines([
    "Process 48102: python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --disaggregation-mode prefill --tp 8",
    "Python v3.10.12 (/usr/bin/python3.10)",
    "",
    'Thread 48102 (idle): "MainThread"',
    "    select (selectors.py:469)",
    "    _run_once (asyncio/base_events.py:1871)",
  ]).events[0]!;
  assert.deepEqual([dump.kind, dump.role, dump.tp, dump.attrs?.waitingIn], [LogKind.stackDump, "prefill", undefined, undefined]);
});
