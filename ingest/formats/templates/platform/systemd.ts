// systemd's reports of a service's end, as `journalctl -u sglang-decode` shows them beside the service's own lines
// (`Jun 11 14:07:11 gpu-node-3 systemd[1]: sglang-decode.service: Main process exited, code=killed, status=9/KILL`):
// the manager's lines name the unit first (LOG_UNIT_MESSAGE's `"%s: "` with the unit's id). On bare-metal
// deployments that run the servers as units, they say how the main process ended when its own log stops.
// The samples are the messages as `journalctl -o cat` prints them; journalctl's default output puts the journal's
// time, host and `systemd[1]: ` before them (ingest/formats/wrappers/journald.ts).

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";
import { signalOfName } from "./signals.js";

const UNIT_FIRST_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A unit's id before the manager's message: `sglang-decode.service: `, `sglang@decode-0.service: `. */
function unitHead(message: string): (line: string, at: number) => boolean {
  const tail = `.service: ${message}`;
  return (line, at) => {
    const i = line.indexOf(tail, at);
    return i > at && !line.substring(at, i).includes(" ");
  };
}

function killed(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  attrs.signal = `SIG${g.signal}`;
  // systemd names a signal without its `SIG` (signal_to_string).
  attrs.failureClass = signalOfName(`SIG${g.signal}`)?.failureClass ?? "crash";
  attrs.error = `${g.unit}.service: main process ${g.code === "dumped" ? "dumped core on" : "killed by"} SIG${g.signal}`;
}

function exited(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.error = `${g.unit}.service: main process exited with status ${g.status} (${g.name})`;
}

/** What each of service_result_to_string's results says of the failure (src/core/service.c). */
const RESULT_CLASS: Readonly<Record<string, string>> = {
  "oom-kill": "host-oom",
  timeout: "timeout",
  watchdog: "timeout",
  signal: "crash",
  "core-dump": "crash",
  "exit-code": "crash",
};

function failedResult(ev: ParsedEvent, g: Groups): void {
  const attrs = ev.attrs!;
  attrs.failureClass = RESULT_CLASS[g.result!] ?? "crash";
  attrs.error = `${g.unit}.service failed: ${g.result}`;
}

const templates: LogTemplate[] = [
  {
    id: "systemd.main_process_killed",
    kind: LogKind.crash,
    checked: "✔",
    level: "notice",
    format:
      "{unit}: Main process exited, code={killed|dumped}, status={signal number}/{signal name} — the service's main process died of a signal (`dumped`: and dumped core)",
    source: "src/core/service.c service_sigchld_event, LOG_UNIT_MESSAGE(u, \"Main process exited, code=%s, status=%i/%s\", …) (systemd/systemd, index copies)",
    head: unitHead("Main process exited, code="),
    firstChars: UNIT_FIRST_CHARS,
    pattern: /(?<unit>\S+)\.service: Main process exited, code=(?<code>killed|dumped), status=\d+\/(?<signal>[A-Z0-9+]+)$/y,
    attrs: { scope: "machine", what: "the service's main process died of a signal", unit: cap("unit"), fatal: true },
    refine: killed,
    samples: [
      "sglang-decode.service: Main process exited, code=killed, status=9/KILL",
      "sglang@prefill-0.service: Main process exited, code=dumped, status=11/SEGV",
    ],
  },
  {
    id: "systemd.main_process_failed",
    kind: LogKind.crash,
    checked: "✔",
    level: "notice",
    format:
      "{unit}: Main process exited, code=exited, status={status}/{name} — the service's main process exited with a status other than 0 (exit_status_to_string's name: `FAILURE` for 1); a status of 0 is logged at debug and is no failure",
    source: "src/core/service.c service_sigchld_event (systemd/systemd, index copies)",
    head: unitHead("Main process exited, code=exited, status="),
    firstChars: UNIT_FIRST_CHARS,
    pattern: /(?<unit>\S+)\.service: Main process exited, code=exited, status=(?<status>[1-9]\d*)\/(?<name>\S+)$/y,
    attrs: { scope: "machine", what: "the service's main process exited", unit: cap("unit"), exitCode: cap("status", "number"), fatal: true, failureClass: "crash" },
    refine: exited,
    samples: ["sglang-decode.service: Main process exited, code=exited, status=1/FAILURE"],
  },
  {
    id: "systemd.unit_failed",
    kind: LogKind.error,
    checked: "✔",
    level: "warning",
    format:
      "{unit}: Failed with result '{result}'. — the unit entered the failed state; its result says why (`exit-code`, `signal`, `core-dump`, `oom-kill`, `timeout`, `watchdog`, …)",
    source: "src/core/unit.c unit_log_failure, LOG_UNIT_MESSAGE(u, \"Failed with result '%s'.\", result); src/core/service.c service_enter_dead (systemd/systemd, index copies)",
    head: unitHead("Failed with result '"),
    firstChars: UNIT_FIRST_CHARS,
    pattern: /(?<unit>\S+)\.service: Failed with result '(?<result>[\w-]+)'\.$/y,
    attrs: { scope: "machine", level: "error", unit: cap("unit"), result: cap("result") },
    refine: failedResult,
    samples: [
      "sglang-decode.service: Failed with result 'oom-kill'.",
      "sglang-decode.service: Failed with result 'signal'.",
    ],
  },
];

export const SYSTEMD: TemplateComponent = {
  name: "systemd",
  dialect: "systemd",
  title: "systemd: how a service's main process ended",
  intro:
    "The manager's lines in a unit's journal (`journalctl -u sglang-decode`, behind `systemd[1]: `): how the service's main process ended, and the unit's failed result. The unit is named, not a rank: the event is the machine's (`scope: machine`), judged by process-failure. A main process that exited with status 0, or a unit stopped on request, prints none of these.",
  templates,
};
