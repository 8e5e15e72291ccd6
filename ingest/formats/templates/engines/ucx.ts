// UCX's own error messages (openucx/ucx) as NIXL's UCX backend and UCX-based
// NCCL plugins surface them. UCX prints
//   [1718093587.554102] [host:88213:0]     ib_mlx5_log.c:177  UCX  ERROR <message>
// (src/ucs/debug/log.c UCS_LOG_FMT); the templates match <message>, after
// `ucxPrefixEnd` has stepped over the time, place, component and level. A
// message with `\n` is printed one line per part; only its first line is read.
// One row reads a DEBUG line: the worker's error handler, which UCT calls when a
// transport endpoint failed and which sets the UCP endpoint failed with that
// status. When the application installed an error callback (peer error handling,
// as NIXL and UCX-Py do) UCX prints nothing else of the failure, so at
// UCX_LOG_LEVEL=debug this line is its record; without a callback the error-level
// `… will not be handled since no error callback is installed` follows.

import { LogKind } from "../../../../domain/kinds.js";
import { engineErrorClass } from "./engineFailure.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const COMPONENT_LEVEL = /UCX +(?:ERROR|WARN|DIAG|INFO|DEBUG|FATAL|TRACE\w*) +/y;
// `[sec.usec] [host:pid:thread] file:line ` before the component; the `[host:pid:thread]` part may be missing (../../log/dialects/otherDialects.ts).
const LINE_PREFIX = /\[\d+\.\d+\] (?:\[[^\]]*\] +)?[\w.-]+:\d+ +(?=UCX )/y;

/**
 * Where the message starts after the UCX prefix part at `at` (the line's
 * place, or the component and level); `at` when there is none.
 */
export function ucxPrefixEnd(msg: string, at: number): number {
  const c = msg.charCodeAt(at);
  let re: RegExp;
  if (c === 91 /* [ */) {
    const d = msg.charCodeAt(at + 1);
    if (d < 48 || d > 57) return at;
    re = LINE_PREFIX;
  } else if (c === 85 /* U */) re = COMPONENT_LEVEL;
  else return at;
  re.lastIndex = at;
  return re.exec(msg) === null ? at : re.lastIndex;
}

/** The message after a UCX sample line's prefix. */
export function ucxMessageStart(line: string): number {
  let at = 0;
  for (let next = ucxPrefixEnd(line, at); next > at; next = ucxPrefixEnd(line, at)) at = next;
  return at;
}

function ucx(file: string, message: string): string {
  return `[1784621081.896649] [prefill-0:537  :1] ${file.padStart(17)} UCX  ERROR ${message}`;
}

/** A sample printed at DEBUG (`UCX_LOG_LEVEL=debug`): the failure is reported below the error level. */
function ucxDebug(file: string, message: string): string {
  return `[1784621081.896651] [prefill-0:537  :1] ${file.padStart(17)} UCX  DEBUG ${message}`;
}

const error = (errorKind: string) => ({ engine: "ucx", errorKind, error: cap("error") });

function row(t: Omit<LogTemplate, "kind" | "refine" | "checked" | "level"> & { checked?: string; level?: string }): LogTemplate {
  return { checked: "✔", level: "ERROR", kind: LogKind.transportError, refine: engineErrorClass, ...t };
}

/** The mlx5 completion-error texts (`Transport retry count exceeded`, `Local protection error`, …) start with one of these. */
const MLX5_FIRST = "BGILMRTW";

