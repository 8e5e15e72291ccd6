// SGLang bootstrap-server, scheduler, HiCache, batch and access lines.

import { LogKind } from "../../../domain/kinds.js";
import { RID, type SglangConformanceRow } from "./row.js";

const REFUSED =
  "HTTPConnectionPool(host='10.0.3.17', port=8998): Max retries exceeded with url: /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1 " +
  "(Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f2a1c3e5d50>: Failed to establish a new connection: [Errno 111] Connection refused'))";

export const SGLANG_BOOTSTRAP_ROWS: SglangConformanceRow[] = [
  {
    template: "sglangCommonConn.route_status",
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "route", status: 503, body: "Prefill server not fully registered yet (3 workers registered).", failureClass: "other" } },
  },
  {
    template: "sglangCommonConn.parallel_info_raised",
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "parallel_info", error: REFUSED, failureClass: "transport" } },
  },
  {
    template: "sglangCommonConn.route_raised",
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "route", failureClass: "timeout" } },
  },
  {
    template: "sglangCommonConn.dp_ranks_status",
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "dp_ranks", status: 500, body: "Internal Server Error" } },
  },
  {
    template: "sglangCommonConn.dp_ranks_raised",
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "dp_ranks", failureClass: "transport" } },
  },
  {
    template: "sglangDisaggregation.parallel_info_gave_up",
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "parallel_info", bootstrapAddr: "10.0.3.17:8998", attempts: 15 } },
  },
  {
    template: "sglangNixl.no_parallel_info",
    expect: { kind: LogKind.bootstrapFetchFailed, role: "decode", attrs: { what: "parallel_info", bootstrapAddr: "10.0.3.17:8998" } },
  },
  {
    template: "sglangNixl.no_engine_info",
    expect: { kind: LogKind.bootstrapFetchFailed, attrs: { what: "route", engineRank: 3 } },
  },
  {
    template: "sglangCommonConn.register_attempt_status",
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { what: "route", attempt: 2, attempts: 5, status: 500 } },
  },
  {
    template: "sglangCommonConn.register_attempt_raised",
    expect: { kind: LogKind.bootstrapRegisterFailed, attrs: { attempt: 5, error: "[Errno 111] Connection refused", failureClass: "transport" } },
  },
  {
    template: "sglangCommonConn.register_gave_up",
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { attempts: 5, final: true } },
  },
  {
    template: "sglangNixl.old_register_status",
    expect: { kind: LogKind.bootstrapRegisterFailed, attrs: { status: 500, body: "Internal Server Error" } },
  },
  {
    template: "sglangNixl.old_register_raised",
    expect: { kind: LogKind.bootstrapRegisterFailed, attrs: { error: REFUSED, failureClass: "transport" } },
  },
  {
    template: "sglangCommonConn.dp_rank_register_status",
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { what: "dp_rank", status: 503 } },
  },
  {
    template: "sglangCommonConn.heartbeat_reconnect",
    expect: { kind: LogKind.heartbeatFailed, role: "decode", attrs: { bootstrapAddr: "10.0.3.17:8998" } },
  },
  {
    template: "sglangCommonConn.server_error",
    expect: { kind: LogKind.bootstrapServerError, role: "prefill", attrs: { error: "[Errno 98] error while attempting to bind on address ('0.0.0.0', 8998): address already in use" } },
  },
  {
    template: "sglangCommonConn.dp_rank_register_raised",
    expect: { kind: LogKind.bootstrapRegisterFailed, role: "prefill", attrs: { what: "dp_rank", error: "[Errno 111] Connection refused", failureClass: "transport" } },
  },
];

