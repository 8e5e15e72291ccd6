// NVIDIA Dynamo's Rust runtime (ai-dynamo/dynamo lib/runtime/): the errors its
// request routing returns, which the frontend logs under its `tracing` prefix
// or a user pastes on their own. The templates match the error's text where
// the message starts.

import { LogKind } from "../../../../domain/kinds.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const templates: LogTemplate[] = [
  {
    id: "dynamoRuntime.no_instances",
    kind: LogKind.error,
    checked: "✔",
    level: "(an error value; the logger's level where one logs it)",
    format: "no instances found for endpoint {endpoint} — the endpoint's path as `{:?}` (`\"instances/dynamo/Frontend/chat/completions\"`) or its id; the request is not routed: no worker of that endpoint is registered",
    source: "lib/runtime/src/pipeline/network/egress/push_router.rs PushRouter::round_robin / PushRouter::random (`anyhow!`)",
    head: "no instances found for endpoint",
    pattern: /no instances found for endpoint (?<endpoint>.*)$/ys,
    attrs: { error: "no instances found for endpoint", endpoint: cap("endpoint"), failureClass: "other" },
    samples: ['no instances found for endpoint "instances/dynamo/Frontend/chat/completions"'],
  },
];

export const DYNAMO_RUNTIME: TemplateComponent = {
  name: "dynamoRuntime",
  dialect: "engine",
  title: "NVIDIA Dynamo runtime",
  intro:
    "`ai-dynamo/dynamo` `lib/runtime/`: errors its request routing returns, read where a message starts (on their own, or after another logger's prefix). Such an error value is the request's failure whichever level the line that prints it states. Event: `log.error` (`error`, the fields named, `failureClass`).",
  templates,
};
