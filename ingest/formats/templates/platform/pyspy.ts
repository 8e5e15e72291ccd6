// py-spy's dump of a live process, as a user pastes it of a server that stopped answering: its first line names the
// process (benfred/py-spy src/dump.rs print_traces, `"Process {}: {}"` with the pid and the command line); the
// Python, the threads and their frames follow (ingest/formats/log/pyspyDump.ts reads them into the record).
//
// An SGLang scheduler's command line is its process title, `sglang::scheduler` and its prefix's tags joined by `_`
// (python/sglang/srt/managers/scheduler.py run_scheduler_process, `setproctitle.setproctitle(f"sglang::scheduler
// {prefix.replace(' ', '_')}")` with the prefix ` DP{dp} TP{tp} PP{pp} EP{ep}`): the dump is that rank's. The
// server's own process shows its launch command, whose `--disaggregation-mode` gives the role.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { roleOfLaunchCommand } from "../../../../domain/launchCommand.js";
import { cap, type Groups, type LogTemplate, type TemplateComponent } from "../template.js";

const SCHEDULER_TITLE = /^sglang::scheduler((?:_(?:DP|TP|PP|EP|NP)\d+)*)\s*$/;
const TITLE_TAG = /_(DP|TP|PP)(\d+)/g;

function processOfDump(ev: ParsedEvent, g: Groups): void {
  const command = g.command!;
  const title = SCHEDULER_TITLE.exec(command);
  if (title !== null) {
    for (const [, tag, n] of title[1]!.matchAll(TITLE_TAG)) {
      if (tag === "DP") ev.dp = Number(n);
      else if (tag === "TP") ev.tp = Number(n);
      else ev.pp = Number(n);
    }
    return;
  }
  const role = roleOfLaunchCommand(command);
  if (role !== undefined) ev.role = role;
}

const templates: LogTemplate[] = [
  {
    id: "pyspy.dump",
    level: "stdout",
    format:
      "Process {pid}: {command} — then `Python v{version} ({executable})`, `Parent Process {pid}: {command}` with --subprocesses, and per thread `Thread {tid} ({status}): \"{name}\"` over its frames, innermost first (`    {function} ({file}:{line})`)",
    source: "benfred/py-spy src/dump.rs print_traces and print_trace",
    checked: "✔",
    head: "Process ",
    bare: true,
    pattern: /Process (?<pid>\d+): (?<command>\S.*?)\s*$/y,
    kind: LogKind.stackDump,
    attrs: { pid: cap("pid", "number"), command: cap("command") },
    refine: processOfDump,
    samples: ["Process 48211: sglang::scheduler_DP0_TP3", "Process 48102: python3 -m sglang.launch_server --model-path /models/DeepSeek-V3 --disaggregation-mode decode --tp 8"],
  },
];

export const PYSPY: TemplateComponent = {
  name: "pyspy",
  dialect: "sglang",
  title: "py-spy",
  intro: "py-spy's dump of a live process: its first line, which names the process; the record holds its threads and frames.",
  templates,
};
