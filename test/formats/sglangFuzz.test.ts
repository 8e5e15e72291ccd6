// Property: whatever the bytes, the parser never throws, and every input line
// ends up in an event's text (no line is lost, DESIGN.md "Inputs"). Inputs are
// random byte lines and random mutations (truncation, splicing, flipped and
// inserted characters) of real lines of every template and dialect — SGLang,
// glog/absl, UCX, NCCL, Python logging, faulthandler dumps, torch backtraces,
// pasted text, the conformance table's rows — bare and inside each container
// wrapper; the generator is seeded, so a failure repeats.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { ParsedEvent } from "../../domain/event.js";
import type { WrapperName } from "../../ingest/formats/wrappers/index.js";
import { parseLines } from "./sglangHarness.js";
import { uniformStream } from "../../fixtures/generator/prng.js";
import { MOONCAKE_ROWS, NIXL_ROWS, UCX_ROWS } from "./conformance/engines.js";
import { rowLine } from "./conformance/row.js";
import { SGLANG_PD_ROWS } from "./conformance/sglangPd.js";
import { SGLANG_BOOTSTRAP_ROWS, SGLANG_SCHEDULER_ROWS } from "./conformance/sglangScheduler.js";
import { SGLANG_TRANSFER_ROWS } from "./conformance/sglangTransfer.js";

const ROOM = "8972542885242963296";
const RID = "9f2c4c0e1b2a4f7d8e6a";

const REAL_LINES = [
  "[2026-08-20 10:15:32 DP0 TP0] Prefill batch, #new-seq: 3, #new-token: 12288, #cached-token: 2048, token usage: 0.21, #running-req: 3, #queue-req: 5, #pending-token: 0, #bootstrap-req: 7, #inflight-req: 12, #optimistic-req: 0, cuda graph: False, input throughput (token/s): 48211.37",
  "[2026-08-20 10:15:40.120 DP1 TP4] Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 58, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0, fwd occupancy: 87.50%",
  "[2025-10-01 08:00:05 TP0] Prefill batch. #new-seq: 1, #new-token: 4096, #cached-token: 0, token usage: 0.05, #unbootstrapped-req: 2, #queue-req: 0, #transferring-req: 4, input throughput (token/s): 9021.44, ",
  "[2025-10-24 12:00:00 TP0] Prefill batch [18342], #new-seq: 2, #new-token: 8192, cuda graph: False",
  `[2026-08-20 10:20:01 DP0 PP1 ATTN_CP1 MOE_DP2 TP3 EP3] Decode transfer failed for request rank=3 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Request ${ROOM} timed out after 300.0s in KVPoll.WaitingForInput`,
  `[2026-08-20 10:20:01 TP5] Prefill bootstrap failed for request rank=5 req.rid='${RID}' req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Aborted by AbortReq.`,
  `[2026-08-20 10:20:01 TP3] Context corruption detected: Request ${RID} (bootstrap_room=${ROOM}) received metadata from bootstrap_room=5830149913321004417. Metadata buffer index: 17. This indicates metadata buffer index collision.`,
  `[2026-08-20 10:20:01 TP3] Metadata unexpectedly not ready after readiness gate: request ${RID}, bootstrap_room=${ROOM}, metadata_buffer_index=42`,
  "[2026-08-20 10:20:01 TP3] Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 58 requests affected",
  "[2026-08-20 10:20:01 TP3] Some requests fail to receive KV Cache transfer done signal after bootstrapping. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600' (10 minutes) to relax the timeout condition. ",
  `[2026-08-20 10:20:01 TP3] Abort transfer queue request. decode_req.req.rid='${RID}'`,
  `[2026-08-20 10:20:01.250 TP3] sending kvcache to 4f1e0c2a-decode-3 with notif ${ROOM}_kv_2_1_3`,
  `[2026-08-20 10:20:01.250 TP3] sending kvcache to 4f1e0c2a-decode-3 with notif ${ROOM}_stg_1_0_3_5_1024_64_decode_10.0.4.2_rank_3`,
  `[2026-08-20 10:20:01.250 TP3] sending kvcache to 4f1e0c2a-decode-3 with notif ${ROOM}_aux_nokv_3_2`,
  `[2026-08-20 10:20:01 TP3] got info room=${ROOM} agent_name='4f1e0c2a-decode-3' required_dst_info_num=1`,
  `[2026-08-20 10:20:01 TP3] room=${ROOM} is bootstrapped`,
  `[2026-08-20 10:20:01 TP3] Received abort notification for room ${ROOM}, marked as Failed; ACK deferred until transfer drains`,
  `[2026-08-20 10:20:01 TP3] Sent ABORT_ACK for room ${ROOM} to 10.0.4.2:17010`,
  `[2026-08-20 10:20:01 TP3] NIXL transport error for room ${ROOM}: nixlRemoteDisconnectError: remote agent disconnected`,
  `[2026-08-20 10:20:01 TP3] Unexpected transfer worker error for room ${ROOM}`,
  "Traceback (most recent call last):",
  '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/nixl/conn.py", line 1243, in bootstrap_thread',
  "AssertionError: First message should be b'NixlMsgGuard'. Foreign traffic?",
  "Exception in thread Thread-3 (bootstrap_thread):",
  "terminate called after throwing an instance of 'c10::DistBackendError'",
  "[rank3]:[E820 10:30:02.408271257 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
  "E0820 10:30:02.408271 48211 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600031 milliseconds before timing out.",
  '[2026-08-20 10:31:00] INFO:     127.0.0.1:52344 - "POST /generate HTTP/1.1" 200 OK',
  "(SGLangEngine pid=48211, ip=10.0.3.17) [2026-08-20 10:15:32 TP2] Scheduler started",
  "[ TP3] Scheduler started",
  "gpu-node-3:48211:48530 [3] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer gpu-node-5<58132>",
  "gpu-node-3:48211:48520 [3] NCCL INFO comm 0x55d1c0a0 rank 3 nranks 8 cudaDev 3 busId 61000 - Init COMPLETE",
  "WARNING:root:Warning: FlashInfer is not installed, falling back to triton",
  "2026-06-11 14:03:05,120 - sglang.srt.disaggregation.decode - ERROR - something went wrong",
  "2026-06-11T14:03:06.5Z INFO router started",
  "Fatal Python error: Segmentation fault",
  "Current thread 0x00007f3b6d4a9740 (most recent call first):",
  '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1034 in event_loop_overlap_disagg_decode',
  "Extension modules: numpy.core._multiarray_umath, torch._C (total: 85)",
  "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):",
  "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f3b6d41df86 in /usr/local/lib/python3.12/dist-packages/torch/lib/libc10.so)",
  "*** SIGSEGV received at time=1781186587 on cpu 3 ***",
  "Segmentation fault (core dumped)",
  "> [2026-08-20 10:20:01 TP3] room=8972542885242963296 is bootstrapped",
  "```",
  "Loading safetensors checkpoint shards:  41% Completed | 67/163 [00:31<00:44,  2.16it/s]",
  ...[...SGLANG_PD_ROWS, ...SGLANG_TRANSFER_ROWS, ...SGLANG_BOOTSTRAP_ROWS, ...SGLANG_SCHEDULER_ROWS].map(rowLine),
  ...[...MOONCAKE_ROWS, ...NIXL_ROWS, ...UCX_ROWS].map(rowLine),
];

