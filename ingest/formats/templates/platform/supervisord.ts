// supervisord's reports of a program's end, in its own log (`supervisord -n` in a container prints it to stdout
// beside the programs' lines; `/var/log/supervisor/supervisord.log` otherwise):
// `2025-09-22 20:20:40,102 INFO exited: sglang-decode (terminated by SIGKILL; not expected)`. Containers that run
// the server, the router and a metadata server under one supervisord show a server's death only here. supervisord
// logs these at INFO whatever happened; the words say whether the exit was expected.
// The samples are the messages as the log prints them after its `%(asctime)s %(levelname)s ` prefix.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";
import { signalOfName } from "./signals.js";

function exited(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  if (g.signal !== undefined) {
    attrs.signal = g.signal;
    attrs.failureClass = signalOfName(g.signal)?.failureClass ?? "crash";
    attrs.error = `${g.program} terminated by ${g.signal}${g.core !== undefined ? " (core dumped)" : ""}, not expected`;
  } else {
    attrs.exitCode = Number(g.status);
    attrs.failureClass = "crash";
    attrs.error = `${g.program} exited with status ${g.status}, not expected`;
  }
}

const templates: LogTemplate[] = [
  {
    id: "supervisord.exited_unexpectedly",
    kind: LogKind.crash,
    checked: "✔",
    level: "INFO",
    format:
      "exited: {program} (exit status {n}; not expected) | exited: {program} (terminated by {SIGNAME}[ (core dumped)]; not expected) — the program ended and its exit was not one of its `exitcodes`, or it ended before `startsecs` (an exit status of 0 then too); `; expected` after an expected exit is no failure",
    source:
      "supervisor/process.py Subprocess.finish, `\"exited: %s (%s)\" % (processname, msg + \"; not expected\")` logged with logger.info; supervisor/options.py decode_wait_status (`exit status %s`, `terminated by %s` with signame, ` (core dumped)`) (Supervisor/supervisor, index copies)",
    head: "exited: ",
    pattern: /exited: (?<program>\S+) \((?:exit status (?<status>\d+)|terminated by (?<signal>SIG[A-Z0-9]+)(?<core> \(core dumped\))?); not expected\)$/y,
    attrs: { scope: "machine", what: "supervisord's program ended unexpectedly", program: cap("program"), fatal: true },
    refine: exited,
    samples: [
      "exited: sglang-decode (terminated by SIGKILL; not expected)",
      "exited: sglang-prefill (exit status 1; not expected)",
      "exited: sglang-decode (terminated by SIGSEGV (core dumped); not expected)",
    ],
  },
  {
    id: "supervisord.gave_up",
    kind: LogKind.crash,
    checked: "✔",
    level: "INFO",
    format:
      "gave up: {program} entered FATAL state, too many start retries too quickly — the program kept ending before `startsecs`, `startretries` times, and supervisord stopped starting it",
    source: "supervisor/process.py Subprocess.transition (BACKOFF → FATAL), `logger.info('gave up: %s %s' % (processname, msg))` (Supervisor/supervisor, index copies)",
    head: "gave up: ",
    pattern: /gave up: (?<program>\S+) entered FATAL state, too many start retries too quickly$/y,
    attrs: { scope: "machine", what: "supervisord gave up restarting the program", program: cap("program"), fatal: true, failureClass: "crash" },
    samples: ["gave up: sglang-decode entered FATAL state, too many start retries too quickly"],
  },
];

export const SUPERVISORD: TemplateComponent = {
  name: "supervisord",
  dialect: "supervisord",
  title: "supervisord: how a program it runs ended",
  intro:
    "supervisord's own lines (`2025-09-22 20:20:40,102 INFO exited: …`), in its log or on a container's stdout beside the programs' lines: a program that ended unexpectedly, and a program it gave up restarting. The program is named, not a rank: the event is the machine's (`scope: machine`), judged by process-failure. supervisord prints these at INFO; the words `not expected` make them failures, and `; expected` or a stop on request (`stopped: …`) is none.",
  templates,
};
