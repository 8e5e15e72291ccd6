// NIXL's agent and UCX backend (ai-dynamo/nixl), absl `NIXL_ERROR << …`
// streams: the format is what follows the `E0721 08:06:26.781179    4330
// nixl_agent.cpp:1238] ` prefix. `NIXL_ERROR_FUNC` opens with the C++
// function's name and `: `. Statuses print by name (`NIXL_ERR_BACKEND`) since
// 0.6.0 (src/utils/common/operators.h); the agent's per-call messages are
// 0.6.0+ (earlier agents returned the status without a line). Samples without
// a real log line behind them are written from the stream as the source
// prints it, under the same prefix.

import { LogKind } from "../../../../domain/kinds.js";
import type { ParsedEvent } from "../../../../domain/event.js";
import { engineErrorClass } from "./engineFailure.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

const AGENT_CPP = "src/core/nixl_agent.cpp nixlAgent::";
const UCX_UTILS = "src/plugins/ucx/ucx_utils.cpp (src/utils/ucx/ before #1005, 2026-01)";
const AGENT = "def7d2f1-d482-4cd2-b6de-f238da5a9c70";

function absl(file: string, message: string, level = "E"): string {
  return `${level}0721 08:06:26.781179    4330 ${file}] ${message}`;
}

const error = (errorKind: string, error: unknown = cap("error")) => ({ engine: "nixl", errorKind, error });

function row(t: Omit<LogTemplate, "kind" | "refine" | "checked" | "versions"> & { refine?: LogTemplate["refine"]; versions?: string }): LogTemplate {
  return { checked: "✔", kind: LogKind.transportError, refine: engineErrorClass, ...t };
}

/** `P2P backend could not connect to IP {ip} and port {port}`: the peer as `ip:port`. */
function p2pPeer(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.peer = `${g.ip}:${g.port}`;
  engineErrorClass(ev);
}

function agentChanged(change: string, errorKind: string, file: string): LogTemplate {
  return row({
    id: `nixlAgent.agent_${change.replace("-", "")}`,
    level: "ERROR",
    format: `postXferReq: remote agent '{agent}' was ${change} after transfer request creation`,
    source: `${AGENT_CPP}postXferReq`,
    versions: "0.6.0+",
    head: "postXferReq: ",
    pattern: new RegExp(`postXferReq: remote agent '(?<peer>[^']*)' was ${change} after transfer request creation`, "ys"),
    attrs: { ...error(errorKind, `remote agent ${change} after transfer request creation`), peer: cap("peer") },
    samples: [absl(file, `postXferReq: remote agent '${AGENT}' was ${change} after transfer request creation`)],
  });
}

function notFound(fn: string, file: string): LogTemplate {
  return row({
    id: `nixlAgent.${fn}_agent_not_found`,
    level: "ERROR",
    format: `${fn}: metadata for remote agent '{agent}' not found — after a remote disconnect every new transfer to that agent fails this way (nixl issue #1983)`,
    source: `${AGENT_CPP}${fn}`,
    versions: "0.6.0+",
    head: `${fn}: `,
    pattern: new RegExp(`${fn}: metadata for remote agent '(?<peer>[^']*)' not found`, "ys"),
    attrs: { ...error("agent_not_found", "metadata for remote agent not found"), peer: cap("peer") },
    samples: [absl(file, `${fn}: metadata for remote agent '${AGENT}' not found`)],
  });
}