const templates: LogTemplate[] = [
  row({
    id: "ucx.mlx5_completion",
    format:
      "{err} on {dev}:{port}/{IB|RoCE} (synd 0x{s} vend 0x{v} hw_synd {t}/{e}) then `\\n{qp type} QP 0x{qpn} wqe[{i}]: …` — `{err}` is `Transport retry count exceeded`, `Receive-no-ready retry count exceeded`, `Remote access error`, `Remote operation error`, `Remote side aborted`, `Local protection error`, `Local length error`, `Local QP operation error`, `Bad response`, `Invalid request`, `Local access error`, `Memory window bind error`, `Generic`",
    source: "src/uct/ib/mlx5/ib_mlx5_log.c uct_ib_mlx5_completion_with_err",
    versions: "v1.15–v1.22 alike",
    head: (line, at) => line.indexOf(" (synd 0x", at) > 0,
    firstChars: MLX5_FIRST,
    pattern:
      /(?<error>.+?) on (?<localNic>\S+?:\d+)\/(?<linkLayer>IB|RoCE) \(synd (?<syndrome>0x[0-9a-f]+) vend (?<vendorSyndrome>0x[0-9a-f]+) hw_synd \d+\/\d+\)/ys,
    attrs: { ...error("ucx_completion"), localNic: cap("localNic"), linkLayer: cap("linkLayer"), syndrome: cap("syndrome"), vendorSyndrome: cap("vendorSyndrome") },
    truncated: "UCX mlx5 completion error line",
    samples: [ucx("ib_mlx5_log.c:177", "Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)")],
  }),
  row({
    id: "ucx.verbs_completion",
    format: "{send|recv} completion[{i}] with error on {dev}/{iface ptr}: {wc status}, vendor_err 0x{v} wr_id 0x{w} (UD, SRD on EFA)",
    source: "src/uct/ib/base/ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_MSG",
    checked: "✔ (and nixl issue #1983)",
    head: (line, at) => line.startsWith("send completion", at) || line.startsWith("recv completion", at),
    firstChars: "sr",
    pattern:
      /(?<direction>send|recv) completion\[\d+\] with error on (?<localNic>[^/\s]+)\/\S+: (?<error>.*?), vendor_err (?<vendorErr>0x[0-9a-f]+) wr_id (?<wrId>0x[0-9a-f]+)/ys,
    attrs: { ...error("ucx_completion"), direction: cap("direction"), localNic: cap("localNic"), vendorErr: cap("vendorErr"), wrId: cap("wrId") },
    truncated: "UCX completion error line",
    samples: [ucx("srd_iface.c:221", "send completion[0] with error on rdmap97s0/0x55f9afe62400: Work Request Flushed Error, vendor_err 0x1 wr_id 0x7f6764057500")],
  }),
  row({
    id: "ucx.rc_verbs_completion",
    format: "send completion with error: {ibv_wc_status_str} [qpn 0x{q} wrid 0x{w} vendor_err 0x{v}] then `\\n{peer info}`",
    source: "src/uct/ib/rc/verbs/rc_verbs_iface.c uct_rc_verbs_handle_failure",
    head: "send completion with error: ",
    pattern: /send completion with error: (?<error>.*?) \[qpn (?<qpn>0x[0-9a-f]+) wrid 0x[0-9a-f]+ vendor_err (?<vendorErr>0x[0-9a-f]+)\]/ys,
    attrs: { ...error("ucx_completion"), direction: "send", qpn: cap("qpn"), vendorErr: cap("vendorErr") },
    truncated: "UCX completion error line",
    samples: [ucx("rc_verbs_iface.c:125", "send completion with error: transport retry counter exceeded [qpn 0x1a2b wrid 0x7f3c vendor_err 0x81]")],
  }),
  row({
    id: "ucx.ep_unhandled",
    format: "ep {ptr}: error '{ucs_status_string}' on {tl/dev|CM lane|NULL lane} will not be handled since no error callback is installed",
    source: "src/ucp/core/ucp_ep.c ucp_ep_set_failed",
    head: "ep ",
    pattern: /ep (?<endpoint>\S+): error '(?<error>[^']*)' on (?<lane>.*?) will not be handled since no error callback is installed/ys,
    attrs: { ...error("ucx_unhandled"), endpoint: cap("endpoint"), lane: cap("lane") },
    samples: [ucx("ucp_ep.c:1661", "ep 0x7f8b20022480: error 'Endpoint timeout' on rc_mlx5/mlx5_0:1 will not be handled since no error callback is installed")],
  }),
  row({
    id: "ucx.worker_ep_failed",
    level: "DEBUG",
    format: "worker {worker ptr}: error handler called for uct_ep {uct ep ptr}: {ucs_status_string}",
    source: "src/ucp/core/ucp_worker.c ucp_worker_iface_error_handler (the UCT interface's error handler; index copies print it alike)",
    head: "worker ",
    pattern: /worker (?<worker>0x[0-9a-f]+|\(nil\)): error handler called for uct_ep (?<endpoint>0x[0-9a-f]+|\(nil\)): (?<error>\S.*)/ys,
    attrs: { ...error("ucx_ep_failed"), endpoint: cap("endpoint") },
    samples: [ucxDebug("ucp_worker.c:569", "worker 0x55d0c1a3e8b0: error handler called for uct_ep 0x55d0c1b2f010: Destination is unreachable")],
  }),
];

export const UCX: TemplateComponent = {
  name: "ucx",
  dialect: "engine",
  sourceFiles: /^(?:ib_\w+|rc_\w+|ud_\w+|dc_\w+|uct_\w+|ucp_\w+|tcp_\w+|cuda_\w+)\.c$/,
  engine: "ucx",
  title: "UCX",
  intro:
    "`openucx/ucx`. These are printed by UCX itself (NIXL's UCX backend and UCX-based NCCL plugins); whether they reach the log depends on `UCX_LOG_LEVEL` and on the endpoint's error-handling mode. Event: `xfer.error` (`engine: ucx`, `errorKind`, `error`, the fields named, `failureClass`).",
  templates,
};
