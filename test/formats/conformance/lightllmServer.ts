// LightLLM's API server's report of its children's init state (ingest/formats/templates/engines/lightllmServer.ts),
// written by hand from lightllm/server/api_server.py main(): `print("router init state:", router_init_state,
// "detoken init state:", detoken_init_state)`, then `sys.exit(1)`; and SGLang's first releases' two-line form of the
// same print. Made only when a child is not `init ok`: the server's start-up failure, an error.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

const failed = (attrs: Record<string, unknown>) => ({ kind: LogKind.error, attrs: { level: "error", failureClass: "other", ...attrs } });

export const LIGHTLLM_SERVER_ROWS: EngineConformanceRow[] = [
  {
    template: "lightllmServer.init_state",
    expect: failed({
      routerState: "'NoneType' object has no attribute 'get'",
      detokenState: "init ok",
      error: "server start-up failed (router: 'NoneType' object has no attribute 'get')",
    }),
  },
  { template: "lightllmServer.init_state", sample: 1, expect: failed({ routerState: "init ok", error: "server start-up failed" }) },
  { template: "lightllmServer.detoken_init_state", expect: failed({ detokenState: "init ok", error: "server start-up failed" }) },
  {
    template: "lightllmServer.detoken_init_state",
    sample: 1,
    expect: failed({ detokenState: "[Errno 98] Address already in use", error: "server start-up failed (detokenizer: [Errno 98] Address already in use)" }),
  },
];