/** A line as each container runtime wraps it (ingest/formats/wrappers). */
const WRAP: Record<WrapperName, (line: string, i: number) => string> = {
  cri: (line, i) => `2026-08-20T10:20:${String(i % 60).padStart(2, "0")}.554102345Z stderr ${i % 7 === 3 ? "P" : "F"} ${line}`,
  "docker-json": (line, i) => JSON.stringify({ log: i % 7 === 3 ? line : `${line}\n`, stream: "stderr", time: "2026-08-20T10:20:01.554102345Z" }),
  kubectl: (line) => `2026-08-20T10:20:01.554102345Z ${line}`,
  logcli: (line, i) => `2026-08-20T10:20:01Z {container="sglang", pod="sglang-decode-${i % 2}"}  ${line}`,
  "kubectl-prefix": (line, i) => `[pod/sglang-decode-${i % 2}/sglang] 2026-08-20T10:20:01.554102345Z ${line}`,
  journald: (line) => `2026-08-20T10:20:01+0000 gpu-node-3 python3[48211]: ${line}`,
  "journald-json": (line, i) => JSON.stringify({ __CURSOR: `s=9f;i=${i}`, __REALTIME_TIMESTAMP: String(1787221201554102 + i), _HOSTNAME: "gpu-node-3", MESSAGE: line }),
  // An entry over several lines: the run's lines are split on LF below.
  "journald-json-pretty": (line, i) => `{\n\t"__REALTIME_TIMESTAMP" : "${1787221201554102 + i}",\n\t"_HOSTNAME" : "gpu-node-3",\n\t"MESSAGE" : ${JSON.stringify(line)}\n}`,
  compose: (line, i) => `sglang-${i % 2}  | ${line}`,
  "srun-label": (line, i) => `${String(i % 12).padStart(2)}: ${line}`,
  pdsh: (line, i) => `gpu-node-${i % 3}: ${line}`,
  stern: (line, i) => `sglang-decode-6458459f69-qxv6${"bc"[i % 2]} sglang ${line}`,
  "aws-logs-tail": (line, i) => `2026-08-20T10:20:${String(i % 60).padStart(2, "0")}.554102+00:00 sglang/decode/3f2a9c1e0b7d4e2${i % 2} ${line}`.trimEnd(),
  "shipper-json": (line, i) => JSON.stringify({ time: "2026-08-20T10:20:01.554102345Z", stream: "stderr", _p: i % 7 === 3 ? "P" : "F", message: line, kubernetes: { pod_name: `sglang-decode-${i % 2}`, host: "gpu-node-3" } }),
  "moreutils-ts": (line) => `Aug 20 10:20:01 ${line}`,
};

