// The template table: every log template kvrewind reads, one file per source
// component, registered here in the order they are tried (a component is one
// line below; a template is one row of its file). The components sit by family:
// sglang/ (SGLang's own modules and its router), engines/ (the transfer engines,
// collectives and caches beside it: Mooncake, NIXL, UCX, NCCL, torch c10d, DeepEP,
// 3FS, LMCache, the RDMA verbs provider), clusterTests/ (the programs an operator runs to check a cluster: DeepEP's tests, nccl-tests), platform/ (what runs them: the kernel, Slurm, Open MPI's and torchrun's launchers, Ray, uvicorn, an HTTP client's print, py-spy's dump,
// Dynamo's and xLLM's runtimes, LightLLM's API server's start-up report, systemd, supervisord, the kubelet). This folder holds the machinery that reads them. The log parser, the
// profile's version signs, the conformance tests and docs/log-templates.md
// all read these rows.

import { DEEPEP } from "./engines/deepep.js";
import { DEEPEP_TESTS } from "./clusterTests/deepepTests.js";
import { NCCL_TESTS } from "./clusterTests/ncclTests.js";
import { DYNAMO_RUNTIME } from "./platform/dynamoRuntime.js";
import { GDB } from "./platform/gdb.js";
import { HYDRA } from "./platform/hydra.js";
import { VERL } from "./platform/verl.js";
import { HTTP_RESPONSE } from "./platform/httpResponse.js";
import { KERNEL } from "./platform/kernel.js";
import { KERNEL_DEVICES } from "./platform/kernelDevices.js";
import { KUBELET } from "./platform/kubelet.js";
import { LIGHTLLM_SERVER } from "./engines/lightllmServer.js";
import { VLLM_STATS } from "./engines/vllmStats.js";
import { LMCACHE } from "./engines/lmcache.js";
import { TemplateMatcher } from "./match.js";
import { MOONCAKE_INTEGRATION } from "./engines/mooncakeIntegration.js";
import { MOONCAKE_STORE } from "./engines/mooncakeStore.js";
import { MOONCAKE_TRANSFER_ENGINE } from "./engines/mooncakeTransferEngine.js";
import { NCCL } from "./engines/nccl.js";
import { NIXL_AGENT } from "./engines/nixlAgent.js";
import { OPEN_MPI } from "./platform/openMpi.js";
import { PYSPY } from "./platform/pyspy.js";
import { RAY } from "./platform/ray.js";
import { RDMA_VERBS } from "./engines/rdmaVerbs.js";
import { SGLANG_COMMON_CONN } from "./sglang/sglangCommonConn.js";
import { SGLANG_DISAGGREGATION } from "./sglang/sglangDisaggregation.js";
import { SGLANG_MOONCAKE } from "./sglang/sglangMooncake.js";
import { SGLANG_NIXL } from "./sglang/sglangNixl.js";
import { SGLANG_SCHEDULER } from "./sglang/sglangScheduler.js";
import { SGL_ROUTER } from "./sglang/sglRouter.js";
import { SLURM } from "./platform/slurm.js";
import { SUPERVISORD } from "./platform/supervisord.js";
import { SYSTEMD } from "./platform/systemd.js";
import type { Dialect, LogTemplate, TemplateComponent } from "./template.js";
import { THREE_FS } from "./engines/threeFs.js";
import { TORCH_C10D } from "./engines/torchC10d.js";
import { TORCH_ELASTIC } from "./platform/torchElastic.js";
import { UCX } from "./engines/ucx.js";
import { UVICORN } from "./platform/uvicorn.js";
import { XLLM_SERVICE } from "./platform/xllmService.js";

export const COMPONENTS: readonly TemplateComponent[] = [
  SGLANG_SCHEDULER,
  SGLANG_DISAGGREGATION,
  SGLANG_NIXL,
  SGLANG_MOONCAKE,
  SGLANG_COMMON_CONN,
  UVICORN,
  HTTP_RESPONSE,
  PYSPY,
  LMCACHE,
  MOONCAKE_TRANSFER_ENGINE,
  MOONCAKE_STORE,
  MOONCAKE_INTEGRATION,
  THREE_FS,
  NIXL_AGENT,
  UCX,
  TORCH_C10D,
  DEEPEP,
  DEEPEP_TESTS,
  NCCL_TESTS,
  NCCL,
  RDMA_VERBS,
  DYNAMO_RUNTIME,
  SGL_ROUTER,
  XLLM_SERVICE,
  KERNEL,
  KERNEL_DEVICES,
  SLURM,
  OPEN_MPI,
  TORCH_ELASTIC,
  GDB,
  LIGHTLLM_SERVER,
  VLLM_STATS,
  HYDRA,
  VERL,
  RAY,
  SYSTEMD,
  SUPERVISORD,
  KUBELET,
];

export const TEMPLATES: readonly LogTemplate[] = COMPONENTS.flatMap((c) => c.templates);

export function templatesOf(dialect: Dialect): LogTemplate[] {
  return COMPONENTS.filter((c) => c.dialect === dialect).flatMap((c) => c.templates);
}

/** SGLang's message templates, tried on the message after a line's prefix. */
export const SGLANG_TEMPLATES = new TemplateMatcher(templatesOf("sglang"));

/** torch c10d's watchdog templates, tried on glog/absl/c10 messages before the transfer engines' (ingest/formats/log/messages.ts). */
export const TORCH_TEMPLATES = new TemplateMatcher(TORCH_C10D.templates);

/** DeepEP's kernel timeouts, tried on glog/absl/c10 messages and lines of no logger after torch's watchdog (ingest/formats/log/messages.ts). */
export const DEEPEP_TEMPLATES = new TemplateMatcher(DEEPEP.templates);

/** The kernel's templates, tried on a line of the kernel's log (a `dmesg` stamp, a syslog line of `kernel`) before every other set. */
export const KERNEL_TEMPLATES = new TemplateMatcher(templatesOf("kernel"));

/** Slurm's templates, tried on the message of a line srun or slurmstepd wrote (`srun: error: `), and no other set. */
export const SLURM_TEMPLATES = new TemplateMatcher(templatesOf("slurm"));

/** Ray's templates, tried last on a line of any other logger (a raylet's line forwarded behind its `(raylet) ` tag, Ray's C++ prefix). */
export const RAY_TEMPLATES = new TemplateMatcher(templatesOf("ray"));

/**
 * What the programs that run the servers report of them, tried after Ray's on a line of any other logger: systemd's
 * (a journal's `systemd[1]: ` lines), supervisord's (its `INFO exited: …`) and the kubelet's events.
 */
export const SERVICE_MANAGER_TEMPLATES = new TemplateMatcher([...templatesOf("systemd"), ...templatesOf("supervisord"), ...templatesOf("kubelet")]);
