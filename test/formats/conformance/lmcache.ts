// LMCache's lines (LMCache/LMCache lmcache/v1/), Python logging behind LMCache's
// prefix and a vLLM or Ray process tag. Expectations written by hand from the
// format string in lmcache/v1/cache_engine.py.

import { LogKind } from "../../../domain/kinds.js";
import type { SglangConformanceRow } from "./row.js";

const missing = { engine: "lmcache", errorKind: "retrieve_block_missing", failureClass: "transport" };

export const LMCACHE_ROWS: SglangConformanceRow[] = [
  { template: "lmcache.retrieve_block_missing", expect: { kind: LogKind.transportError, attrs: missing } },
  { template: "lmcache.retrieve_block_missing", sample: 1, expect: { kind: LogKind.transportError, attrs: missing } },
];
