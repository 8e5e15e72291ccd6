// UCX's own error messages as NIXL's UCX backend surfaces them
// (openucx/ucx; docs/log-templates.md "UCX"). UCX prints
//   [1718093587.554102] [host:88213:0]     ib_mlx5_log.c:177  UCX  ERROR <message>
// (src/ucs/debug/log.c UCS_LOG_FMT); the text here is <message>, with or
// without the `UCX  ERROR ` component and level in front, or the whole line:
// no dialect reads UCX's prefix, so such a line reaches the templates as
// plain text (its time is then inferred from its neighbours). A message with
// `\n` is printed one line per part; only its first line is read here.

import type { ParsedEvent } from "../../../domain/event.js";
import { execAt, type MatchResult } from "../sglang/match.js";
import { engineError } from "./engineEvent.js";

const COMPONENT_LEVEL = /UCX +(ERROR|WARN|DIAG|INFO|DEBUG|FATAL|TRACE\w*) +/y;
// `[sec.usec] [host:pid:thread] file:line ` before the component.
const LINE_PREFIX = /\[\d+\.\d+\] \[[^\]]*\] +[\w.-]+:\d+ +(?=UCX )/y;
// src/uct/ib/mlx5/ib_mlx5_log.c uct_ib_mlx5_completion_with_err: "%s on %s:%d/%s (synd 0x%x vend 0x%x hw_synd %d/%d)".
const MLX5_CQE = /(.+?) on (\S+?):(\d+)\/(IB|RoCE) \(synd 0x([0-9a-f]+) vend 0x([0-9a-f]+) hw_synd (\d+)\/(\d+)\)/ys;
// src/uct/ib/base/ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_MSG (UD, SRD/EFA): "%s completion[%d] with error on %s/%p: %s, vendor_err 0x%x wr_id 0x%lx".
const VERBS_CQE = /(send|recv) completion\[(\d+)\] with error on ([^/\s]+)\/(\S+): (.*?), vendor_err 0x([0-9a-f]+) wr_id 0x([0-9a-f]+)/ys;
// src/uct/ib/rc/verbs/rc_verbs_iface.c: "send completion with error: %s [qpn 0x%x wrid 0x%lx vendor_err 0x%x]".
const RC_VERBS_CQE = /send completion with error: (.*?) \[qpn 0x([0-9a-f]+) wrid 0x([0-9a-f]+) vendor_err 0x([0-9a-f]+)\]/ys;
// src/ucp/core/ucp_ep.c ucp_ep_set_failed: "ep %p: error '%s' on %s will not be handled since no error callback is installed".
const UNHANDLED = /ep (\S+): error '([^']*)' on (.*?) will not be handled since no error callback is installed/ys;

/** First letters of the mlx5 completion-error texts (`Transport retry count exceeded`, `Local protection error`, …). */
const MLX5_FIRST = new Set([66, 71, 73, 76, 77, 82, 84, 87]); // B G I L M R T W

/** The UCX template at `at`; false when the message is none of them. */
export function parseUcxMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const c = msg.charCodeAt(at);
  if (c === 91 /* [ */) {
    const line = isDigit(msg.charCodeAt(at + 1)) ? execAt(LINE_PREFIX, msg, at) : null;
    return line ? parseUcxMessage(msg, at + line[0].length, ev) : false;
  }
  if (c === 85 /* U */) {
    const prefix = execAt(COMPONENT_LEVEL, msg, at);
    return prefix ? parseUcxMessage(msg, at + prefix[0].length, ev) : false;
  }
  if (c === 115 /* s */ || c === 114 /* r */) return completion(msg, at, ev);
  if (c === 101 /* e */) return msg.startsWith("ep ", at) ? unhandled(msg, at, ev) : false;
  if (MLX5_FIRST.has(c) && msg.indexOf(" (synd 0x", at) > 0) return mlx5(msg, at, ev);
  return false;
}

function mlx5(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(MLX5_CQE, msg, at);
  if (!m) return "UCX mlx5 completion error line";
  return engineError(ev, "ucx", "ucx_completion", m[1], {
    localNic: `${m[2]}:${m[3]}`,
    linkLayer: m[4],
    syndrome: `0x${m[5]}`,
    vendorSyndrome: `0x${m[6]}`,
  });
}

function completion(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const verbs = execAt(VERBS_CQE, msg, at);
  if (verbs) {
    return engineError(ev, "ucx", "ucx_completion", verbs[5], {
      direction: verbs[1],
      localNic: verbs[3],
      vendorErr: `0x${verbs[6]}`,
      wrId: `0x${verbs[7]}`,
    });
  }
  const rc = execAt(RC_VERBS_CQE, msg, at);
  if (rc) return engineError(ev, "ucx", "ucx_completion", rc[1], { direction: "send", qpn: `0x${rc[2]}`, vendorErr: `0x${rc[4]}` });
  return msg.startsWith("send completion", at) || msg.startsWith("recv completion", at) ? "UCX completion error line" : false;
}

function unhandled(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(UNHANDLED, msg, at);
  return m ? engineError(ev, "ucx", "ucx_unhandled", m[2], { endpoint: m[1], lane: m[3] }) : false;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