const NASTY = "[]_ :=.,'\"()0123456789\r\t\u0000\u001b\ufffd\ud800é中-%#";

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function randomLine(r: () => number): string {
  const len = Math.floor(r() * 200);
  let s = "";
  // Any code unit but the LF the pipeline splits on.
  for (let i = 0; i < len; i++) s += String.fromCharCode(r() < 0.5 ? Math.floor(r() * 256) : NASTY.charCodeAt(Math.floor(r() * NASTY.length))).replace("\n", " ");
  return s;
}

function mutate(r: () => number, line: string): string {
  switch (Math.floor(r() * 5)) {
    case 0:
      return line.substring(0, Math.floor(r() * line.length));
    case 1: {
      const other = pick(r, REAL_LINES);
      return line.substring(0, Math.floor(r() * line.length)) + other.substring(Math.floor(r() * other.length));
    }
    case 2: {
      const chars = line.split("");
      const flips = 1 + Math.floor(r() * 4);
      for (let i = 0; i < flips && chars.length > 0; i++) chars[Math.floor(r() * chars.length)] = pick(r, NASTY.split(""));
      return chars.join("");
    }
    case 3: {
      const at = Math.floor(r() * line.length);
      return line.substring(0, at) + pick(r, NASTY.split("")) + line.substring(at);
    }
    default:
      return line + "\r";
  }
}

/** Line numbers the events' texts hold (a record's lines follow its first; issues do not count). */
function covered(events: ParsedEvent[]): Set<number> {
  const seen = new Set<number>();
  for (const ev of events) {
    const n = ev.text.split("\n").length;
    for (let i = 0; i < n; i++) seen.add(ev.line + i);
  }
  return seen;
}

function checkRun(lines: string[], label: string, wrapper?: WrapperName): void {
  let result: ReturnType<typeof parseLines>;
  const dating = { hasDatedLines: true, anchorUs: 1_781_186_587_000_000, anchorOrigin: "a test anchor", yearNearUs: 1_781_186_587_000_000, yearOrigin: "a test hint" };
  assert.doesNotThrow(() => {
    result = parseLines(lines, { tzOffsetMinutes: 330, dating, ...(wrapper !== undefined ? { wrapper } : {}) });
  }, label);
  const { events } = result!;
  const seen = covered(events);
  for (let i = 1; i <= lines.length; i++) assert.ok(seen.has(i), `${label}: line ${i} is in no event: ${JSON.stringify(lines[i - 1])}`);
  for (const ev of events) {
    assert.ok(Number.isSafeInteger(ev.tsUs), `${label}: tsUs ${ev.tsUs}`);
    assert.equal(typeof ev.kind, "string");
    if (ev.room !== undefined) assert.match(ev.room, /^\d+$/, label);
  }
}

test("random byte lines never throw and every line is accounted for", () => {
  const r = uniformStream(20260820);
  for (let run = 0; run < 300; run++) {
    const lines = Array.from({ length: 1 + Math.floor(r() * 20) }, () => randomLine(r));
    checkRun(lines, `random run ${run}`);
  }
});

test("mutated real lines never throw and every line is accounted for", () => {
  const r = uniformStream(8972542);
  for (let run = 0; run < 500; run++) {
    const lines = Array.from({ length: 1 + Math.floor(r() * 30) }, () => {
      const real = pick(r, REAL_LINES);
      return r() < 0.7 ? mutate(r, real) : real;
    });
    checkRun(lines, `mutation run ${run}`);
  }
});

test("mutated real lines inside each container wrapper: never a throw, never a lost line", () => {
  const r = uniformStream(5830149);
  for (const wrapper of Object.keys(WRAP) as WrapperName[]) {
    for (let run = 0; run < 150; run++) {
      const lines = Array.from({ length: 1 + Math.floor(r() * 30) }, (_, i) => {
        const real = pick(r, REAL_LINES);
        const inner = r() < 0.5 ? mutate(r, real) : real;
        const wrapped = WRAP[wrapper](inner, i);
        return r() < 0.1 ? mutate(r, wrapped) : wrapped;
      }).flatMap((l) => l.split("\n"));
      checkRun(lines, `${wrapper} run ${run}`, wrapper);
    }
  }
});

test("every real line unmutated lands in an event (the corpus is sound)", () => {
  const { events } = parseLines(REAL_LINES);
  assert.ok(events.length > 0);
  assert.equal(covered(events).size, REAL_LINES.length);
});
