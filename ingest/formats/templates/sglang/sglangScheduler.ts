// SGLang's scheduler process (python/sglang/srt/managers/, utils/watchdog.py):
// the periodic batch lines (docs/protocol.md §2), aborts by queue (§3.4), the
// scheduler's last words and its watchdog, the server's parent on a child's
// SIGQUIT (entrypoints/engine.py), v0.1's KV-pool exhaustion; and the HiCache prefetch thread's revokes
// (docs/hicache-indexk.md).

import type { ParsedEvent } from "../../../../domain/event.js";
import type { Role } from "../../../../domain/vocabulary.js";
import { LogKind } from "../../../../domain/kinds.js";
import { parseBatchLine } from "../../sglang/batchLine.js";
import { cap, type LogTemplate, type TemplateComponent } from "../template.js";

/** Queues that exist on one side only (§3.4 `abort_request`). */
const QUEUE_ROLE: Record<string, Role> = {
  "bootstrap queue": "prefill",
  "inflight queue": "prefill",
  "prealloc queue": "decode",
  "transfer queue": "decode",
};

/** A batch line of `kind` read by batchLine.ts, which keeps its fields by their logged names. */
function readBatch(kind: string): (line: string, at: number, ev: ParsedEvent) => boolean {
  return (line, at, ev) => {
    const batch = parseBatchLine(line, at);
    if (batch === null || batch.kind !== kind) return false;
    ev.kind = batch.kind;
    if (batch.role !== undefined) ev.role = batch.role;
    ev.attrs = batch.attrs;
    return true;
  };
}

