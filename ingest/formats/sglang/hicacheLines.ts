// HiCache lines (docs/log-templates.md "SGLang: HiCache"): a storage prefetch
// given up before it could help the request. Both are debug level.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { execAt, type MatchResult } from "./match.js";

// Storage hits below prefetch_threshold, or no host memory for them: logged from
// managers/cache_controller.py (the prefetch thread) in earlier versions, from
// mem_cache/hiradix_cache.py since the check moved there; the text is the same:
//   `Revoking prefetch for request {rid} due to insufficient hits ({n}).`
//   `Revoking prefetch for request {rid} due to host memory allocation failure.`
const REVOKE = /Revoking prefetch for request (\S+) due to (?:insufficient hits \((\d+)\)|(host memory allocation failure))\./ys;

export function parseHicacheLine(line: string, at: number, ev: ParsedEvent): MatchResult {
  if (line.charCodeAt(at) !== 82 /* R */ || !line.startsWith("Revoking prefetch", at)) return false;
  const m = execAt(REVOKE, line, at);
  if (!m) return "HiCache prefetch revoke line";
  ev.kind = LogKind.prefetchRevoked;
  ev.rid = m[1];
  ev.attrs = m[2] !== undefined ? { reason: "insufficient_hits", hits: Number(m[2]) } : { reason: "host_memory" };
  return true;
}
