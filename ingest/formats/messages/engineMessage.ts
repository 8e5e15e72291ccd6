// The C++ transfer-engine messages kvrewind understands, read from the
// template table (ingest/formats/templates/: Mooncake's mooncakeTransferEngine,
// mooncakeStore and mooncakeIntegration, 3FS's admin_cli (threeFs), nixlAgent, ucx, NCCL's warnings (nccl), the RDMA verbs provider's failed completions (rdmaVerbs), Open MPI's launcher's report of a dead process (openMpi), torchrun's failure summary (torchElastic), DeepEP's test programs' prints (deepepTests), nccl-tests' summary (ncclTests), LightLLM's API server's report of its children's init state (lightllmServer), gdb's thread notices (gdb), Hydra's hint after a traceback (hydra), verl's console metrics (verl), vLLM's stat logger (vllmStats), Dynamo's runtime errors (dynamoRuntime), sgl-router's failed probes of a worker (sglRouter) and xLLM's master election (xllmService); docs/log-templates.md
// "C++ transfer engines"). The caller has stripped
// the line's prefix (glog / absl `E0611 14:03:07.554102 88213 worker_pool.cpp:654] `,
// or UCX's `[sec.usec] [host:pid:tid] file.c:N `) and passes the message and
// where it starts. Each engine's templates are tried in turn, and an engine
// whose opening words matched a cut-short line ends the search.

import type { ParsedEvent } from "../../../domain/event.js";
import type { MatchResult } from "../sglang/match.js";
import { DEEPEP_TESTS } from "../templates/clusterTests/deepepTests.js";
import { NCCL_TESTS } from "../templates/clusterTests/ncclTests.js";
import { DYNAMO_RUNTIME } from "../templates/platform/dynamoRuntime.js";
import { GDB } from "../templates/platform/gdb.js";
import { LIGHTLLM_SERVER } from "../templates/engines/lightllmServer.js";
import { HYDRA } from "../templates/platform/hydra.js";
import { VERL } from "../templates/platform/verl.js";
import { VLLM_STATS } from "../templates/engines/vllmStats.js";
import { TemplateMatcher } from "../templates/match.js";
import { MOONCAKE_INTEGRATION } from "../templates/engines/mooncakeIntegration.js";
import { MOONCAKE_STORE } from "../templates/engines/mooncakeStore.js";
import { MOONCAKE_TRANSFER_ENGINE } from "../templates/engines/mooncakeTransferEngine.js";
import { NCCL } from "../templates/engines/nccl.js";
import { NIXL_AGENT } from "../templates/engines/nixlAgent.js";
import { OPEN_MPI } from "../templates/platform/openMpi.js";
import { RDMA_VERBS } from "../templates/engines/rdmaVerbs.js";
import { SGL_ROUTER } from "../templates/sglang/sglRouter.js";
import { THREE_FS } from "../templates/engines/threeFs.js";
import { TORCH_ELASTIC } from "../templates/platform/torchElastic.js";
import { UCX, ucxPrefixEnd } from "../templates/engines/ucx.js";
import { XLLM_SERVICE } from "../templates/platform/xllmService.js";

const UCX_TEMPLATES = new TemplateMatcher(UCX.templates);

/**
 * The components' matchers in the order they are tried; a group shares one matcher where its opening words do not
 * overlap (Mooncake's three components, the cluster's test programs). UCX's come last, with its prefix skipped.
 */
const ENGINE_MATCHERS: readonly TemplateMatcher[] = [
  [MOONCAKE_TRANSFER_ENGINE, MOONCAKE_STORE, MOONCAKE_INTEGRATION],
  [THREE_FS],
  [NIXL_AGENT],
  [DYNAMO_RUNTIME],
  [SGL_ROUTER],
  [XLLM_SERVICE],
  [NCCL],
  [RDMA_VERBS],
  [OPEN_MPI],
  [TORCH_ELASTIC],
  [DEEPEP_TESTS, NCCL_TESTS],
  [GDB],
  [LIGHTLLM_SERVER],
  [HYDRA],
  [VERL],
  [VLLM_STATS],
].map((group) => new TemplateMatcher(group.flatMap((c) => c.templates)));

/**
 * Fills `ev` (kind, attrs) from the message at `at`: true when a template
 * matched, false when none did, or the name of a template whose opening
 * words matched while the rest did not (kept as unparsed, reported).
 */
export function parseEngineMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  for (const matcher of ENGINE_MATCHERS) {
    const r = matcher.match(msg, at, ev);
    if (r !== false) return r;
  }
  return parseUcxMessage(msg, at, ev);
}

/** UCX's templates, on the message with or without UCX's place, component and level in front. */
function parseUcxMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const r = UCX_TEMPLATES.match(msg, at, ev);
  if (r !== false) return r;
  const next = ucxPrefixEnd(msg, at);
  return next > at ? parseUcxMessage(msg, next, ev) : false;
}
