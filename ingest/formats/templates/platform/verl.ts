// verl's console metrics line: the trainer's LocalLogger prints, once per step,
// `step:{step}` and each numeric metric as `{key}:{value}`, joined by ` - `
// (verl/utils/logger/aggregate_logger.py concat_dict_to_str, LocalLogger.log;
// the value `{v:.3f}` in older releases, `pprint.pformat(v)` later), behind
// Ray's `(TaskRunner pid=…) ` / `(main_task pid=…) ` tag when the driver runs as
// an actor. The line reports a finished step (or the validation before the
// first, `step:0 - val-…`): information, whatever its values say.

import { LogKind } from "../../../../domain/kinds.js";
import type { LogTemplate, TemplateComponent } from "../template.js";

/** A metric as concat_dict_to_str prints it: a key without spaces, a colon, a Python number (`pformat` or `.3f`). */
const METRIC = String.raw`[^\s]+:(?:-?\d+(?:\.\d*)?(?:e[+-]?\d+)?|-?nan|-?inf|True|False)`;

const templates: LogTemplate[] = [
  {
    id: "verl.step_metrics",
    level: "stdout",
    format: "step:{step} - {key}:{value} - {key}:{value} … — verl's metrics of a finished step (or of the validation before the first), on the console",
    source:
      "verl/utils/logger/aggregate_logger.py concat_dict_to_str (`output = [f\"step:{step}\"]`, `f\"{k}:{pprint.pformat(v)}\"` or `f\"{k}:{v:.3f}\"` for each numeric value, `\" - \".join(output)`), printed by LocalLogger.log (verl-project/verl, index copies)",
    checked: "✔",
    head: "step:",
    pattern: new RegExp(String.raw`step:(?<step>\d+)(?: - ${METRIC})+(?=\s*$)`, "y"),
    kind: LogKind.message,
    attrs: { level: "info", trainer: "verl" },
    refine: (ev, g) => {
      ev.attrs!.step = Number(g.step);
    },
    samples: [
      // verl-project/verl#2060 (the corpus's verl-2060-a): the validation line before the first step.
      "step:0 - val-aux/openai/gsm8k/reward/mean@1:0.565 - val-aux/openai/gsm8k/score/mean@1:0.565 - val-core/openai/gsm8k/acc/mean@1:0.508",
      "step:1 - global_seqlen/min:484245.000 - actor/entropy:0.323 - actor/kl_loss:0.000 - actor/pg_loss:0.001 - actor/grad_norm:0.020 - perf/mfu/actor:0.343 - training/global_step:1.000 - critic/score/mean:0.558 - response_length/mean:288.698",
    ],
  },
];

export const VERL: TemplateComponent = {
  name: "verl",
  dialect: "engine",
  title: "verl's console metrics",
  intro:
    "The line verl's trainer prints on the console after each step: `step:{n}` and its numeric metrics as `key:value`, joined by ` - `. Event: `log.message` at info with `trainer: verl` and `step`; a metric's value is not judged.",
  templates,
};
