// The C++ transfer-engine messages kvrewind understands (docs/log-templates.md
// "C++ transfer engines"): Mooncake's transfer engine and store, NIXL's agent
// and UCX backend, UCX itself. The caller has stripped the line's prefix (glog
// / absl `E0611 14:03:07.554102 88213 worker_pool.cpp:654] `, or UCX's
// `[sec.usec] [host:pid:tid] file.c:N `) and passes the message and where it
// starts. Each engine's module rejects on the message's first character.

import type { ParsedEvent } from "../../../domain/event.js";
import type { MatchResult } from "../sglang/match.js";
import { parseMooncakeMessage } from "./mooncake.js";
import { parseNixlMessage } from "./nixl.js";
import { parseUcxMessage } from "./ucx.js";

/**
 * Fills `ev` (kind, attrs) from the message at `at`: true when a template
 * matched, false when none did, or the name of a template whose opening
 * words matched while the rest did not (kept as unparsed, reported).
 */
export function parseEngineMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const mooncake = parseMooncakeMessage(msg, at, ev);
  if (mooncake !== false) return mooncake;
  const nixl = parseNixlMessage(msg, at, ev);
  if (nixl !== false) return nixl;
  return parseUcxMessage(msg, at, ev);
}
