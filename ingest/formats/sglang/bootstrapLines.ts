// Bootstrap-server lines (docs/log-templates.md "SGLang: bootstrap"): decode
// failing to reach the prefill bootstrap server (`/route`, `/query_dp_ranks`),
// prefill failing to register with it, the heartbeat that decides a prefill
// is dead, the server's own error. Paths are python/sglang/srt/disaggregation/;
// `common/conn.py` since the NIXL/Mooncake common base, `nixl/conn.py` before.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { classifyFailure } from "../messages/failureClass.js";
import { execAt, type MatchResult } from "./match.js";

// common/conn.py CommonKVManager.try_ensure_parallel_info / CommonKVReceiver._get_bootstrap_info_from_server /
// query_prefill_dp_ranks: an HTTP status and the body (503 `Prefill server not fully registered yet (N workers registered).`).
const HTTP_FAILED = /Failed to (get prefill server info|query dp_ranks|register prefill dp_rank): (\d{3}), (.*)$/ys;
// the same, when the request raised (connection refused, timeout).
const ERRORED = /Error (fetching prefill server info|fetching prefill info|querying dp_ranks) from bootstrap: (.*)$/ys;
const DP_RANK_RAISED = /Failed to register prefill dp_rank: (.*)$/ys;
// decode.py DecodePreallocQueue._resolve_pending_reqs (≤15 tries), then every request of that address is aborted.
const GAVE_UP = /Could not fetch prefill parallel info from (\S+) after (\d+) attempts/ys;
// nixl/conn.py NixlKVReceiver.send_metadata.
const NO_PARALLEL_INFO = /Could not fetch prefill parallel info from bootstrap_addr: (\S+)/ys;
// nixl/conn.py NixlKVReceiver.__init__, v0.4-era.
const NO_ENGINE_INFO = /Could not fetch bootstrap info for engine rank: (\d+)/ys;
// common/conn.py CommonKVManager.register_to_bootstrap: 5 attempts with backoff, then the final error.
const ATTEMPT = /Prefill register attempt (\d+)\/(\d+) failed: (?:status (\d{3})|(.*))$/ys;
const GAVE_UP_REGISTER = /Prefill instance failed to register to bootstrap server after (\d+) retries/ys;
// nixl/conn.py NixlKVManager._register_to_bootstrap, v0.4-era.
const OLD_REGISTER = /Prefill Failed to (connect|register) to bootstrap server: (?:(\d{3}), )?(.*)$/ys;
// common/conn.py heartbeat_checker: a non-200 or an exception; SGLANG_DISAGGREGATION_HEARTBEAT_MAX_FAILURE in a row is a node failure.
const RECONNECT = /Attempting to reconnect to (\S+?)\.\.\.$/ys;
// common/conn.py CommonKVBootstrapServer._run_server (logger.error with exc_info: a traceback follows).
const SERVER_ERROR = /Server error: (.*)$/ys;

export function parseBootstrapLine(line: string, at: number, ev: ParsedEvent): MatchResult {
  switch (line.charCodeAt(at)) {
    case 70 /* F */:
      return line.startsWith("Failed to ", at) ? httpFailed(line, at, ev) : false;
    case 69 /* E */:
      return line.startsWith("Error ", at) ? errored(line, at, ev) : false;
    case 67 /* C */:
      return line.startsWith("Could not fetch ", at) ? couldNotFetch(line, at, ev) : false;
    case 80 /* P */:
      return register(line, at, ev);
    case 65 /* A */:
      return line.startsWith("Attempting to reconnect to ", at) ? reconnect(line, at, ev) : false;
    case 83 /* S */:
      return line.startsWith("Server error: ", at) ? serverError(line, at, ev) : false;
    default:
      return false;
  }
}

const WHAT: Record<string, string> = {
  "get prefill server info": "route",
  "fetching prefill server info": "parallel_info",
  "fetching prefill info": "route",
  "query dp_ranks": "dp_ranks",
  "querying dp_ranks": "dp_ranks",
};

