// SGLang's connector base shared by NIXL and Mooncake,
// python/sglang/srt/disaggregation/common/conn.py (read whole at 0094505d;
// docs/protocol.md §3.1): decode's ABORT frames, the bootstrap server and the
// calls to it (`/route`, `/query_dp_ranks`, registration), the heartbeat that
// declares a prefill dead, the per-side timeout hints.

import { LogKind } from "../../../../domain/kinds.js";
import { classifyFailure } from "../../messages/failureClass.js";
import { classifyError } from "../refine.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const COMMON = "disaggregation/common/conn.py";
/** The text a 503 from an unready bootstrap server carries. */
const NOT_REGISTERED = "Prefill server not fully registered yet (3 workers registered).";
const REFUSED =
  "HTTPConnectionPool(host='10.0.3.17', port=8998): Max retries exceeded with url: /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1 (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f2a1c3e5d50>: Failed to establish a new connection: [Errno 111] Connection refused'))";

/** Decode failing to reach the bootstrap server: an HTTP status and body, or the error a request raised. */
function fetchFailed(id: string, head: string, what: string, format: string, source: string, sample: string, raised: boolean): LogTemplate {
  const h = head.replace(/[.]/g, "\\.");
  return {
    id,
    level: "error",
    format,
    source,
    checked: "✔",
    head,
    pattern: raised ? new RegExp(`${h}(?<error>.*)$`, "ys") : new RegExp(`${h}(?<status>\\d{3}), (?<body>.*)$`, "ys"),
    kind: LogKind.bootstrapFetchFailed,
    role: "decode",
    attrs: raised ? { what, error: cap("error") } : { what, status: cap("status", "number"), body: cap("body"), failureClass: "other" },
    ...(raised ? { refine: classifyError } : {}),
    samples: [sample],
  };
}

