// Failures outside the PD model, read once for every rule that needs them
// (process-failure, transport-failure, the evidence gaps that a crash
// explains, the suspect ranking): Python exceptions and thread deaths,
// crashes (faulthandler dumps, C++ terminate, torch backtraces), NCCL/gloo
// and scheduler watchdogs, transfer-engine errors and timeouts, bootstrap
// fetch failures, node failures, and the PD failure lines whose reason is a
// transport one (docs/protocol.md §3.1–§3.5). The parser's
// `attrs.failureClass` names the class and `attrs.fatal` a process death
// (domain/event.ts); two records also say the process died on their own:
// SGLang's `Scheduler hit an exception:` (run_scheduler_process then sends
// SIGQUIT to its parent, which kills the server: sglang
// python/sglang/srt/managers/scheduler.py), and C++ `terminate called after
// throwing` (std::terminate aborts the process).

import { LogKind } from "../../domain/kinds.js";
import type { StoredEvent } from "../../store/read/events.js";
import { attrNumber, attrString, type Evidence } from "./evidence.js";
import { telemetryFailureRecords } from "./telemetryFailures.js";

export type FailureFamily = "process" | "transport";

export interface FailureRecord {
  ev: StoredEvent;
  family: FailureFamily;
  /** The parser's failureClass, else the kind of failure the record is. */
  cls: string;
  /** The record says the process died. */
  fatal: boolean;
  rank: string;
  /** A record of a machine, a pod or a Slurm job, not of a rank (the kernel's OOM kill or Xid, a container's termination, a task's end): `rank` names it. */
  machine?: true;
  /** The machine the record names (its host, or the node a Slurm line names), where it names one. */
  machineName?: string;
  /** The same failure on any rank or room reads the same: what findings group by. */
  signature: string;
  /** One line for titles: the exception, the watchdog, the engine message. */
  summary: string;
  /** Rooms the failure took down beyond the record's own (a crash dump's unfinished requests). */
  rooms?: string[];
  /** The transfer was stopped by an abort, not failed by the transport (low, never a suspect). */
  aborted?: boolean;
  /**
   * A router's probe of a worker failed (sgl-router's gRPC connect or health
   * check): the worker was unreachable then, which a worker still starting
   * or already gone explains as well as a broken link (low, never a suspect).
   */
  probe?: true;
  /** Read from the operator's telemetry (series, dumps), not from a log line. */
  telemetry?: true;
  /** What a thread dump or a rank's records together show (a batch line, then none while its server answered), not a line the process logged. */
  shown?: true;
  /** Further records that prove it (the samples before and after a counter's rise, the queue that held work). */
  witness?: StoredEvent[];
}

/** Threads whose death another rule explains: the NIXL bootstrap thread (unhandled-abort, pd §7.1). */
const OWN_RULE_THREADS = /bootstrap_thread/;
/** Reasons of PD failure lines that are transport failures (pd §3.5). */
const TRANSPORT_REASONS = new Set(["peer_loss", "bootstrap", "mooncake_transfer", "nixl_error"]);
/**
 * Every other PD failure line is judged here too, as the transfer's failure
 * (a failure propagated from another rank, an abort, a reason no table
 * knows), except a timeout: transfer-stall judges those (roomTimeouts.ts).
 */
const STALL_REASONS = new Set(["timeout"]);
const PROCESS_KINDS = [LogKind.exception, LogKind.crash, LogKind.watchdog, LogKind.schedulerWatchdog, LogKind.error, LogKind.httpFailed, LogKind.stackDump];
const TRANSPORT_KINDS = [
  LogKind.transportError, LogKind.transferTimeout, LogKind.bootstrapFetchFailed, LogKind.bootstrapServerError, LogKind.bootstrapRegisterFailed, LogKind.nodeFailure,
  LogKind.transferFailed, LogKind.bootstrapFailed, LogKind.handshakeFailed, LogKind.routerProbeFailed,
];
const TRANSPORT_CLASSES = new Set(["transport"]);

const cache = new WeakMap<Evidence, FailureRecord[]>();

