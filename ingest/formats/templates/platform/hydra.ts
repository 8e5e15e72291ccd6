// Hydra's hint after the traceback it printed for a task that raised
// (hydra/_internal/utils.py run_and_report): when HYDRA_FULL_ERROR is not set,
// Hydra prints the exception with its own frames stripped, then this line to
// stderr, and exits 1. RL trainers launched through Hydra (verl's main_ppo and
// its forks) end their driver's failure so. The line is a hint, not the failure:
// the exception above it is read as the failure it is.

import { LogKind } from "../../../../domain/kinds.js";
import type { LogTemplate, TemplateComponent } from "../template.js";

const templates: LogTemplate[] = [
  {
    id: "hydra.full_error_hint",
    level: "stderr",
    format: "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace. — Hydra's hint after the exception it printed",
    source: "hydra/_internal/utils.py run_and_report (`sys.stderr.write(\"\\nSet the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.\\n\")`, facebookresearch/hydra 00480e94, index copy)",
    checked: "✔",
    head: "Set the environment variable HYDRA_FULL_ERROR=1 ",
    pattern: /Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace\.(?=\s*$)/y,
    kind: LogKind.message,
    attrs: { level: "info", launcher: "hydra", what: "Hydra's hint after the traceback it printed" },
    samples: [
      // verl-project/verl#2965 (the corpus's verl-2965-a): after a Gloo error's traceback in verl's SGLang rollout.
      "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.",
    ],
  },
];

export const HYDRA: TemplateComponent = {
  name: "hydra",
  dialect: "engine",
  title: "Hydra's hint after a task's traceback",
  intro:
    "The line Hydra writes to stderr after the traceback of a task that raised, when `HYDRA_FULL_ERROR` is not set (verl's and other trainers' drivers are Hydra apps). Event: `log.message` at info with `launcher: hydra`; the exception above it is the failure.",
  templates,
};