const templates: LogTemplate[] = [
  {
    id: "sglangCommonConn.abort_sent",
    level: "debug",
    format: "Sent abort notification for room {room} to {rank_ip}:{rank_port}",
    source: `${COMMON} CommonKVReceiver._send_abort_notification @0094505d`,
    checked: "✔",
    head: "Sent abort notification",
    pattern: /Sent abort notification for room (?<room>\d+) to (?<to>\S+)/ys,
    kind: LogKind.abortSent,
    role: "decode",
    room: cap("room"),
    attrs: { to: cap("to") },
    truncated: "abort notification sent line",
    signs: [{ since: "decodeSendsAbort", why: "decode sends ABORT to prefill from #27372 (docs/protocol.md §3.1, §7.1)" }],
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Sent abort notification for room 6555093254675405189 to 10.0.3.17:17003"],
  },
  {
    id: "sglangCommonConn.abort_send_failed",
    level: "debug",
    format: "Failed to send abort notification for room {room}: {e}",
    source: `${COMMON} CommonKVReceiver._send_abort_notification @0094505d`,
    checked: "✔",
    head: "Failed to send abort notification for room ",
    pattern: /Failed to send abort notification for room (?<room>\d+): (?<error>.*)$/ys,
    kind: LogKind.abortSent,
    role: "decode",
    room: cap("room"),
    attrs: { failed: true, error: cap("error") },
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Failed to send abort notification for room 6555093254675405189: Resource temporarily unavailable"],
  },
  fetchFailed(
    "sglangCommonConn.route_status",
    "Failed to get prefill server info: ",
    "route",
    "Failed to get prefill server info: {response.status_code}, {response.text} — e.g. the 503 `Prefill server not fully registered yet ({n} workers registered).` or the 404 `Bootstrap info not found for dp_rank=… cp_rank=… tp_rank=… pp_rank=…`",
    `${COMMON} CommonKVManager.try_ensure_parallel_info, CommonKVReceiver._get_bootstrap_info_from_server @0094505d`,
    `[2026-06-11 14:03:07 DP0 TP3] Failed to get prefill server info: 503, ${NOT_REGISTERED}`,
    false,
  ),
  fetchFailed(
    "sglangCommonConn.dp_ranks_status",
    "Failed to query dp_ranks: ",
    "dp_ranks",
    "Failed to query dp_ranks: {response.status_code}, {response.text}",
    `${COMMON} CommonKVReceiver.query_prefill_dp_ranks @0094505d`,
    "[2026-06-11 14:03:07 DP0 TP3] Failed to query dp_ranks: 500, Internal Server Error",
    false,
  ),
  {
    id: "sglangCommonConn.dp_rank_register_status",
    level: "error",
    format: "Failed to register prefill dp_rank: {response.status_code}, {response.text}",
    source: `${COMMON} CommonKVSender._register_prefill_dp_rank @0094505d`,
    checked: "✔",
    head: "Failed to register prefill dp_rank: ",
    pattern: /Failed to register prefill dp_rank: (?<status>\d{3}), (?<body>.*)$/ys,
    kind: LogKind.bootstrapRegisterFailed,
    role: "prefill",
    attrs: { what: "dp_rank", status: cap("status", "number"), body: cap("body"), failureClass: "other" },
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Failed to register prefill dp_rank: 503, Service Unavailable"],
  },
  {
    id: "sglangCommonConn.dp_rank_register_raised",
    level: "error",
    format: "Failed to register prefill dp_rank: {e}",
    source: `${COMMON} CommonKVSender._register_prefill_dp_rank @0094505d`,
    checked: "✔",
    head: "Failed to register prefill dp_rank: ",
    pattern: /Failed to register prefill dp_rank: (?!\d{3}, )(?<error>.*)$/ys,
    kind: LogKind.bootstrapRegisterFailed,
    role: "prefill",
    attrs: { what: "dp_rank", error: cap("error") },
    refine: classifyError,
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Failed to register prefill dp_rank: [Errno 111] Connection refused"],
  },
  fetchFailed(
    "sglangCommonConn.parallel_info_raised",
    "Error fetching prefill server info from bootstrap: ",
    "parallel_info",
    "Error fetching prefill server info from bootstrap: {e}",
    `${COMMON} CommonKVManager.try_ensure_parallel_info @0094505d`,
    `[2026-06-11 14:03:07 DP0 TP3] Error fetching prefill server info from bootstrap: ${REFUSED}`,
    true,
  ),
  fetchFailed(
    "sglangCommonConn.route_raised",
    "Error fetching prefill info from bootstrap: ",
    "route",
    "Error fetching prefill info from bootstrap: {e}",
    `${COMMON} CommonKVReceiver._get_bootstrap_info_from_server @0094505d, also v0.4 disaggregation/nixl/conn.py`,
    "[2026-06-11 14:03:07 DP0 TP3] Error fetching prefill info from bootstrap: HTTPConnectionPool(host='10.0.3.17', port=8998): Read timed out. (read timeout=5)",
    true,
  ),
  fetchFailed(
    "sglangCommonConn.dp_ranks_raised",
    "Error querying dp_ranks from bootstrap: ",
    "dp_ranks",
    "Error querying dp_ranks from bootstrap: {e}",
    `${COMMON} CommonKVReceiver.query_prefill_dp_ranks @0094505d`,
    `[2026-06-11 14:03:07 DP0 TP3] Error querying dp_ranks from bootstrap: ${REFUSED}`,
    true,
  ),
  {
    id: "sglangCommonConn.register_attempt_status",
    level: "warning",
    format: "Prefill register attempt {attempt + 1}/{max_retries} failed: status {response.status_code}",
    source: `${COMMON} CommonKVManager.register_to_bootstrap @0094505d`,
    checked: "✔",
    head: "Prefill register attempt ",
    pattern: /Prefill register attempt (?<attempt>\d+)\/(?<attempts>\d+) failed: status (?<status>\d{3})$/ys,
    kind: LogKind.bootstrapRegisterFailed,
    role: "prefill",
    attrs: { what: "route", attempt: cap("attempt", "number"), attempts: cap("attempts", "number"), status: cap("status", "number"), failureClass: "other" },
    truncated: "bootstrap registration attempt line",
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Prefill register attempt 2/5 failed: status 500"],
  },
  {
    id: "sglangCommonConn.register_attempt_raised",
    level: "warning",
    format: "Prefill register attempt {attempt + 1}/{max_retries} failed: {cause} (the root cause of the exception chain)",
    source: `${COMMON} CommonKVManager.register_to_bootstrap @0094505d`,
    checked: "✔",
    head: "Prefill register attempt ",
    pattern: /Prefill register attempt (?<attempt>\d+)\/(?<attempts>\d+) failed: (?!status \d{3}$)(?<error>.*)$/ys,
    kind: LogKind.bootstrapRegisterFailed,
    role: "prefill",
    attrs: { what: "route", attempt: cap("attempt", "number"), attempts: cap("attempts", "number"), error: cap("error") },
    refine: classifyError,
    truncated: "bootstrap registration attempt line",
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Prefill register attempt 5/5 failed: [Errno 111] Connection refused"],
  },
  {
    id: "sglangCommonConn.register_gave_up",
    level: "error",
    format: "Prefill instance failed to register to bootstrap server after {max_retries} retries",
    source: `${COMMON} CommonKVManager.register_to_bootstrap @0094505d`,
    checked: "✔",
    head: "Prefill instance failed to register",
    pattern: /Prefill instance failed to register to bootstrap server after (?<attempts>\d+) retries/ys,
    kind: LogKind.bootstrapRegisterFailed,
    role: "prefill",
    attrs: { what: "route", attempts: cap("attempts", "number"), final: true, failureClass: "other" },
    truncated: "bootstrap registration line",
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Prefill instance failed to register to bootstrap server after 5 retries"],
  },
  {
    id: "sglangCommonConn.heartbeat_reconnect",
    level: "info",
    format:
      "Attempting to reconnect to {bootstrap_addr}... (a non-200 or an exception; SGLANG_DISAGGREGATION_HEARTBEAT_MAX_FAILURE in a row, default 2, is a node failure)",
    source: `${COMMON} CommonKVManager._start_heartbeat_checker_thread @0094505d`,
    checked: "✔",
    head: "Attempting to reconnect to ",
    pattern: /Attempting to reconnect to (?<bootstrapAddr>\S+?)\.\.\.$/ys,
    kind: LogKind.heartbeatFailed,
    role: "decode",
    attrs: { bootstrapAddr: cap("bootstrapAddr") },
    truncated: "heartbeat reconnect line",
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Attempting to reconnect to 10.0.3.17:8998..."],
  },
  {
    id: "sglangCommonConn.server_error",
    level: "error (exc_info)",
    format: "Server error: {str(e)} + traceback",
    source: `${COMMON} CommonKVBootstrapServer._run_server @0094505d`,
    checked: "✔",
    head: "Server error: ",
    pattern: /Server error: (?<error>.*)$/ys,
    kind: LogKind.bootstrapServerError,
    role: "prefill",
    attrs: { error: cap("error") },
    refine: (ev, g) => {
      ev.attrs!.failureClass = classifyFailure(undefined, g.error!);
    },
    samples: ["[2026-06-11 14:00:01] Server error: [Errno 98] error while attempting to bind on address ('0.0.0.0', 8998): address already in use"],
  },
  {
    id: "sglangCommonConn.lost_connection",
    level: "error",
    format: "Lost connection with prefill instance (bootstrap_addr: {failed_bootstrap_addr}), {len(affected_rooms)} requests affected",
    source: `${COMMON} CommonKVManager._handle_node_failure @0094505d`,
    checked: "✔",
    head: "Lost connection with prefill instance (",
    pattern: /Lost connection with prefill instance \(bootstrap_addr: (?<bootstrapAddr>[^)]*)\), (?<affected>\d+) requests affected/ys,
    kind: LogKind.nodeFailure,
    role: "decode",
    attrs: { bootstrapAddr: cap("bootstrapAddr"), affected: cap("affected", "number"), failureClass: "transport" },
    truncated: "lost connection line",
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Lost connection with prefill instance (bootstrap_addr: 10.0.3.17:8998), 58 requests affected"],
  },
  {
    id: "sglangCommonConn.bootstrap_timeout_hint",
    level: "warning_once",
    format:
      "Some requests timed out when bootstrapping, which means prefill instances fail to receive the KV indices from the decode instance of this request. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT=600' (10 minutes) to relax the timeout condition. ",
    source: `${COMMON} CommonKVSender._check_bootstrap_timeout @0094505d`,
    checked: "✔",
    head: "Some requests timed out when bootstrapping",
    pattern: /Some requests timed out when bootstrapping/ys,
    kind: LogKind.timeoutWarning,
    role: "prefill",
    // §3.1: the prefill sender's Bootstrapping limit.
    attrs: { phase: "bootstrap", timeoutState: "Bootstrapping" },
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Some requests timed out when bootstrapping, which means prefill instances fail to receive the KV indices from the decode instance of this request. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT=600' (10 minutes) to relax the timeout condition. ",
    ],
  },
  {
    id: "sglangCommonConn.waiting_timeout_hint",
    level: "warning_once",
    format:
      "Some requests fail to receive KV Cache transfer done signal after bootstrapping. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600' (10 minutes) to relax the timeout condition. ",
    source: `${COMMON} CommonKVReceiver._check_waiting_timeout @0094505d`,
    checked: "✔",
    head: "Some requests fail to receive KV Cache transfer done signal after bootstrapping",
    pattern: /Some requests fail to receive KV Cache transfer done signal after bootstrapping/ys,
    kind: LogKind.timeoutWarning,
    role: "decode",
    // §3.1: the decode receiver's WaitingForInput limit.
    attrs: { phase: "waiting", timeoutState: "WaitingForInput" },
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Some requests fail to receive KV Cache transfer done signal after bootstrapping. If a greater mean TTFT is acceptable, you can 'export SGLANG_DISAGGREGATION_WAITING_TIMEOUT=600' (10 minutes) to relax the timeout condition. ",
    ],
  },
];

export const SGLANG_COMMON_CONN: TemplateComponent = {
  name: "sglangCommonConn",
  dialect: "sglang",
  title: "SGLang: connector base (NIXL and Mooncake)",
  intro:
    "`python/sglang/srt/disaggregation/common/conn.py` (read whole at `0094505d`): decode's ABORT frames, the bootstrap server and the calls to it (`/route`, `/query_dp_ranks`, registration), the heartbeat that declares a prefill dead, the per-side timeout hints.",
  templates,
};