/** Every failure record of the incident, in seq order. */
export function failureRecords(evidence: Evidence): FailureRecord[] {
  let out = cache.get(evidence);
  if (out) return out;
  out = [];
  for (const ev of evidence.ofKinds(...PROCESS_KINDS, ...TRANSPORT_KINDS)) {
    const r = toRecord(evidence, ev);
    if (r) out.push(r);
  }
  out.push(...telemetryFailureRecords(evidence));
  out.sort((a, b) => a.ev.seq - b.ev.seq);
  cache.set(evidence, out);
  return out;
}

/** A picture of a process's main thread at one instant: a thread dump, or the traceback of an interrupt someone sent. */
export function isThreadSnapshot(ev: StoredEvent): boolean {
  return ev.kind === LogKind.stackDump || ev.attrs?.interrupted === true;
}

function toRecord(evidence: Evidence, ev: StoredEvent): FailureRecord | undefined {
  // A thread dump, or the traceback of an interrupt someone sent, is a failure's evidence only where it caught the
  // process waiting in a collective or a transfer.
  const snapshot = isThreadSnapshot(ev);
  if (snapshot && attrString(ev, "waitingIn") === undefined) return undefined;
  const thread = ev.kind === LogKind.stackDump ? undefined : attrString(ev, "thread");
  if (ev.kind === LogKind.exception && thread !== undefined && OWN_RULE_THREADS.test(thread)) return undefined;
  const reasonKind = attrString(ev, "reasonKind");
  const isFailureLine = ev.kind === LogKind.transferFailed || ev.kind === LogKind.bootstrapFailed || ev.kind === LogKind.handshakeFailed;
  if (isFailureLine && STALL_REASONS.has(reasonKind ?? "")) return undefined;
  const parsedClass = attrString(ev, "failureClass");
  const transport =
    TRANSPORT_KINDS.includes(ev.kind as (typeof TRANSPORT_KINDS)[number]) ||
    TRANSPORT_CLASSES.has(parsedClass ?? "") ||
    TRANSPORT_REASONS.has(reasonKind ?? "") ||
    /transfer_worker/.test(thread ?? "");
  const family: FailureFamily = transport ? "transport" : "process";
  const cls = parsedClass ?? classOfKind(ev, reasonKind);
  const summary = summaryOf(ev, thread, reasonKind);
  const scope = ev.attrs?.scope;
  const machine = scope === "machine" || scope === "pod" || scope === "job";
  const machineName = scope === "job" ? undefined : (attrString(ev, "node") ?? ev.host ?? undefined);
  return {
    ev,
    family,
    cls,
    ...(reasonKind === "abort" && { aborted: true }),
    ...(ev.kind === LogKind.routerProbeFailed && { probe: true as const }),
    fatal: isFatal(ev, thread),
    rank: machine ? scopeLabel(scope, scope === "job" ? attrString(ev, "job") : machineName) : evidence.rank(ev),
    ...(machine && { machine: true as const }),
    ...(machine && machineName !== undefined && machineName !== "" && { machineName }),
    signature: `${family}|${cls}|${ev.kind}|${template(summary)}`,
    summary,
    ...(snapshot && { shown: true as const }),
  };
}

/** A machine, a pod or a Slurm job as failure records name it: "machine gpu-node-3", "pod sglang-decode-0", "Slurm job 1234". */
function scopeLabel(scope: "machine" | "pod" | "job", name: string | undefined): string {
  const what = scope !== "job" ? scope : name?.includes(".") === true ? "Slurm step" : "Slurm job";
  return name === undefined || name === "" ? `a ${what} of unknown name` : `${what} ${name}`;
}

function isFatal(ev: StoredEvent, thread: string | undefined): boolean {
  if (ev.attrs?.interrupted === true) return false;
  if (ev.attrs?.fatal === true || ev.kind === LogKind.crash) return true;
  if (ev.kind !== LogKind.exception) return false;
  return thread === "scheduler" || ev.text.startsWith("terminate called after throwing");
}