const WATCHDOG_NAME_END = / watchdog timeout \(/y;
const DEBUG_INFO_END = / debug info:$/y;

/** A capitalised word straight before ` watchdog timeout (`; read only that far, so other lines cost a few characters. */
function namedWatchdogHead(line: string, at: number): boolean {
  return afterName(line, at, WATCHDOG_NAME_END);
}

/** A capitalised word straight before ` debug info:` ending the line. */
function debugInfoHead(line: string, at: number): boolean {
  return afterName(line, at, DEBUG_INFO_END);
}

function afterName(line: string, at: number, end: RegExp): boolean {
  let i = at + 1;
  while (i < line.length && i - at < 40 && isLetter(line.charCodeAt(i))) i++;
  end.lastIndex = i;
  return end.test(line);
}

const KV_POOL_EXHAUSTED_HEAD = /(?:Prefill|Decode) out of memory\. This should /y;

/** v0.1's `Prefill out of memory. This should nerver happen.`, not the later `Decode out of memory happened.` (a retraction). */
function kvPoolExhaustedHead(line: string, at: number): boolean {
  KV_POOL_EXHAUSTED_HEAD.lastIndex = at;
  return KV_POOL_EXHAUSTED_HEAD.test(line);
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

const templates: LogTemplate[] = [
  {
    id: "sglangScheduler.prefill_batch",
    level: "info",
    format:
      "Prefill batch{iter_msg}, key: value, … (fields by version, docs/protocol.md §2; ≤ v0.5.3 `Prefill batch. …, ` with a period and a trailing `, `); role prefill only when a PD queue field is printed; fields by their logged names (`nan%` stays text)",
    source: "managers/scheduler_components/metrics_reporter.py report_prefill_stats; managers/scheduler.py of the period era",
    checked: "✔",
    head: "Prefill batch",
    pattern: /Prefill batch(?:[.,] | \[(?<forwardIter>\d+)\], )(?<fields>.*)$/ys,
    kind: LogKind.prefillBatch,
    read: readBatch(LogKind.prefillBatch),
    samples: [
      "[2026-07-21 08:04:41 TP0 EP0] Prefill batch, #new-seq: 1, #new-token: 64, #cached-token: 10048, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, #bootstrap-req: 0, #inflight-req: 1, cuda graph: False, input throughput (token/s): 178.18, est. prefill TFLOPS/s (per GPU): 9.90, fwd occupancy: nan%",
      "[2026-02-19 16:32:49 TP0] Prefill batch. #new-seq: 1, #new-token: 1, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #prealloc-req: 1, #inflight-req: 0, input throughput (token/s): 1.73, ",
    ],
  },
  {
    id: "sglangScheduler.decode_batch",
    level: "info",
    format:
      "Decode batch{iter_msg}, #running-req: …, …, #transfer-req: …, …, gen throughput (token/s): …, #queue-req: … (docs/protocol.md §2.2); role decode only when a PD queue field is printed",
    source: "managers/scheduler_components/metrics_reporter.py report_decode_stats",
    checked: "✔ (docs/protocol.md §2.2)",
    head: "Decode batch",
    pattern: /Decode batch(?:[.,] | \[(?<forwardIter>\d+)\], )(?<fields>.*)$/ys,
    kind: LogKind.decodeBatch,
    read: readBatch(LogKind.decodeBatch),
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Decode batch, #running-req: 64, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 9, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0",
    ],
  },
  {
    id: "sglangScheduler.abort_request",
    level: "debug",
    format:
      "Abort {queued|bootstrap queue|inflight queue|running|chunked prefill} request. {req.rid=}; Abort {prealloc queue|transfer queue} request. {decode_req.req.rid=} (the side from the queue)",
    source: "managers/scheduler.py Scheduler.abort_request",
    checked: "✔",
    head: "Abort ",
    pattern: /Abort (?<queue>[a-z ]+) request\. (?<holder>decode_req\.)?req\.rid=(?<rid>'[^']*'|"[^"]*"|None)/ys,
    kind: LogKind.abortRequest,
    rid: cap("rid", "pyRepr"),
    attrs: { queue: cap("queue") },
    refine: (ev, g) => {
      const role = g.holder !== undefined ? "decode" : QUEUE_ROLE[g.queue!];
      if (role !== undefined) ev.role = role;
    },
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Abort prealloc queue request. decode_req.req.rid='a04107ccff5349bab42803eb77df5cd5'",
      "[2026-08-20 10:20:01 TP3] Abort bootstrap queue request. req.rid='a04107ccff5349bab42803eb77df5cd5'",
    ],
  },
  {
    id: "sglangScheduler.exception",
    level: "error",
    format: "Scheduler hit an exception: {get_exception_traceback()} — the traceback continues on the next lines; SIGQUIT to the parent follows",
    source: "managers/scheduler.py run_scheduler_process",
    checked: "✔",
    head: "Scheduler hit an exception: ",
    pattern: /Scheduler hit an exception: /ys,
    kind: LogKind.exception,
    attrs: { thread: "scheduler", fatal: true },
    samples: ["[2026-06-11 14:03:07 DP0 TP3] Scheduler hit an exception: Traceback (most recent call last):"],
  },
  {
    id: "sglangScheduler.kv_pool_exhausted",
    level: "stdout",
    format:
      "{Prefill|Decode} out of memory. This should nerver happen. — the KV pool had no free slot even after evicting the radix cache; `tree_cache.pretty_print()` follows (one indented line per node, then `#tokens: {n}`) and the process exits",
    source: "managers/router/infer_batch.py Batch.prepare_for_extend / prepare_for_decode (v0.1 copies, a `print`)",
    versions: "v0.1.x",
    checked: "✔",
    head: kvPoolExhaustedHead,
    firstChars: "DP",
    pattern: /(?<phase>Prefill|Decode) out of memory\. This should nerver happen\./ys,
    kind: LogKind.error,
    attrs: { error: "KV pool out of memory (This should nerver happen.)", phase: cap("phase"), failureClass: "other", fatal: true },
    samples: ["Prefill out of memory. This should nerver happen."],
  },
  {
    id: "sglangScheduler.parent_sigquit",
    level: "error",
    format:
      "Received sigquit from a child process. It usually means the child failed. (`a child proces.` in older copies) — the server's parent process, on a child's SIGQUIT, before it kills the process tree",
    source: "entrypoints/engine.py sigquit_handler (launch_phase_sigquit_handler in later copies)",
    checked: "✔",
    head: "Received sigquit from a child proces",
    pattern: /Received sigquit from a child process?\. It usually means the child failed\./ys,
    kind: LogKind.error,
    attrs: { error: "Received sigquit from a child process. It usually means the child failed.", failureClass: "other", fatal: true },
    samples: [
      "[2025-02-09 21:23:00] Received sigquit from a child proces. It usually means the child failed.",
      "[2026-07-15 04:07:05] Received sigquit from a child process. It usually means the child failed.",
    ],
  },
  {
    id: "sglangScheduler.watchdog",
    level: "error",
    format: "Watchdog timeout ({self.watchdog_timeout=}) (before it, `{self.cur_batch.batch_size()=}, {self.cur_batch.reqs=}, …` in some copies)",
    source: "managers/scheduler.py Scheduler.watchdog_thread (2024–2025 copies)",
    checked: "✔",
    head: "Watchdog timeout (",
    pattern: /Watchdog timeout \(self\.watchdog_timeout=(?<timeoutS>[0-9.]+)\)/ys,
    kind: LogKind.schedulerWatchdog,
    attrs: { component: "Scheduler", timeoutS: cap("timeoutS", "number"), soft: false, failureClass: "timeout", fatal: true },
    truncated: "watchdog timeout line",
    samples: ["[2025-04-03 20:06:34 DP1 TP0] Watchdog timeout (self.watchdog_timeout=300)"],
  },
  {
    id: "sglangScheduler.watchdog_named",
    level: "error",
    format:
      "{self.debug_name} watchdog timeout ({self.watchdog_timeout=}, {self.soft=}); `{debug_name} debug info:\\n{info}` before it; debug_name is the process (`Scheduler`, `TokenizerManager`, …); not soft → SIGQUIT to the parent",
    source: "utils/watchdog.py WatchdogRaw._watchdog_once",
    checked: "✔",
    head: namedWatchdogHead,
    firstChars: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    pattern: /(?<component>[A-Za-z]+) watchdog timeout \(self\.watchdog_timeout=(?<timeoutS>[0-9.]+), self\.soft=(?<soft>True|False)\)/ys,
    kind: LogKind.schedulerWatchdog,
    attrs: { component: cap("component"), timeoutS: cap("timeoutS", "number"), soft: cap("soft", "bool"), failureClass: "timeout" },
    refine: (ev) => {
      if (ev.attrs!.soft !== true) ev.attrs!.fatal = true;
    },
    truncated: "watchdog timeout line",
    samples: [
      "[2026-06-11 14:03:07 DP0 TP3] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)",
      "[2026-06-11 14:03:07] TokenizerManager watchdog timeout (self.watchdog_timeout=600.0, self.soft=True)",
    ],
  },
  {
    id: "sglangScheduler.watchdog_debug_info",
    level: "error",
    format:
      "{self.debug_name} debug info:\\n{info_msg} — the process's state when its watchdog fired, before `… watchdog timeout (…)`; for the scheduler `{scheduler.cur_batch.batch_size()=}`, `{scheduler.cur_batch.reqs=}` and one line per pool, up to a blank line",
    source: "utils/watchdog.py ProcessWatchdog._watchdog_once; managers/scheduler_components/invariant_checker.py create_scheduler_watchdog dump_info",
    checked: "✔",
    head: debugInfoHead,
    firstChars: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    pattern: /(?<component>[A-Za-z]+) debug info:$/ys,
    kind: LogKind.schedulerWatchdog,
    attrs: { component: cap("component"), report: "debug-info", failureClass: "timeout" },
    truncated: "watchdog debug info line",
    samples: ["[2026-01-29 13:12:36 PP1 TP0] Scheduler debug info:", "[2026-08-04 11:58:42 TP1] Scheduler debug info:"],
  },
  {
    id: "sglangScheduler.pyspy_dump",
    level: "error",
    format:
      "Pyspy dump for PID {pid}:\\n{result.stdout} (later `Pyspy dump for PID {pid} ({cmd}):`) — py-spy's dump of the process whose watchdog fired: `Process {pid}: {cmdline}`, `Python v…`, then per thread `Thread {tid} (active|idle): \"{name}\"` and its frames, innermost first, up to the next log line",
    source: "utils/common.py pyspy_dump_schedulers (later utils/watchdog.py), called by the watchdog before `… watchdog timeout (…)`",
    checked: "✔",
    head: "Pyspy dump for PID ",
    pattern: /Pyspy dump for PID (?<pid>\d+)(?: \((?<cmd>[^)]*)\))?:$/ys,
    kind: LogKind.schedulerWatchdog,
    attrs: { component: "Scheduler", report: "pyspy-dump", pid: cap("pid", "number"), failureClass: "timeout" },
    truncated: "py-spy dump line",
    samples: ["[2026-07-07 07:20:50] Pyspy dump for PID 163685 (py-spy dump --native --pid 163685):", "[2026-03-27 20:52:54] Pyspy dump for PID 969538:"],
  },
  {
    id: "sglangScheduler.pyspy_failed",
    level: "error",
    format: "Pyspy failed to dump PID {pid}. Error: {e.stderr} (later `Pyspy failed ({cmd}). Error: {e.stderr}`) — the watchdog fired; its stack dump could not be taken",
    source: "utils/common.py pyspy_dump_schedulers (later utils/watchdog.py)",
    checked: "✔",
    head: "Pyspy failed ",
    pattern: /Pyspy failed (?:to dump PID (?<pid>\d+)|\((?<cmd>[^)]*)\))\. Error: (?<error>.*)$/ys,
    kind: LogKind.schedulerWatchdog,
    attrs: { component: "Scheduler", report: "pyspy-failed", pid: cap("pid", "number"), error: cap("error"), failureClass: "timeout" },
    truncated: "py-spy failure line",
    samples: ["[2025-06-26 07:25:31 DP4 TP4] Pyspy failed to dump PID 113688. Error: /bin/bash: line 1: py-spy: command not found"],
  },
  {
    id: "sglangScheduler.prefetch_revoked_hits",
    level: "debug",
    format: "Revoking prefetch for request {operation.request_id} due to insufficient hits ({storage_hit_count}). (later: {req_id}, {operation.storage_hit_count})",
    source: "managers/cache_controller.py prefetch thread; mem_cache/hiradix_cache.py in later copies (the check moved, the text is the same)",
    checked: "✔",
    head: "Revoking prefetch",
    pattern: /Revoking prefetch for request (?<rid>\S+) due to insufficient hits \((?<hits>\d+)\)\./ys,
    kind: LogKind.prefetchRevoked,
    rid: cap("rid"),
    attrs: { reason: "insufficient_hits", hits: cap("hits", "number") },
    truncated: "HiCache prefetch revoke line",
    samples: ["[2026-06-11 14:03:07.554 TP3] Revoking prefetch for request a04107ccff5349bab42803eb77df5cd5 due to insufficient hits (0)."],
  },
  {
    id: "sglangScheduler.prefetch_revoked_host_memory",
    level: "debug",
    format: "Revoking prefetch for request {req_id} due to host memory allocation failure.",
    source: "mem_cache/hiradix_cache.py",
    checked: "✔",
    head: "Revoking prefetch",
    pattern: /Revoking prefetch for request (?<rid>\S+) due to host memory allocation failure\./ys,
    kind: LogKind.prefetchRevoked,
    rid: cap("rid"),
    attrs: { reason: "host_memory" },
    truncated: "HiCache prefetch revoke line",
    samples: ["[2026-06-11 14:03:07.554 TP3] Revoking prefetch for request a04107ccff5349bab42803eb77df5cd5 due to host memory allocation failure."],
  },
];

export const SGLANG_SCHEDULER: TemplateComponent = {
  name: "sglangScheduler",
  dialect: "sglang",
  title: "SGLang: scheduler and HiCache",
  intro:
    "`python/sglang/srt/managers/` and `utils/watchdog.py`: the periodic batch lines (docs/protocol.md §2), aborts by queue (§3.4), the scheduler's last words and its watchdog, and the server's parent on a child's SIGQUIT (`entrypoints/engine.py`); the HiCache prefetch revokes. `Prefetch {rid} completed with {n} tokens` appears in a user's log next to the revoke line; its format string was not located, so it is not matched.",
  templates,
};
