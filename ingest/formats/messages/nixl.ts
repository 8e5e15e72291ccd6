// NIXL agent and UCX-backend messages (ai-dynamo/nixl; docs/log-templates.md
// "NIXL"). absl `NIXL_ERROR << …` streams; `NIXL_ERROR_FUNC` prefixes the C++
// function name and `: `. Statuses print by name (`NIXL_ERR_REMOTE_DISCONNECT`)
// since 0.6.0 (src/utils/common/operators.h); the agent's per-call messages
// below are 0.6.0+ (earlier agents returned the status without a log line).

import type { ParsedEvent } from "../../../domain/event.js";
import { execAt, type MatchResult } from "../sglang/match.js";
import { engineError } from "./engineEvent.js";

// src/core/nixl_agent.cpp, nixlAgent::<function>.
const FUNC = /([A-Za-z]+): /y;
const BACKEND_STATUS = /backend '([^']*)' returned error status (\S+)$/ys;
const AGENT_DURING = /remote agent '([^']*)' was invalidated during transfer/ys;
const POST_FAILED = /backend '([^']*)' failed to post the transfer request with status (\S+)/ys;
const AGENT_AFTER = /remote agent '([^']*)' was (disconnected|invalidated|re-registered) after transfer request creation/ys;
const NO_METADATA = /metadata for remote agent '([^']*)' not found/ys;
const CONNECT = /connect\('([^']*)'\) failed on backend '([^']*)' with status (\S+)/ys;
const NOTIF_TO = /backend '([^']*)' returned error status (\S+) while sending notification to agent '([^']*)'/ys;
const NOTIF_GET = /backend '([^']*)' returned error status (\S+) while getting notifications/ys;
const LOAD_MD = /error loading remote metadata for agent '([^']*)' with status (\S+)/ys;
// src/plugins/ucx/ucx_utils.cpp (src/utils/ucx/ before 2026-01, #1005): nixlUcxEp::~nixlUcxEp, sendAmCallback.
const DISCONNECT = /Failed to disconnect ep with status (\S+)/ys;
const AM_SEND = /UCX AM send failed with status (-?\d+) \((.*)\)/ys;
// src/plugins/ucx/ucx_enums.cpp ucsToNixlStatus (WARNING): a UCX status with no NIXL equivalent.
const UNEXPECTED_UCX = /Unexpected UCX error: (.*)$/ys;
// src/core/nixl_p2p_metadata_backend.cpp.
const P2P_CONNECT = /P2P backend could not connect to IP (\S+) and port (\d+)/ys;

type Matcher = (msg: string, at: number, ev: ParsedEvent) => MatchResult;

/** `NIXL_ERROR_FUNC` messages by the function that logs them. */
const BY_FUNCTION: Record<string, Matcher> = {
  getXferStatus: (msg, at, ev) => {
    const status = execAt(BACKEND_STATUS, msg, at);
    if (status) return engineError(ev, "nixl", "xfer_status", status[2], { backend: status[1] });
    const agent = execAt(AGENT_DURING, msg, at);
    return agent ? engineError(ev, "nixl", "agent_invalidated", "remote agent invalidated during transfer", { peer: agent[1] }) : false;
  },
  postXferReq: (msg, at, ev) => {
    const post = execAt(POST_FAILED, msg, at);
    if (post) return engineError(ev, "nixl", "post", post[2], { backend: post[1] });
    const agent = execAt(AGENT_AFTER, msg, at);
    return agent ? agentChanged(ev, agent) : false;
  },
  createXferReq: (msg, at, ev) => noMetadata(msg, at, ev),
  prepXferDlist: (msg, at, ev) => noMetadata(msg, at, ev),
  makeConnection: (msg, at, ev) => {
    const connect = execAt(CONNECT, msg, at);
    if (connect) return engineError(ev, "nixl", "connect", connect[3], { peer: connect[1], backend: connect[2] });
    return noMetadata(msg, at, ev);
  },
  genNotif: (msg, at, ev) => {
    const m = execAt(NOTIF_TO, msg, at);
    return m ? engineError(ev, "nixl", "notif_send", m[2], { backend: m[1], peer: m[3] }) : false;
  },
  getNotifs: (msg, at, ev) => {
    const m = execAt(NOTIF_GET, msg, at);
    return m ? engineError(ev, "nixl", "notif_get", m[2], { backend: m[1] }) : false;
  },
  loadRemoteMD: (msg, at, ev) => {
    const m = execAt(LOAD_MD, msg, at);
    return m ? engineError(ev, "nixl", "metadata_load", m[2], { peer: m[1] }) : false;
  },
};

/** The NIXL template at `at`; false when the message is none of them. */
export function parseNixlMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  switch (msg.charCodeAt(at)) {
    case 103 /* g */:
    case 112 /* p */:
    case 99 /* c */:
    case 109 /* m */:
    case 108 /* l */:
      return agentFunction(msg, at, ev);
    case 70 /* F */:
      return msg.startsWith("Failed to disconnect ep", at) ? disconnect(msg, at, ev) : false;
    case 85 /* U */:
      return ucxBackend(msg, at, ev);
    case 80 /* P */:
      return msg.startsWith("P2P backend could not connect", at) ? p2pConnect(msg, at, ev) : false;
    default:
      return false;
  }
}

function agentFunction(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const f = execAt(FUNC, msg, at);
  if (!f) return false;
  const matcher = BY_FUNCTION[f[1]];
  return matcher === undefined ? false : matcher(msg, at + f[0].length, ev);
}

function agentChanged(ev: ParsedEvent, m: RegExpExecArray): MatchResult {
  const change = m[2] === "re-registered" ? "agent_reregistered" : `agent_${m[2]}`;
  return engineError(ev, "nixl", change, `remote agent ${m[2]} after transfer request creation`, { peer: m[1] });
}

function noMetadata(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(NO_METADATA, msg, at);
  return m ? engineError(ev, "nixl", "agent_not_found", "metadata for remote agent not found", { peer: m[1] }) : false;
}

function disconnect(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(DISCONNECT, msg, at);
  return m ? engineError(ev, "nixl", "ucx_disconnect", m[1], {}) : "NIXL endpoint disconnect line";
}

function ucxBackend(msg: string, at: number, ev: ParsedEvent): MatchResult {
  if (msg.startsWith("UCX AM send failed", at)) {
    const m = execAt(AM_SEND, msg, at);
    return m ? engineError(ev, "nixl", "ucx_am_send", m[2], { status: Number(m[1]) }) : "NIXL UCX active-message line";
  }
  if (msg.startsWith("Unexpected UCX error: ", at)) {
    const m = execAt(UNEXPECTED_UCX, msg, at);
    return m ? engineError(ev, "nixl", "ucx_status", m[1], {}) : false;
  }
  return false;
}

function p2pConnect(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(P2P_CONNECT, msg, at);
  return m ? engineError(ev, "nixl", "metadata_connect", "P2P metadata backend could not connect", { peer: `${m[1]}:${m[2]}` }) : "NIXL P2P connect line";
}
