// SGLang bootstrap-server, scheduler, HiCache, batch and access lines.

import { LogKind } from "../../../domain/kinds.js";
import { P, PMS, RID, type ConformanceRow } from "./row.js";

const SG = "sgl-project/sglang python/sglang/srt/";
const COMMON = `${SG}disaggregation/common/conn.py`;
const REFUSED =
  "HTTPConnectionPool(host='10.0.3.17', port=8998): Max retries exceeded with url: /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1 " +
  "(Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f2a1c3e5d50>: Failed to establish a new connection: [Errno 111] Connection refused'))";

export const SGLANG_BOOTSTRAP_ROWS: ConformanceRow[] = [
  {
    template: "Failed to get prefill server info",
    origin: "sglang",
    source: `${COMMON} CommonKVManager.try_ensure_parallel_info / CommonKVReceiver._get_bootstrap_info_from_server @0094505d`,
    line: `${P} Failed to get prefill server info: 503, Prefill server not fully registered yet (3 workers registered).`,
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "route", status: 503, body: "Prefill server not fully registered yet (3 workers registered).", failureClass: "other" } },
  },
  {
    template: "Error fetching prefill server info from bootstrap",
    origin: "sglang",
    source: `${COMMON} CommonKVManager.try_ensure_parallel_info @0094505d`,
    line: `${P} Error fetching prefill server info from bootstrap: ${REFUSED}`,
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "parallel_info", error: REFUSED, failureClass: "transport" } },
  },
  {
    template: "Error fetching prefill info from bootstrap",
    origin: "sglang",
    source: `${COMMON} CommonKVReceiver._get_bootstrap_info_from_server @0094505d; nixl/conn.py v0.4-era`,
    line: `${P} Error fetching prefill info from bootstrap: HTTPConnectionPool(host='10.0.3.17', port=8998): Read timed out. (read timeout=5)`,
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "route", failureClass: "timeout" } },
  },
  {
    template: "Failed to query dp_ranks",
    origin: "sglang",
    source: `${COMMON} CommonKVReceiver.query_prefill_dp_ranks @0094505d`,
    line: `${P} Failed to query dp_ranks: 500, Internal Server Error`,
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "dp_ranks", status: 500, body: "Internal Server Error" } },
  },
  {
    template: "Error querying dp_ranks from bootstrap",
    origin: "sglang",
    source: `${COMMON} CommonKVReceiver.query_prefill_dp_ranks @0094505d`,
    line: `${P} Error querying dp_ranks from bootstrap: ${REFUSED}`,
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "dp_ranks", failureClass: "transport" } },
  },
  {
    template: "Could not fetch prefill parallel info after attempts",
    origin: "sglang",
    source: `${SG}disaggregation/decode.py DecodePreallocQueue._resolve_pending_reqs (index copies)`,
    line: `${P} Could not fetch prefill parallel info from 10.0.3.17:8998 after 15 attempts`,
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "parallel_info", bootstrapAddr: "10.0.3.17:8998", attempts: 15 } },
  },
  {
    template: "Could not fetch prefill parallel info from bootstrap_addr",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVReceiver.send_metadata (index copies)`,
    line: `${P} Could not fetch prefill parallel info from bootstrap_addr: 10.0.3.17:8998`,
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "parallel_info", bootstrapAddr: "10.0.3.17:8998" } },
  },
  {
    template: "Could not fetch bootstrap info for engine rank",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVReceiver.__init__, v0.4-era @94e9baa4`,
    line: `[2025-04-22 11:40:02 TP3] Could not fetch bootstrap info for engine rank: 3`,
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "route", engineRank: 3 } },
  },
  {
    template: "Prefill register attempt failed",
    origin: "sglang",
    source: `${COMMON} CommonKVManager.register_to_bootstrap @0094505d`,
    line: `${P} Prefill register attempt 2/5 failed: status 500`,
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { what: "route", attempt: 2, attempts: 5, status: 500 } },
  },
  {
    template: "Prefill register attempt failed (raised)",
    origin: "sglang",
    source: `${COMMON} CommonKVManager.register_to_bootstrap: the root cause of the raised request @0094505d`,
    line: `${P} Prefill register attempt 5/5 failed: [Errno 111] Connection refused`,
    expect: { kind: LogKind.bootstrapRegisterFailed, attrs: { attempt: 5, error: "[Errno 111] Connection refused", failureClass: "transport" } },
  },
  {
    template: "Prefill instance failed to register to bootstrap server",
    origin: "sglang",
    source: `${COMMON} CommonKVManager.register_to_bootstrap @0094505d`,
    line: `${P} Prefill instance failed to register to bootstrap server after 5 retries`,
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { attempts: 5, final: true } },
  },
  {
    template: "Prefill Failed to connect to bootstrap server",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._register_to_bootstrap, v0.4-era @94e9baa4`,
    line: `[2025-04-22 11:39:58 TP0] Prefill Failed to connect to bootstrap server: 500, Internal Server Error`,
    expect: { kind: LogKind.bootstrapRegisterFailed, attrs: { status: 500, body: "Internal Server Error" } },
  },
  {
    template: "Prefill Failed to register to bootstrap server",
    origin: "sglang",
    source: `${SG}disaggregation/nixl/conn.py NixlKVManager._register_to_bootstrap, v0.4-era @94e9baa4`,
    line: `[2025-04-22 11:39:58 TP0] Prefill Failed to register to bootstrap server: ${REFUSED}`,
    expect: { kind: LogKind.bootstrapRegisterFailed, attrs: { error: REFUSED, failureClass: "transport" } },
  },
  {
    template: "Failed to register prefill dp_rank",
    origin: "sglang",
    source: `${COMMON} CommonKVSender._register_prefill_dp_rank @0094505d`,
    line: `${P} Failed to register prefill dp_rank: 503, Service Unavailable`,
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { what: "dp_rank", status: 503 } },
  },
  {
    template: "Attempting to reconnect to",
    origin: "sglang",
    source: `${COMMON} CommonKVManager._start_heartbeat_checker_thread heartbeat_checker @0094505d`,
    line: `${P} Attempting to reconnect to 10.0.3.17:8998...`,
    expect: { kind: LogKind.heartbeatFailed, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998" } },
  },
  {
    template: "Server error",
    origin: "sglang",
    source: `${COMMON} CommonKVBootstrapServer._run_server (exc_info) @0094505d`,
    line: `[2026-06-11 14:00:01] Server error: [Errno 98] error while attempting to bind on address ('0.0.0.0', 8998): address already in use`,
    expect: { kind: LogKind.bootstrapServerError, role: "prefill", attrs: { error: "[Errno 98] error while attempting to bind on address ('0.0.0.0', 8998): address already in use" } },
  },
];

export const SGLANG_SCHEDULER_ROWS: ConformanceRow[] = [
  {
    template: "Scheduler hit an exception",
    origin: "sglang",
    source: `${SG}managers/scheduler.py run_scheduler_process (index copies)`,
    line: `${P} Scheduler hit an exception: Traceback (most recent call last):`,
    more: [
      '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2950, in run_scheduler_process',
      "    scheduler.event_loop_overlap_disagg_decode()",
      "torch.AcceleratorError: CUDA error: an illegal memory access was encountered",
    ],
    expect: {
      kind: LogKind.exception,
      tp: 3,
      attrs: { thread: "scheduler", fatal: true, excType: "torch.AcceleratorError", failureClass: "cuda-error" },
    },
  },
  {
    template: "Watchdog timeout",
    origin: "sglang",
    source: `${SG}managers/scheduler.py Scheduler.watchdog_thread (index copies, 2024–2025)`,
    line: `[2025-04-03 20:06:34 DP1 TP0] Watchdog timeout (self.watchdog_timeout=300)`,
    expect: { kind: LogKind.schedulerWatchdog, dp: 1, tp: 0, attrs: { component: "Scheduler", timeoutS: 300, soft: false, fatal: true, failureClass: "timeout" } },
  },
  {
    template: "watchdog timeout (soft=)",
    origin: "sglang",
    source: `${SG}utils/watchdog.py WatchdogRaw._watchdog_once (index copies)`,
    line: `${P} Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)`,
    expect: { kind: LogKind.schedulerWatchdog, attrs: { component: "Scheduler", timeoutS: 300, soft: false, fatal: true } },
  },
  {
    template: "watchdog timeout (soft=, tokenizer)",
    origin: "sglang",
    source: `${SG}utils/watchdog.py WatchdogRaw._watchdog_once, debug_name of the tokenizer manager (index copies)`,
    line: `[2026-06-11 14:03:07] TokenizerManager watchdog timeout (self.watchdog_timeout=600.0, self.soft=True)`,
    expect: { kind: LogKind.schedulerWatchdog, attrs: { component: "TokenizerManager", timeoutS: 600, soft: true } },
  },
  {
    template: "Request exceeds the maximum number of tokens",
    origin: "sglang",
    source: `${SG}disaggregation/prefill.py and decode.py _check_if_req_exceed_kv_capacity (index copies)`,
    line: `${P} Request ${RID} exceeds the maximum number of tokens: 131073 > 131072`,
    expect: { kind: LogKind.capacityRejected, rid: RID, attrs: { reason: "kv_capacity", tokens: 131073, capacity: 131072 } },
  },
  {
    template: "Revoking prefetch (insufficient hits)",
    origin: "sglang",
    source: `${SG}managers/cache_controller.py prefetch thread (index copies); mem_cache/hiradix_cache.py in later copies`,
    line: `${PMS} Revoking prefetch for request ${RID} due to insufficient hits (0).`,
    expect: { kind: LogKind.prefetchRevoked, rid: RID, attrs: { reason: "insufficient_hits", hits: 0 } },
  },
  {
    template: "Revoking prefetch (host memory)",
    origin: "sglang",
    source: `${SG}mem_cache/hiradix_cache.py, the storage-prefetch path (index copy)`,
    line: `${PMS} Revoking prefetch for request ${RID} due to host memory allocation failure.`,
    expect: { kind: LogKind.prefetchRevoked, rid: RID, attrs: { reason: "host_memory" } },
  },
  {
    template: "Prefill batch",
    origin: "sglang",
    source: `${SG}managers/scheduler_components/metrics_reporter.py report_prefill_stats; line as in ai-dynamo/nixl issue #1983`,
    line:
      "[2026-07-21 08:04:41 TP0 EP0] Prefill batch, #new-seq: 1, #new-token: 64, #cached-token: 10048, token usage: 0.00, #running-req: 0, #queue-req: 0, " +
      "#pending-token: 0, #bootstrap-req: 0, #inflight-req: 1, cuda graph: False, input throughput (token/s): 178.18, est. prefill TFLOPS/s (per GPU): 9.90, fwd occupancy: nan%",
    expect: { kind: LogKind.prefillBatch, role: "prefill", tp: 0, attrs: { "#new-seq": 1, "#inflight-req": 1, "cuda graph": false, "input throughput (token/s)": 178.18, "fwd occupancy": "nan%" } },
  },
  {
    template: "Prefill batch (period era)",
    origin: "sglang",
    source: `${SG}managers/scheduler.py log_prefill_stats ≤ v0.5.3 form ('Prefill batch. ' and a trailing ', '); line from a user log of 2026-02`,
    line:
      "[2026-02-19 16:32:49 TP0] Prefill batch. #new-seq: 1, #new-token: 1, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, " +
      "#prealloc-req: 1, #inflight-req: 0, input throughput (token/s): 1.73, ",
    expect: { kind: LogKind.prefillBatch, role: "prefill", attrs: { "#prealloc-req": 1, "input throughput (token/s)": 1.73 } },
  },
  {
    template: "Decode batch",
    origin: "sglang",
    source: `${SG}managers/scheduler_components/metrics_reporter.py report_decode_stats (reference v0.5.18 §2.2)`,
    line:
      `${P} Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, ` +
      "#retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    expect: { kind: LogKind.decodeBatch, role: "decode", attrs: { "#running-req": 64, "#transfer-req": 9, "gen throughput (token/s)": 3712.55 } },
  },
  {
    template: "uvicorn access line",
    origin: "sglang",
    source: "uvicorn's access formatter under SGLang's log format (reference §1); line as in a 2026-04 user log",
    line: '[2026-04-06 12:49:33] INFO:     192.168.0.45:57586 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
    expect: { kind: LogKind.httpAccess, attrs: { level: "INFO", client: "192.168.0.45:57586", method: "POST", path: "/v1/chat/completions", status: 500 } },
  },
];
