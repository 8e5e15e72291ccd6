// The RDMA verbs provider's own report of a failed work request, printed by the library every RDMA transfer engine
// runs on (Mooncake's, NIXL's UCX, NCCL's IB transport) when a completion queue returns an error: rdma-core's mlx5
// provider (providers/mlx5/cq.c, mlx5_parse_cqe) writes `fprintf(fp, PFX "%s: got completion with error:\n",
// mctx->hostname)` with PFX `mlx5: ` and the machine's host name, then dump_cqe's four lines of the completion
// (`"%08x %08x %08x %08x\n"`), for every error but a flushed request and an exhausted transport retry. The line
// names the machine, not the engine, so the record is the machine's transport error.

import { LogKind } from "../../../../domain/kinds.js";
import type { LogTemplate, TemplateComponent } from "../template.js";
import { cap } from "../template.js";

const ERROR_CQE = /mlx5: (?<hostname>[^\s:]+): got completion with error:\s*$/y;

/** The dump of the failed completion under the provider's line: four words of eight hex digits, four lines. */
const CQE_DUMP_LINE = /^[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{8}\s*$/;

/** The lines that finish the provider's report (the completion's dump), for the record its first line opened. */
export function errorCqeTailOf(head: string): ((line: string) => boolean) | null {
  return head.startsWith("mlx5: ") && head.includes(": got completion with error:") ? (line) => CQE_DUMP_LINE.test(line) : null;
}

const templates: LogTemplate[] = [
  {
    id: "rdmaVerbs.mlx5_error_cqe",
    level: "stderr",
    format: "mlx5: {hostname}: got completion with error: — then the completion's 64 bytes as four lines of `%08x %08x %08x %08x`",
    source: "linux-rdma/rdma-core providers/mlx5/cq.c mlx5_parse_cqe (MLX5_CQE_REQ_ERR, MLX5_CQE_RESP_ERR) and dump_cqe",
    checked: "✔",
    head: "mlx5: ",
    bare: true,
    pattern: ERROR_CQE,
    kind: LogKind.transportError,
    attrs: {
      engine: "verbs",
      errorKind: "mlx5_error_cqe",
      hostname: cap("hostname"),
      error: "an RDMA work request completed with an error (rdma-core's mlx5 provider)",
      failureClass: "transport",
    },
    samples: ["mlx5: gpu-node-3: got completion with error:"],
  },
];

export const RDMA_VERBS: TemplateComponent = {
  name: "rdmaVerbs",
  dialect: "engine",
  title: "RDMA verbs providers",
  intro: "rdma-core's mlx5 provider reporting a failed RDMA work request, under any transfer engine.",
  templates,
};
