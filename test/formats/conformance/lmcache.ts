// LMCache's lines (LMCache/LMCache lmcache/v1/), Python logging behind LMCache's
// prefix and a vLLM or Ray process tag. Expectations written by hand from the
// format strings in lmcache/v1/cache_engine.py and
// lmcache/v1/distributed/storage_controllers/store_controller.py.

import { LogKind } from "../../../domain/kinds.js";
import type { SglangConformanceRow } from "./row.js";

const missing = { engine: "lmcache", errorKind: "retrieve_block_missing", failureClass: "transport" };

export const LMCACHE_ROWS: SglangConformanceRow[] = [
  { template: "lmcache.retrieve_block_missing", expect: { kind: LogKind.transportError, attrs: missing } },
  { template: "lmcache.retrieve_block_missing", sample: 1, expect: { kind: LogKind.transportError, attrs: missing } },
  {
    template: "lmcache.l2_store_failed",
    expect: { kind: LogKind.transportError, attrs: { engine: "lmcache", errorKind: "l2_store_failed", task: 1, adapter: 0, failureClass: "transport" } },
  },
];
