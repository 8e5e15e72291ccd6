// Scheduler process lines (docs/log-templates.md "SGLang: scheduler"): the
// scheduler's last words, its watchdog, and admission refusals for capacity.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { execAt, type MatchResult } from "./match.js";

// managers/scheduler.py run_scheduler_process: `logger.error(f"Scheduler hit an exception: {traceback}")`,
// then SIGQUIT to the parent; the traceback continues the record on the next lines.
const SCHEDULER_EXCEPTION = "Scheduler hit an exception: ";
// managers/scheduler.py watchdog_thread (≤ 2025): `Watchdog timeout ({self.watchdog_timeout=})`.
const WATCHDOG_OLD = /Watchdog timeout \(self\.watchdog_timeout=([0-9.]+)\)/ys;
// utils/watchdog.py WatchdogRaw._watchdog_once: `{self.debug_name} watchdog timeout ({self.watchdog_timeout=}, {self.soft=})`;
// debug_name is the process (`Scheduler`, `TokenizerManager`, …). Not soft: SIGQUIT to the parent follows.
const WATCHDOG_NAME = /([A-Za-z]+) watchdog timeout \(self\.watchdog_timeout=([0-9.]+), self\.soft=(True|False)\)/ys;
const NAME_END = / watchdog timeout \(/y;
// disaggregation/prefill.py and decode.py `_check_if_req_exceed_kv_capacity`: the request is aborted (400).
const CAPACITY = /Request (\S+) exceeds the maximum number of tokens: (\d+) > (\d+)/ys;

export function parseSchedulerLine(line: string, at: number, ev: ParsedEvent): MatchResult {
  switch (line.charCodeAt(at)) {
    case 83 /* S */:
      if (line.startsWith(SCHEDULER_EXCEPTION, at)) {
        ev.kind = LogKind.exception;
        ev.attrs = { thread: "scheduler", fatal: true };
        return true;
      }
      return namedWatchdog(line, at, ev);
    case 87 /* W */:
      return line.startsWith("Watchdog timeout (", at) ? oldWatchdog(line, at, ev) : false;
    case 82 /* R */:
      return line.startsWith("Request ", at) ? capacity(line, at, ev) : false;
    default:
      return namedWatchdog(line, at, ev);
  }
}

function oldWatchdog(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(WATCHDOG_OLD, line, at);
  if (!m) return "watchdog timeout line";
  return watchdog(ev, "Scheduler", Number(m[1]), false);
}

/** A capitalised word straight before ` watchdog timeout (`; read only that far, so other lines cost a few characters. */
function namedWatchdog(line: string, at: number, ev: ParsedEvent): MatchResult {
  const c = line.charCodeAt(at);
  if (c < 65 || c > 90) return false;
  let end = at + 1;
  while (end < line.length && end - at < 40 && isLetter(line.charCodeAt(end))) end++;
  NAME_END.lastIndex = end;
  if (!NAME_END.test(line)) return false;
  const m = execAt(WATCHDOG_NAME, line, at);
  if (!m) return "watchdog timeout line";
  return watchdog(ev, m[1], Number(m[2]), m[3] === "True");
}

function watchdog(ev: ParsedEvent, component: string, timeoutS: number, soft: boolean): true {
  ev.kind = LogKind.schedulerWatchdog;
  const attrs: Record<string, unknown> = { component, timeoutS, soft, failureClass: "timeout" };
  if (!soft) attrs.fatal = true;
  ev.attrs = attrs;
  return true;
}

function capacity(line: string, at: number, ev: ParsedEvent): MatchResult {
  const m = execAt(CAPACITY, line, at);
  if (!m) return false; // "Request …" opens other messages
  ev.kind = LogKind.capacityRejected;
  ev.rid = m[1];
  ev.attrs = { reason: "kv_capacity", tokens: Number(m[2]), capacity: Number(m[3]) };
  return true;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
