// LightLLM's API server (ModelTC/LightLLM lightllm/server/api_server.py main()), and SGLang's first
// releases, whose launch_server copied it: the server starts the router and the detokenizer as child
// processes, waits for each to send its init state down a pipe, and when either is not `init ok` kills
// both, prints the two states with print() (no logger, no time) and exits with status 1. The print is
// made only on that path, so the line is the server's start-up failure whatever the states say; a
// state that is not `init ok` is the child's error (its exception's str, e.g. `'NoneType' object has
// no attribute 'get'`). LightLLM prints both states on one line; SGLang printed them on two.

import { LogKind } from "../../../../domain/kinds.js";
import type { ParsedEvent } from "../../../../domain/event.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

/** The state a child reports when it loaded its model and is serving. */
const INIT_OK = "init ok";

/** `error` names the children whose state is not `init ok` (both, when the line says neither). */
function refineInitState(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  const failed: string[] = [];
  if (g.router !== undefined && g.router !== INIT_OK) failed.push(`router: ${g.router}`);
  if (g.detoken !== undefined && g.detoken !== INIT_OK) failed.push(`detokenizer: ${g.detoken}`);
  attrs.error = failed.length > 0 ? `server start-up failed (${failed.join("; ")})` : "server start-up failed";
}

const SOURCE =
  "lightllm/server/api_server.py main() (`if router_init_state != \"init ok\" or detoken_init_state != \"init ok\": proc_router.kill(); proc_detoken.kill(); print(\"router init state:\", router_init_state, \"detoken init state:\", detoken_init_state); sys.exit(1)`) (ModelTC/LightLLM, index copy); SGLang's early python/sglang/srt/server.py launch_server (the same test, `print(\"router init state:\", router_init_state)` and `print(\"detoken init state:\", detoken_init_state)` on two lines, then `sys.exit(1)`) (index copies)";

const templates: LogTemplate[] = [
  {
    id: "lightllmServer.init_state",
    kind: LogKind.error,
    checked: "✔",
    level: "stdout (print), made only when the server gives up its start-up",
    format:
      "router init state: {router}[ detoken init state: {detoken}] — the router's (and, on LightLLM's one line, the detokenizer's) init state, printed only when one of them is not `init ok`; the server has killed both children and exits with status 1",
    source: SOURCE,
    head: "router init state: ",
    pattern: /router init state: (?<router>.*?)(?: detoken init state: (?<detoken>.*?))?\s*$/ys,
    attrs: { level: "error", routerState: cap("router"), detokenState: cap("detoken"), failureClass: "other" },
    refine: refineInitState,
    samples: [
      // ModelTC/LightLLM#39 (the corpus's lightllm-39-a): the router died loading a model directory without its config.
      "router init state: 'NoneType' object has no attribute 'get' detoken init state: init ok",
      "router init state: init ok",
    ],
  },
  {
    id: "lightllmServer.detoken_init_state",
    kind: LogKind.error,
    checked: "✔",
    level: "stdout (print), made only when the server gives up its start-up",
    format:
      "detoken init state: {detoken} — SGLang's second line of the same report (its first is `router init state: {router}`), printed only when one child is not `init ok`; the server exits with status 1",
    source: SOURCE,
    head: "detoken init state: ",
    pattern: /detoken init state: (?<detoken>.*?)\s*$/ys,
    attrs: { level: "error", detokenState: cap("detoken"), failureClass: "other" },
    refine: refineInitState,
    samples: ["detoken init state: init ok", "detoken init state: [Errno 98] Address already in use"],
  },
];

export const LIGHTLLM_SERVER: TemplateComponent = {
  name: "lightllmServer",
  dialect: "engine",
  title: "LightLLM's API server: the children's init state",
  intro:
    "`ModelTC/LightLLM` `lightllm/server/api_server.py` (and SGLang's first releases, which copied it): the server's print of its router's and detokenizer's init states, made with no logger and only when one is not `init ok`, before it kills both and exits with status 1. Event: `log.error` (`error` naming the children that failed and their states, `routerState`, `detokenState`, `failureClass: other`).",
  templates,
};
