// The C++ transfer-engine messages kvrewind understands, read from the
// template table (ingest/formats/templates/: Mooncake's mooncakeTransferEngine,
// mooncakeStore and mooncakeIntegration, 3FS's admin_cli (threeFs), nixlAgent, ucx, NCCL's warnings (nccl), the RDMA verbs provider's failed completions (rdmaVerbs), Open MPI's launcher's report of a dead process (openMpi), torchrun's failure summary (torchElastic), DeepEP's test programs' prints (deepepTests), nccl-tests' summary (ncclTests), LightLLM's API server's report of its children's init state (lightllmServer), gdb's thread notices (gdb), Hydra's hint after a traceback (hydra), verl's console metrics (verl), Dynamo's runtime errors (dynamoRuntime), sgl-router's failed probes of a worker (sglRouter) and xLLM's master election (xllmService); docs/log-templates.md
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

/** Mooncake's components' templates, one matcher: their opening words do not overlap. */
const MOONCAKE_TEMPLATES = new TemplateMatcher([...MOONCAKE_TRANSFER_ENGINE.templates, ...MOONCAKE_STORE.templates, ...MOONCAKE_INTEGRATION.templates]);
const THREE_FS_TEMPLATES = new TemplateMatcher(THREE_FS.templates);
const NIXL_TEMPLATES = new TemplateMatcher(NIXL_AGENT.templates);
const UCX_TEMPLATES = new TemplateMatcher(UCX.templates);
const DYNAMO_TEMPLATES = new TemplateMatcher(DYNAMO_RUNTIME.templates);
const NCCL_TEMPLATES = new TemplateMatcher(NCCL.templates);
const RDMA_VERBS_TEMPLATES = new TemplateMatcher(RDMA_VERBS.templates);
const SGL_ROUTER_TEMPLATES = new TemplateMatcher(SGL_ROUTER.templates);
const XLLM_SERVICE_TEMPLATES = new TemplateMatcher(XLLM_SERVICE.templates);
const OPEN_MPI_TEMPLATES = new TemplateMatcher(OPEN_MPI.templates);
const TORCH_ELASTIC_TEMPLATES = new TemplateMatcher(TORCH_ELASTIC.templates);
const CLUSTER_TEST_TEMPLATES = new TemplateMatcher([...DEEPEP_TESTS.templates, ...NCCL_TESTS.templates]);
const GDB_TEMPLATES = new TemplateMatcher(GDB.templates);
const LIGHTLLM_SERVER_TEMPLATES = new TemplateMatcher(LIGHTLLM_SERVER.templates);
const HYDRA_TEMPLATES = new TemplateMatcher(HYDRA.templates);
const VERL_TEMPLATES = new TemplateMatcher(VERL.templates);

/**
 * Fills `ev` (kind, attrs) from the message at `at`: true when a template
 * matched, false when none did, or the name of a template whose opening
 * words matched while the rest did not (kept as unparsed, reported).
 */
export function parseEngineMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const mooncake = MOONCAKE_TEMPLATES.match(msg, at, ev);
  if (mooncake !== false) return mooncake;
  const threeFs = THREE_FS_TEMPLATES.match(msg, at, ev);
  if (threeFs !== false) return threeFs;
  const nixl = NIXL_TEMPLATES.match(msg, at, ev);
  if (nixl !== false) return nixl;
  const dynamo = DYNAMO_TEMPLATES.match(msg, at, ev);
  if (dynamo !== false) return dynamo;
  const router = SGL_ROUTER_TEMPLATES.match(msg, at, ev);
  if (router !== false) return router;
  const xllm = XLLM_SERVICE_TEMPLATES.match(msg, at, ev);
  if (xllm !== false) return xllm;
  const nccl = NCCL_TEMPLATES.match(msg, at, ev);
  if (nccl !== false) return nccl;
  const verbs = RDMA_VERBS_TEMPLATES.match(msg, at, ev);
  if (verbs !== false) return verbs;
  const openMpi = OPEN_MPI_TEMPLATES.match(msg, at, ev);
  if (openMpi !== false) return openMpi;
  const torchElastic = TORCH_ELASTIC_TEMPLATES.match(msg, at, ev);
  if (torchElastic !== false) return torchElastic;
  const clusterTests = CLUSTER_TEST_TEMPLATES.match(msg, at, ev);
  if (clusterTests !== false) return clusterTests;
  const gdb = GDB_TEMPLATES.match(msg, at, ev);
  if (gdb !== false) return gdb;
  const lightllm = LIGHTLLM_SERVER_TEMPLATES.match(msg, at, ev);
  if (lightllm !== false) return lightllm;
  const hydra = HYDRA_TEMPLATES.match(msg, at, ev);
  if (hydra !== false) return hydra;
  const verl = VERL_TEMPLATES.match(msg, at, ev);
  if (verl !== false) return verl;
  return parseUcxMessage(msg, at, ev);
}

/** UCX's templates, on the message with or without UCX's place, component and level in front. */
function parseUcxMessage(msg: string, at: number, ev: ParsedEvent): MatchResult {
  const r = UCX_TEMPLATES.match(msg, at, ev);
  if (r !== false) return r;
  const next = ucxPrefixEnd(msg, at);
  return next > at ? parseUcxMessage(msg, next, ev) : false;
}