/** What a record without a parser class is, by its kind. */
function classOfKind(ev: StoredEvent, reasonKind: string | undefined): string {
  switch (ev.kind) {
    case LogKind.watchdog:
      return attrString(ev, "backend") ?? "nccl";
    case LogKind.schedulerWatchdog:
      return "scheduler-watchdog";
    case LogKind.crash:
      return "crash";
    case LogKind.transferTimeout:
      return "timeout";
    case LogKind.nodeFailure:
      return "node-failure";
    case LogKind.bootstrapFetchFailed:
    case LogKind.bootstrapServerError:
    case LogKind.bootstrapRegisterFailed:
      return "bootstrap";
    case LogKind.transportError:
      return attrString(ev, "errorKind") ?? "transport";
    case LogKind.exception:
      return attrString(ev, "excType") ?? "exception";
    default:
      return REASON_CLASS[reasonKind ?? ""] ?? reasonKind ?? ev.kind;
  }
}

/** What a dump's or an interrupt's innermost frame waits in, where its file says (ingest/formats/log/waitingFrames.ts). */
function waitText(ev: StoredEvent): string {
  const waitingIn = attrString(ev, "waitingIn");
  return waitingIn === "collective" ? ", a collective" : waitingIn === "transfer" ? ", a KV transfer's wait" : "";
}

/** The class of a PD failure line's reason (pd §3.5): a lost peer is a node failure, a failed chunk a transport one. */
const REASON_CLASS: Record<string, string> = { peer_loss: "node-failure", bootstrap: "bootstrap", mooncake_transfer: "transport", nixl_error: "transport" };

function summaryOf(ev: StoredEvent, thread: string | undefined, reasonKind: string | undefined): string {
  const excType = attrString(ev, "excType");
  const excMessage = attrString(ev, "excMessage");
  const where = thread ? ` (${thread === "scheduler" ? "scheduler" : `thread ${thread}`})` : "";
  const interruptedIn = ev.attrs?.interrupted === true ? attrString(ev, "stuckIn") : undefined;
  if (interruptedIn !== undefined) return `${excType ?? "KeyboardInterrupt"}'s traceback: MainThread in ${interruptedIn}${waitText(ev)}`;
  if (excType) return `${excType}${excMessage ? `: ${firstLine(excMessage)}` : ""}${where}`;
  const what = attrString(ev, "what");
  if (ev.kind === LogKind.exception && what !== undefined) return `${what}${where}`;
  if (ev.kind === LogKind.watchdog) {
    // DeepEP's kernels name the role that waited (ingest/formats/templates/engines/deepep.ts).
    if (attrString(ev, "backend") === "deepep") return `DeepEP ${attrString(ev, "stage") ?? attrString(ev, "op") ?? "kernel"} timeout`;
    const op = attrString(ev, "op");
    const ms = attrString(ev, "timeoutMs");
    return attrString(ev, "report") === "timeout"
      ? `${(attrString(ev, "backend") ?? "nccl").toUpperCase()} watchdog timeout${op ? ` of ${op}` : ""}${ms ? ` after ${Number(ms) / 1000} s` : ""}`
      : `${(attrString(ev, "backend") ?? "nccl").toUpperCase()} watchdog failure at work ${attrString(ev, "seq") ?? "?"}`;
  }
  if (reasonKind) return firstLine(attrString(ev, "reason") ?? reasonKind);
  const engine = attrString(ev, "engine");
  if (engine && (ev.kind === LogKind.transportError || ev.kind === LogKind.transferTimeout)) return engineSummary(ev, engine);
  if (ev.kind === LogKind.error || ev.kind === LogKind.httpFailed) return firstLine(attrString(ev, "error") ?? message(programText(ev)));
  const stuckIn = ev.kind === LogKind.schedulerWatchdog || ev.kind === LogKind.stackDump ? attrString(ev, "stuckIn") : undefined;
  if (stuckIn !== undefined) return `${ev.kind === LogKind.stackDump ? "py-spy's dump" : "the watchdog's py-spy dump"}: ${attrString(ev, "thread") ?? "MainThread"} in ${stuckIn}${waitText(ev)}`;
  // The kernel's report of a process it killed says it in words of its own (ingest/formats/templates/platform/kernel.ts).
  const error = ev.kind === LogKind.crash ? attrString(ev, "error") : undefined;
  if (error !== undefined) return firstLine(error);
  const frame = ev.kind === LogKind.crash ? attrString(ev, "frame") : undefined;
  return `${firstLine(message(programText(ev)))}${frame ? ` in ${frame}` : ""}`;
}

