// 3FS (deepseek-ai/3FS), the file system SGLang's HiCache can keep its KV
// pages in (HiCacheHF3FS): admin_cli's report of a failed command, printed
// with no logger. 3FS's own log lines (`[time thread:tid file:line LEVEL] `)
// are a dialect of their own (../../log/dialects/threeFsHead.ts): an error-level one no
// row reads is still 3FS's failure (../../log/unread.ts).

import { LogKind } from "../../../../domain/kinds.js";
import { engineErrorClass } from "./engineFailure.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

const templates: LogTemplate[] = [
  {
    id: "threeFs.admin_cli_error",
    level: "stdout",
    format: "Encounter error: {code}({StatusCode::toString(code)}) — then, on the next line, the error's message when it has one",
    source: "src/client/cli/common/Dispatcher.cc print (`fmt::format(\"Encounter error: {}({})\", …)`), 3FS main `e2cef822`",
    checked: "✔",
    head: "Encounter error: ",
    pattern: /Encounter error: (?<error>(?<code>\d+)\((?<status>[\w:]*)\))/y,
    kind: LogKind.transportError,
    attrs: { engine: "3fs", errorKind: "admin_cli", statusCode: cap("code", "number"), statusName: cap("status"), error: cap("error") },
    refine: engineErrorClass,
    samples: [
      // deepseek-ai/3FS#184: admin_cli before mgmtd had elected a primary.
      "Encounter error: 6004(MgmtdClient::RoutingInfoNotReady)",
    ],
  },
];

export const THREE_FS: TemplateComponent = {
  name: "threeFs",
  dialect: "engine",
  title: "3FS",
  intro:
    "`deepseek-ai/3FS`, the storage backend of SGLang's HiCache (`--hicache-storage-backend hf3fs`): admin_cli's failed command. 3FS's own log lines carry their level (see [Other loggers' prefixes](#other-loggers-prefixes)); an ERROR, CRITICAL or FATAL one is 3FS's failure whatever it says. Event: `xfer.error` (`engine: 3fs`, `errorKind`, `error`, `failureClass`: a failure of the KV cache's storage, judged by transport-failure as Mooncake store's and LMCache's are).",
  templates,
};