function httpFailed(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(HTTP_FAILED, line, at);
  if (m) {
    if (m[1] === "register prefill dp_rank") return registerFailed(ev, { what: "dp_rank", status: Number(m[2]), body: m[3] });
    return fetchFailed(ev, { what: WHAT[m[1]], status: Number(m[2]), body: m[3] });
  }
  const raised = execAt(DP_RANK_RAISED, line, at);
  return raised ? registerFailed(ev, { what: "dp_rank", error: raised[1] }) : false;
}

function errored(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(ERRORED, line, at);
  return m ? fetchFailed(ev, { what: WHAT[m[1]], error: m[2] }) : false;
}

function couldNotFetch(line: string, at: number, ev: ParsedEvent): MatchResult {
  const gaveUp = execAt(GAVE_UP, line, at);
  if (gaveUp) return fetchFailed(ev, { what: "parallel_info", bootstrapAddr: gaveUp[1], attempts: Number(gaveUp[2]) });
  const noInfo = execAt(NO_PARALLEL_INFO, line, at);
  if (noInfo) return fetchFailed(ev, { what: "parallel_info", bootstrapAddr: noInfo[1] });
  const noEngine = execAt(NO_ENGINE_INFO, line, at);
  if (noEngine) return fetchFailed(ev, { what: "route", engineRank: Number(noEngine[1]) });
  return line.startsWith("Could not fetch prefill parallel info", at) ? "bootstrap fetch failure line" : false;
}

function register(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.startsWith("Prefill register attempt ", at)) {
    const m = execAt(ATTEMPT, line, at);
    if (!m) return "bootstrap registration attempt line";
    const fields: Record<string, unknown> = { what: "route", attempt: Number(m[1]), attempts: Number(m[2]) };
    if (m[3] !== undefined) fields.status = Number(m[3]);
    else fields.error = m[4];
    return registerFailed(ev, fields);
  }
  if (line.startsWith("Prefill instance failed to register", at)) {
    const m = execAt(GAVE_UP_REGISTER, line, at);
    if (!m) return "bootstrap registration line";
    return registerFailed(ev, { what: "route", attempts: Number(m[1]), final: true });
  }
  if (!line.startsWith("Prefill Failed to ", at)) return false;
  const m = execAt(OLD_REGISTER, line, at);
  if (!m) return "bootstrap registration line";
  const fields: Record<string, unknown> = { what: "route" };
  if (m[2] !== undefined) {
    fields.status = Number(m[2]);
    fields.body = m[3];
  } else {
    fields.error = m[3];
  }
  return registerFailed(ev, fields);
}

function reconnect(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(RECONNECT, line, at);
  if (!m) return "heartbeat reconnect line";
  ev.kind = LogKind.heartbeatFailed;
  ev.role = "decode";
  ev.attrs = { bootstrapAddr: m[1] };
  return true;
}

function serverError(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(SERVER_ERROR, line, at);
  if (!m) return false;
  ev.kind = LogKind.bootstrapServerError;
  ev.role = "prefill";
  ev.attrs = { error: m[1], failureClass: classifyFailure(undefined, m[1]) };
  return true;
}

function fetchFailed(ev: ParsedEvent, fields: Record<string, unknown>): true {
  ev.kind = LogKind.bootstrapFetchFailed;
  ev.role = "decode";
  ev.attrs = { ...fields, failureClass: failureClassOf(fields) };
  return true;
}

function registerFailed(ev: ParsedEvent, fields: Record<string, unknown>): true {
  ev.kind = LogKind.bootstrapRegisterFailed;
  ev.role = "prefill";
  ev.attrs = { ...fields, failureClass: failureClassOf(fields) };
  return true;
}

/** A raised request is classed by its text (`Connection refused`, `Read timed out`); an HTTP answer or a give-up is `other`. */
function failureClassOf(fields: Record<string, unknown>): string {
  const error = fields.error;
  return typeof error === "string" ? (classifyFailure(undefined, error) ?? "other") : "other";
}