export const SGLANG_SCHEDULER_ROWS: SglangConformanceRow[] = [
  {
    template: "sglangScheduler.exception",
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
    template: "sglangScheduler.kv_pool_exhausted",
    expect: { kind: LogKind.error, attrs: { error: "KV pool out of memory (This should nerver happen.)", phase: "Prefill", failureClass: "other", fatal: true } },
  },
  {
    template: "sglangScheduler.parent_sigquit",
    expect: { kind: LogKind.error, attrs: { error: "Received sigquit from a child process. It usually means the child failed.", failureClass: "other", fatal: true } },
  },
  {
    template: "sglangScheduler.watchdog",
    expect: { kind: LogKind.schedulerWatchdog, dp: 1, tp: 0, attrs: { component: "Scheduler", timeoutS: 300, soft: false, fatal: true, failureClass: "timeout" } },
  },
  {
    template: "sglangScheduler.watchdog_named",
    expect: { kind: LogKind.schedulerWatchdog, attrs: { component: "Scheduler", timeoutS: 300, soft: false, fatal: true } },
  },
  {
    template: "sglangScheduler.watchdog_debug_info",
    more: ["scheduler.cur_batch.batch_size()=1", "self.max_total_num_tokens=1180096, available_size=1180032, evictable_size=0, protected_size=0"],
    expect: { kind: LogKind.schedulerWatchdog, pp: 1, tp: 0, attrs: { component: "Scheduler", report: "debug-info", failureClass: "timeout" } },
  },
  {
    template: "sglangScheduler.watchdog_debug_info",
    sample: 1,
    expect: { kind: LogKind.schedulerWatchdog, tp: 1, attrs: { component: "Scheduler", report: "debug-info" } },
  },
  {
    template: "sglangScheduler.pyspy_dump",
    more: ["Process 163685: sglang::scheduler_TP0", "Python v3.11.14 (/usr/local/python3.11.14/bin/python3.11)", "", 'Thread 163685 (idle): "MainThread"', "    read (libc.so.6)", "    eventfd_read (libc.so.6)"],
    expect: { kind: LogKind.schedulerWatchdog, attrs: { report: "pyspy-dump", pid: 163685, thread: "MainThread (idle)", stuckIn: "read (libc.so.6)" } },
  },
  {
    template: "sglangScheduler.pyspy_dump",
    sample: 1,
    expect: { kind: LogKind.schedulerWatchdog, attrs: { report: "pyspy-dump", pid: 969538 } },
  },
  {
    template: "sglangScheduler.pyspy_failed",
    expect: { kind: LogKind.schedulerWatchdog, dp: 4, tp: 4, attrs: { report: "pyspy-failed", pid: 113688, error: "/bin/bash: line 1: py-spy: command not found" } },
  },
  {
    template: "sglangScheduler.watchdog_named",
    sample: 1,
    expect: { kind: LogKind.schedulerWatchdog, attrs: { component: "TokenizerManager", timeoutS: 600, soft: true } },
  },
  {
    template: "sglangDisaggregation.kv_capacity",
    expect: { kind: LogKind.capacityRejected, rid: RID, attrs: { reason: "kv_capacity", tokens: 131073, capacity: 131072 } },
  },
  // `disaggregation_mode='decode'`: the decode side, the record's role.
  { template: "sglangDisaggregation.server_args", expect: { kind: LogKind.message, role: "decode", attrs: { disaggregationMode: "decode" } } },
  // `disaggregation_mode='null'`: a server that is no PD side names no role.
  { template: "sglangDisaggregation.server_args", sample: 1, expect: { kind: LogKind.message, attrs: { disaggregationMode: "null" } } },
  {
    template: "sglangScheduler.prefetch_revoked_hits",
    expect: { kind: LogKind.prefetchRevoked, rid: RID, attrs: { reason: "insufficient_hits", hits: 0 } },
  },
  {
    template: "sglangScheduler.prefetch_revoked_host_memory",
    expect: { kind: LogKind.prefetchRevoked, rid: RID, attrs: { reason: "host_memory" } },
  },
  {
    template: "sglangScheduler.prefill_batch",
    expect: { kind: LogKind.prefillBatch, role: "prefill", tp: 0, attrs: { "#new-seq": 1, "#inflight-req": 1, "cuda graph": false, "input throughput (token/s)": 178.18, "fwd occupancy": "nan%" } },
  },
  {
    template: "sglangScheduler.prefill_batch",
    sample: 1,
    expect: { kind: LogKind.prefillBatch, role: "prefill", attrs: { "#prealloc-req": 1, "input throughput (token/s)": 1.73 } },
  },
  {
    template: "sglangScheduler.decode_batch",
    expect: { kind: LogKind.decodeBatch, role: "decode", attrs: { "#running-req": 64, "#transfer-req": 9, "gen throughput (token/s)": 3712.55 } },
  },
  {
    template: "uvicorn.access",
    expect: { kind: LogKind.httpAccess, attrs: { level: "INFO", client: "10.10.11.1:41698", method: "POST", path: "/v1/chat/completions", status: 200, reason: "OK", failureClass: undefined } },
  },
  {
    template: "uvicorn.access",
    sample: 1,
    expect: { kind: LogKind.httpAccess, attrs: { level: "INFO", path: "/health_generate", status: 503, reason: "Service Unavailable", failureClass: undefined } },
  },
  {
    template: "uvicorn.access_failed",
    expect: {
      kind: LogKind.httpFailed,
      attrs: { level: "INFO", client: "192.168.0.45:57586", method: "POST", path: "/v1/chat/completions", status: 500, failureClass: "request", error: "POST /v1/chat/completions answered 500 Internal Server Error" },
    },
  },
  {
    template: "uvicorn.access_message_failed",
    expect: { kind: LogKind.httpFailed, attrs: { client: "10.32.6.65:47570", method: "POST", path: "/generate", status: 500, failureClass: "request", error: "POST /generate answered 500 Internal Server Error" } },
  },
  {
    template: "uvicorn.access_message",
    expect: { kind: LogKind.httpAccess, attrs: { client: "10.32.6.65:47558", method: "GET", path: "/health_generate", status: 200, reason: "OK" } },
  },
  // py-spy's dump's first line (ingest/formats/templates/platform/pyspy.ts).
  { template: "pyspy.dump", expect: { kind: LogKind.stackDump, dp: 0, tp: 3, attrs: { pid: 48211, command: "sglang::scheduler_DP0_TP3" } } },
  { template: "pyspy.dump", sample: 1, expect: { kind: LogKind.stackDump, role: "decode", attrs: { pid: 48102 } } },
  // A client's print of the answer (ingest/formats/templates/platform/httpResponse.ts).
  { template: "httpResponse.status_line", expect: { kind: LogKind.httpAccess, attrs: { httpVersion: "1.1", status: 200, reason: "OK", error: undefined } } },
  { template: "httpResponse.status_line", sample: 1, expect: { kind: LogKind.httpAccess, attrs: { httpVersion: "1.0", status: 503, reason: "Service Unavailable", error: undefined } } },
  {
    template: "httpResponse.status_line_failed",
    expect: { kind: LogKind.httpFailed, attrs: { httpVersion: "1.0", status: 500, failureClass: "request", error: "the server answered 500 Internal Server Error" } },
  },
  { template: "httpResponse.status_line_failed", sample: 1, expect: { kind: LogKind.httpFailed, attrs: { status: 502, error: "the server answered 502 Bad Gateway" } } },
  { template: "httpResponse.error_body", expect: { kind: LogKind.httpAccess, attrs: { status: 404, errorType: "NotFoundError", message: "The model `deepseek-v3` does not exist." } } },
  { template: "httpResponse.error_body", sample: 1, expect: { kind: LogKind.httpAccess, attrs: { status: 400, errorType: "BadRequestError" } } },
  {
    template: "httpResponse.error_body_failed",
    expect: { kind: LogKind.httpFailed, attrs: { status: 500, failureClass: "request", error: "the server answered 500 InternalServerError: Internal server error" } },
  },
  {
    template: "httpResponse.error_body_failed",
    sample: 1,
    expect: { kind: LogKind.httpFailed, attrs: { status: 500, message: "KV transfer failed for request 8f2c", errorType: "InternalServerError" } },
  },
  {
    template: "httpResponse.httpx_router_no_workers",
    expect: {
      kind: LogKind.httpFailed,
      attrs: { status: 503, client: "httpx", failureClass: "request", error: "the router answered 503: No available workers (all circuits open or unhealthy)" },
    },
  },
  { template: "httpResponse.httpx_status_failed", expect: { kind: LogKind.httpFailed, attrs: { status: 502, client: "httpx", failureClass: "request", error: "the server answered 502" } } },
  { template: "httpResponse.httpx_status", expect: { kind: LogKind.httpAccess, attrs: { status: 503, client: "httpx", error: undefined } } },
  { template: "httpResponse.httpx_status", sample: 1, expect: { kind: LogKind.httpAccess, attrs: { status: 404, error: undefined } } },

  {
    template: "sglangScheduler.abort_request",
    sample: 1,
    expect: { kind: LogKind.abortRequest, role: "prefill", rid: RID, attrs: { queue: "bootstrap queue" } },
  },
];
