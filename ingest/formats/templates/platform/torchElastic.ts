// torchrun's elastic agent reporting that its worker group failed: the
// message of the ChildFailedError it raises (torch.distributed.elastic's
// `ChildFailedError.format_msg`), printed with no logger after the agent's
// traceback, between a rule of `=` and the failed workers' entries. Serving
// and test programs started by torchrun (a multi-node NCCL check, DeepEP's
// tests, an SGLang or vLLM launch under torchrun) leave it as the last word of
// a run whose worker died. Its `Root Cause (first observed failure):` line is
// printed by this message only, and only when at least one worker failed; the
// entries under it (`[0]:` and indented `exitcode  : 1 (pid: …)` fields) are
// not read, their lines continuing the entry's record.

import { LogKind } from "../../../../domain/kinds.js";
import type { LogTemplate, TemplateComponent } from "../template.js";

const templates: LogTemplate[] = [
  {
    id: "torchElastic.root_cause",
    kind: LogKind.crash,
    checked: "✔",
    level: "error",
    format: "Root Cause (first observed failure): — the section of torchrun's failure summary that names the first worker to fail; the summary is printed only when a worker of the group failed",
    source:
      "torch/distributed/elastic/multiprocessing/errors/__init__.py _MSG_FORMAT_TEMPLATE, ChildFailedError.format_msg (pytorch/pytorch, index copy 35429618; an older copy, 143561061, titles the section `Root Cause:` and prints it first: not read)",
    head: "Root Cause (first observed failure):",
    bare: true,
    pattern: /Root Cause \(first observed failure\):$/y,
    attrs: {
      what: "a worker of torchrun's group failed (the elastic agent's ChildFailedError summary)",
      fatal: true,
      failureClass: "crash",
      error: "torchrun's worker group failed: the elastic agent's summary names the first worker to fail below this line",
    },
    samples: [
      // pytorch/pytorch#121209 (the corpus's pytorch-121209-a): a four-rank run whose ranks all exited with code 1.
      "Root Cause (first observed failure):",
    ],
  },
];

export const TORCH_ELASTIC: TemplateComponent = {
  name: "torchElastic",
  dialect: "engine",
  title: "torchrun's elastic agent",
  intro:
    "The failure summary torchrun's elastic agent prints, with no logger, when a worker of its group failed (ChildFailedError). Its `Root Cause (first observed failure):` line is the group's failure: `proc.crash` (`fatal`, `failureClass` `crash`, an `error` that says so), judged by process-failure. The rules of `=` and `-`, the title, `Failures:` and the entries under each heading (`[0]:` and its indented fields) are not read.",
  templates,
};
