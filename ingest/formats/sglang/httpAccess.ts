// uvicorn access lines under SGLang's log format (docs/protocol.md §1):
//   [%(asctime)s] %(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s
// `levelprefix` is the level name and a colon padded to 9 columns
// (`INFO:    `), `request_line` is `METHOD path HTTP/version`, and
// `status_code` is the code and its reason phrase (`200 OK`; just `599 ` for
// codes without one). With colours on, uvicorn wraps parts in ANSI escapes.
// An unknown client prints as the empty string.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { execAt, type MatchResult } from "./match.js";

const ACCESS = /(INFO|WARNING|ERROR|DEBUG|CRITICAL|TRACE): +(?:(\S+) )?- "(\S+) (.*) HTTP\/([0-9.]+)" (\d{3})(?: (.*))?$/ys;
// uvicorn's colour escapes (use_colors), removed before matching.
const ANSI = /\x1b\[[0-9;]*m/g;

export function parseHttpAccess(line: string, at: number, ev: ParsedEvent): MatchResult {
  const c = line.charCodeAt(at);
  // Level names: INFO, WARNING, ERROR, DEBUG, CRITICAL, TRACE.
  if (c !== 73 && c !== 87 && c !== 69 && c !== 68 && c !== 67 && c !== 84) return false;
  if (line.indexOf(' - "', at) < 0) return false;
  let text = line;
  let from = at;
  if (line.indexOf("\x1b", at) >= 0) {
    text = line.substring(at).replace(ANSI, "");
    from = 0;
  }
  const m = execAt(ACCESS, text, from);
  if (!m) return false;
  ev.kind = LogKind.httpAccess;
  const attrs: Record<string, unknown> = {
    level: m[1],
    client: m[2] ?? "",
    method: m[3],
    path: m[4],
    httpVersion: m[5],
    status: Number(m[6]),
  };
  if (m[7] !== undefined && m[7].length > 0) attrs.reason = m[7];
  ev.attrs = attrs;
  return true;
}