/** A record's text as its program wrote it: the first line without a wrapper's envelope where the ingest kept it. */
function programText(ev: StoredEvent): string {
  return attrString(ev, "programLine") ?? ev.text;
}

/** A transfer engine's name as its project writes it (the templates' `engine` attr). */
export function engineName(engine: string): string {
  return ({ mooncake: "Mooncake", nixl: "NIXL", ucx: "UCX", lmcache: "LMCache", nvshmem: "NVSHMEM", "3fs": "3FS" } as Record<string, string>)[engine] ?? engine;
}

/** The Mooncake store's own transfers (its templates' `store_…` scope and kinds: ingest/formats/templates/engines/mooncakeStore.ts), not the PD path's. */
const STORE_PART = /^store_/;

/**
 * The transport an engine's record is of, as its project names it: the engine (the templates' `engine` attr), or the
 * Mooncake store where the record is of the store's own transfers (HiCache's or LMCache's offloaded KV cache).
 */
export function transportName(ev: StoredEvent): string | undefined {
  const engine = attrString(ev, "engine");
  if (engine === undefined) return undefined;
  return STORE_PART.test(attrString(ev, "scope") ?? attrString(ev, "errorKind") ?? "") ? `${engineName(engine)} store` : engineName(engine);
}

/** A transfer engine's message in words, from the fields its parser read (ingest/formats/messages/). */
function engineSummary(ev: StoredEvent, engine: string): string {
  const name = transportName(ev)!;
  if (ev.kind === LogKind.transferTimeout) {
    const ms = attrNumber(ev, "timeoutMs");
    const after = ms !== undefined ? String(ms / 1000) : attrString(ev, "timeoutS");
    return `${name} transfers not complete${after ? ` after ${after} s` : ""}`;
  }
  const peer = attrString(ev, "peer");
  const error = attrString(ev, "error");
  // A kind that repeats the transport's name (`ucx_completion`, the store's `store_batch_status`) reads once:
  // "UCX completion", not "UCX ucx completion".
  const kind = (attrString(ev, "errorKind") ?? "transport error").replace(new RegExp(`^${engine}_`), "").replace(STORE_PART, "").replace(/_/g, " ");
  return `${name} ${kind}${peer ? ` to ${peer}` : ""}${error ? `: ${firstLine(error)}` : ""}`;
}

/** A message with its numbers, addresses and rooms blanked: "Session 10.0.4.21:16001 failed." → "Session #.#.#.#:# failed." */
export function template(text: string): string {
  return text.replace(/0x[0-9a-f]+/gi, "#").replace(/\d+(\.\d+)?/g, "#").slice(0, 160);
}

/** A log record's message without the SGLang prefix (pd §1). */
function message(text: string): string {
  const close = text.indexOf("] ");
  return text.startsWith("[") && close > 0 ? text.slice(close + 2) : text;
}

function firstLine(s: string): string {
  const nl = s.indexOf("\n");
  const line = nl < 0 ? s : s.slice(0, nl);
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** The formats of a server's log (SGLang lines, a C++ engine's log, stderr as text), where failures are printed; every other input is a record file. */
const LOG_FORMATS = new Set(["sglang-log", "glog", "text"]);

/** How many server logs the incident holds: what the failure rules read. */
export function serverLogCount(evidence: Evidence): number {
  return evidence.sources().filter((s) => LOG_FORMATS.has(s.format)).length;
}

/** The first fatal process failure of each rank, by rank. */
export function deathsByRank(evidence: Evidence): Map<string, FailureRecord> {
  const out = new Map<string, FailureRecord>();
  for (const f of failureRecords(evidence)) if (f.family === "process" && f.fatal && !out.has(f.rank)) out.set(f.rank, f);
  return out;
}