const templates: LogTemplate[] = [
  row({
    id: "nixlAgent.xfer_status",
    level: "ERROR",
    format: "getXferStatus: backend '{type}' returned error status {status} (a `NIXL_ERR_REMOTE_DISCONNECT` is not logged: the remote agent is invalidated instead)",
    source: `${AGENT_CPP}getXferStatus`,
    versions: "0.6.0+",
    head: "getXferStatus: ",
    pattern: /getXferStatus: backend '(?<backend>[^']*)' returned error status (?<error>\S+)$/ys,
    attrs: { ...error("xfer_status"), backend: cap("backend") },
    samples: [absl("nixl_agent.cpp:1238", "getXferStatus: backend 'UCX' returned error status NIXL_ERR_BACKEND")],
  }),
  row({
    id: "nixlAgent.agent_invalidated_during",
    level: "ERROR",
    format: "getXferStatus: remote agent '{agent}' was invalidated during transfer",
    source: `${AGENT_CPP}getXferStatus`,
    versions: "0.6.0+",
    head: "getXferStatus: ",
    pattern: /getXferStatus: remote agent '(?<peer>[^']*)' was invalidated during transfer/ys,
    attrs: { ...error("agent_invalidated", "remote agent invalidated during transfer"), peer: cap("peer") },
    samples: [absl("nixl_agent.cpp:1225", `getXferStatus: remote agent '${AGENT}' was invalidated during transfer`)],
  }),
  row({
    id: "nixlAgent.post",
    level: "ERROR",
    format: "postXferReq: backend '{type}' failed to post the transfer request with status {status}",
    source: `${AGENT_CPP}postXferReq`,
    versions: "0.6.0+",
    head: "postXferReq: ",
    pattern: /postXferReq: backend '(?<backend>[^']*)' failed to post the transfer request with status (?<error>\S+)/ys,
    attrs: { ...error("post"), backend: cap("backend") },
    samples: [absl("nixl_agent.cpp:1195", "postXferReq: backend 'UCX' failed to post the transfer request with status NIXL_ERR_REMOTE_DISCONNECT")],
  }),
  agentChanged("disconnected", "agent_disconnected", "nixl_agent.cpp:1141"),
  agentChanged("invalidated", "agent_invalidated", "nixl_agent.cpp:1147"),
  agentChanged("re-registered", "agent_reregistered", "nixl_agent.cpp:1153"),
  notFound("createXferReq", "nixl_agent.cpp:866"),
  notFound("prepXferDlist", "nixl_agent.cpp:712"),
  row({
    id: "nixlAgent.connect",
    level: "ERROR",
    format: "makeConnection: connect('{agent}') failed on backend '{type}' with status {status}",
    source: `${AGENT_CPP}makeConnection`,
    versions: "0.6.0+",
    head: "makeConnection: ",
    pattern: /makeConnection: connect\('(?<peer>[^']*)'\) failed on backend '(?<backend>[^']*)' with status (?<error>\S+)/ys,
    attrs: { ...error("connect"), peer: cap("peer"), backend: cap("backend") },
    samples: [absl("nixl_agent.cpp:600", `makeConnection: connect('${AGENT}') failed on backend 'UCX' with status NIXL_ERR_BACKEND`)],
  }),
  notFound("makeConnection", "nixl_agent.cpp:585"),
  row({
    id: "nixlAgent.notif_send",
    level: "ERROR",
    format: "genNotif: backend '{type}' returned error status {status} while sending notification to agent '{agent}'",
    source: `${AGENT_CPP}genNotif`,
    versions: "0.6.0+",
    head: "genNotif: ",
    pattern: /genNotif: backend '(?<backend>[^']*)' returned error status (?<error>\S+) while sending notification to agent '(?<peer>[^']*)'/ys,
    attrs: { ...error("notif_send"), backend: cap("backend"), peer: cap("peer") },
    samples: [absl("nixl_agent.cpp:1433", `genNotif: backend 'UCX' returned error status NIXL_ERR_REMOTE_DISCONNECT while sending notification to agent '${AGENT}'`)],
  }),
  row({
    id: "nixlAgent.notif_get",
    level: "ERROR",
    format: "getNotifs: backend '{type}' returned error status {status} while getting notifications",
    source: `${AGENT_CPP}getNotifs`,
    versions: "0.6.0+",
    head: "getNotifs: ",
    pattern: /getNotifs: backend '(?<backend>[^']*)' returned error status (?<error>\S+) while getting notifications/ys,
    attrs: { ...error("notif_get"), backend: cap("backend") },
    samples: [absl("nixl_agent.cpp:1359", "getNotifs: backend 'UCX' returned error status NIXL_ERR_BACKEND while getting notifications")],
  }),
  row({
    id: "nixlAgent.metadata_load",
    level: "ERROR",
    format: "loadRemoteMD: error loading remote metadata for agent '{agent}' with status {status}",
    source: "src/core/nixl_agent.cpp nixlAgentData::loadRemoteMD",
    versions: "0.6.0+",
    head: "loadRemoteMD: ",
    pattern: /loadRemoteMD: error loading remote metadata for agent '(?<peer>[^']*)' with status (?<error>\S+)/ys,
    attrs: { ...error("metadata_load"), peer: cap("peer") },
    samples: [absl("nixl_agent.cpp:1675", `loadRemoteMD: error loading remote metadata for agent '${AGENT}' with status NIXL_ERR_MISMATCH`)],
  }),
  row({
    id: "nixlAgent.ucx_disconnect",
    level: "ERROR",
    format: "Failed to disconnect ep with status {status} (an int before 0.6.0)",
    source: `${UCX_UTILS} nixlUcxEp::~nixlUcxEp`,
    head: "Failed to disconnect ep",
    pattern: /Failed to disconnect ep with status (?<error>\S+)/ys,
    attrs: error("ucx_disconnect"),
    truncated: "NIXL endpoint disconnect line",
    samples: [absl("ucx_utils.cpp:187", "Failed to disconnect ep with status NIXL_ERR_BACKEND")],
  }),
  row({
    id: "nixlAgent.ucx_am_send",
    level: "ERROR",
    format: "UCX AM send failed with status {ucs_status_t} ({ucs_status_string})",
    source: `${UCX_UTILS} nixlUcxEp::sendAmCallback`,
    head: "UCX AM send failed",
    pattern: /UCX AM send failed with status (?<status>-?\d+) \((?<error>.*)\)/ys,
    attrs: { ...error("ucx_am_send"), status: cap("status", "number") },
    truncated: "NIXL UCX active-message line",
    samples: [absl("ucx_utils.cpp:212", "UCX AM send failed with status -25 (Connection reset by remote peer)")],
  }),
  row({
    id: "nixlAgent.ucx_status",
    level: "WARNING",
    format: "Unexpected UCX error: {ucs_status_string} (a UCX status with no NIXL equivalent → `NIXL_ERR_BACKEND`)",
    source: "src/plugins/ucx/ucx_enums.cpp ucsToNixlStatus",
    head: "Unexpected UCX error: ",
    pattern: /Unexpected UCX error: (?<error>.*)$/ys,
    attrs: error("ucx_status"),
    samples: [absl("ucx_enums.cpp:58", "Unexpected UCX error: Input/output error", "W")],
  }),
  row({
    id: "nixlAgent.bench_xfer_failed",
    level: "stdout",
    format: "NIXL Xfer failed with status: {nixlEnumStrings::statusStr(rc)} — nixlbench's worker, on a transfer that did not end in NIXL_SUCCESS, printed with no prefix",
    source: "benchmark/nixlbench/src/worker/nixl/nixl_worker.cpp execSingleTransfer / executeSingleTransfer callers",
    head: "NIXL Xfer failed with status: ",
    pattern: /NIXL Xfer failed with status: (?<error>\S+)$/ys,
    attrs: error("bench_xfer_failed"),
    samples: ["NIXL Xfer failed with status: NIXL_ERR_CANCELED"],
  }),
  row({
    id: "nixlAgent.metadata_connect",
    level: "ERROR",
    format: "P2P backend could not connect to IP {ip} and port {port}",
    source: "src/core/nixl_p2p_metadata_backend.cpp",
    head: "P2P backend could not connect",
    pattern: /P2P backend could not connect to IP (?<ip>\S+) and port (?<port>\d+)/ys,
    attrs: error("metadata_connect", "P2P metadata backend could not connect"),
    refine: p2pPeer,
    truncated: "NIXL P2P connect line",
    samples: [absl("nixl_p2p_metadata_backend.cpp:325", "P2P backend could not connect to IP 10.99.91.49 and port 5555")],
  }),
];

export const NIXL_AGENT: TemplateComponent = {
  name: "nixlAgent",
  dialect: "engine",
  sourceFiles: /^(?:nixl\w*|\w+_backend|\w+_utils)\.cpp$/,
  engine: "nixl",
  title: "NIXL",
  intro:
    "`ai-dynamo/nixl`, absl. Event: `xfer.error` (`engine: nixl`, `errorKind`, `error`, the fields named, `failureClass`). `UCS_ERR_NOT_CONNECTED`, `UCS_ERR_CONNECTION_RESET`, `UCS_ERR_ENDPOINT_TIMEOUT` and (UCX ≥ 1.21) `UCS_ERR_CANCELED` map to `NIXL_ERR_REMOTE_DISCONNECT` (`ucx_enums.cpp`); that is the status SGLang prints in `NIXL transport error for room …`.",
  templates,
};
