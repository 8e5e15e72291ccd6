// torchrun's elastic agent's rows (ingest/formats/templates/platform/torchElastic.ts):
// what the failure summary's `Root Cause (first observed failure):` line must
// give, written by hand from ChildFailedError's _MSG_FORMAT_TEMPLATE
// (torch/distributed/elastic/multiprocessing/errors/__init__.py): the group's
// failure, with no rank of the server's.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const TORCH_ELASTIC_ROWS: EngineConformanceRow[] = [
  {
    template: "torchElastic.root_cause",
    expect: {
      kind: LogKind.crash,
      attrs: {
        fatal: true,
        failureClass: "crash",
        what: "a worker of torchrun's group failed (the elastic agent's ChildFailedError summary)",
        error: "torchrun's worker group failed: the elastic agent's summary names the first worker to fail below this line",
      },
    },
  },
];
