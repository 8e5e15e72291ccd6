// process-failure: a server process or one of its threads failed outside the
// PD protocol: a Python exception in the scheduler or a worker thread, a
// `Fatal Python error` / segfault dump, a CUDA error or out-of-memory, an
// NCCL/gloo watchdog timeout or ProcessGroupNCCL abort, SGLang's scheduler
// watchdog (failures.ts reads them). Critical when the process died, high
// otherwise; a plain traceback outside the scheduler and threads, and a
// request answered with a server error, are medium.
// A crash also explains the silence of its rank that follows (gaps/silence.ts).

import { attrNumber, attrString, type Evidence } from "./evidence.js";
import { failureRecords, serverLogCount } from "./failures.js";
import { groupFailures, groupFinding, groupParties, headline, occurrence, otherMessages, partiesText, placesText, ranksText, silencesAfter, type FailureGroup } from "./failureFindings.js";
import { outsideCollective } from "./collectiveDumps.js";
import { idleEngines, lastRecordsReading, stalledSchedulers, type LastRecords } from "./logStalls.js";
import type { Gap } from "./gaps/index.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** Classes of failure that stop a rank's work even when the process lives on. */
const SERIOUS = new Set(["cuda-error", "cuda-oom", "npu-error", "npu-oom", "segfault", "nccl", "hccl", "gloo", "timeout", "assertion", "scheduler-watchdog", "crash", "host-oom", "container-oom", "evicted", "gpu-device", "hung-task", "kernel-oops", "kernel-panic", "cluster-test", "node-failure"]);

/** A request the server answered with a server error (an access line's 5xx): the request failed, the process went on. */
const FAILED_REQUEST = "request";
/** A process a thread dump caught waiting in a collective or a transfer (ingest/formats/log/pyspyDump.ts): one instant's evidence. */
const CAUGHT_WAITING = "hang";
/** A scheduler that stopped running batches while its server answered, or an engine whose statistics show no step (logStalls.ts, telemetryFailures.ts). */
const STOPPED = "scheduler-hang";
/** Classes whose records show a process that went on, or may have. */
const WENT_ON: ReadonlySet<string> = new Set([FAILED_REQUEST, CAUGHT_WAITING]);

const FALSIFY: Record<string, string> = {
  "cuda-oom": "Rerun the same load with more memory headroom (a lower --mem-fraction-static or --max-running-requests): the rank must not run out of memory and must keep logging.",
  nccl: "Rerun with TORCH_NCCL_TRACE_BUFFER_SIZE set (Flight Recorder) and compare the ranks' last collectives: a rank that never entered the timed-out collective is the culprit; with it fixed, no watchdog fires.",
  "npu-oom": "Rerun the same load with more NPU memory headroom (a lower --gpu-memory-utilization or --mem-fraction-static, fewer running requests): the rank must not run out of device memory and must keep logging.",
  "npu-error": "Rerun the same requests with ASCEND_LAUNCH_BLOCKING=1 and the device's CANN logs kept (plog under ASCEND_PROCESS_LOG_PATH): the first error report names the task and operator that failed; on another NPU, or without that operator, the rank must not fail.",
  hccl: "Rerun with the ranks' CANN logs kept at info level (ASCEND_GLOBAL_LOG_LEVEL=1) and compare the ranks' last collectives: a rank that never entered the failed collective, or whose link is down, is the culprit; with it fixed, no HCCL error is raised.",
  gloo: "Rerun with the gloo group's peers logging their last collective: the one that never entered it is the culprit; with it fixed, no timeout fires.",
  deepep: "Run DeepEP's own tests (tests/test_intranode.py, test_internode.py, test_low_latency.py) on the same GPUs and NICs: a peer or link at fault stalls them the same way; with it fixed, no kernel times out.",
  "host-oom": "Rerun the same load with the machine's memory watched (the serving processes' RSS, the page cache, other tenants): if the host ran out, the same process is killed again; with more host memory or fewer processes on it, none is.",
  "container-oom": "Rerun the same load with the container's memory limit raised (or the server's host-side buffers lowered): a container that ran into its limit is OOMKilled again at the same load, and runs on with the higher limit.",
  "gpu-device": "Run the GPU's diagnostics (`nvidia-smi -q -d ECC,ROW_REMAPPER`, DCGM's `dcgmi diag -r 3`) and rerun the load on another GPU: a faulty device fails its diagnostics and the load runs clean elsewhere.",
  segfault: "Rerun the same requests with CUDA_LAUNCH_BLOCKING=1 and PYTHONFAULTHANDLER=1: the dump's current thread names the kernel; without that path the rank must not crash.",
  "cluster-test":
    "Rerun the same test (nccl-tests with its data check on, `-c 1`) on the same machines, then on subsets of them (one pair of nodes at a time, one NIC at a time with NCCL_IB_HCA): a faulty GPU, NIC or link fails every run that includes it and none without it; a test that fails on every subset points at the software stack instead.",
  [STOPPED]:
    "While the ranks are stopped, dump their threads (`py-spy dump --pid`, twice a minute apart) and keep the Flight Recorder (TORCH_NCCL_TRACE_BUFFER_SIZE): the frame they wait in names the collective or the transfer; a scheduler that runs batches again by itself was slow, not stopped.",
  [CAUGHT_WAITING]:
    "Dump every rank of the server twice, a minute apart (`py-spy dump --pid`): a rank in the same wait both times is stuck there, and a rank that is not in that collective (busy elsewhere, or gone) is the one the others wait for; if the frame has moved on, the dump caught a wait in passing.",
};

/** What a class's evidence cannot say, named in its finding. */
const UNSAID: Record<string, string> = {
  [CAUGHT_WAITING]:
    " A dump is one instant: whether the rank stayed in that wait, and which peer or transfer it waited for, is not in this evidence (a second dump of the rank, the other ranks' dumps at the same time).",
  [STOPPED]:
    " Where the scheduler waited is not in this evidence: a collective whose peer never came, a KV transfer's poll, a kernel that never returned (a thread dump of the rank while it is stopped, the Flight Recorder's last collectives, the transfer engine's log would say).",
};

export const processFailure: Rule<LastRecords> = {
  id: "process-failure",
  needs: ["server logs with their stderr: tracebacks, `Fatal Python error` dumps, `terminate called …`, NCCL/gloo and scheduler watchdog lines"],
  reading: () => lastRecordsReading(),
  run({ evidence, gaps }, last): RuleResult {
    const logs = serverLogCount(evidence);
    const read = failureRecords(evidence).filter((f) => f.family === "process");
    const deaths = read.filter((f) => f.fatal);
    const records = [...read, ...stalledSchedulers(evidence, last, deaths), ...idleEngines(evidence, deaths)].sort((a, b) => a.ev.seq - b.ev.seq);
    if (records.length === 0) {
      if (logs === 0) {
        return undetermined("process-failure", "No server log: process failures cannot be seen",
          ["the servers' logs with stderr (tracebacks and crash dumps reach only there)"],
          "The incident holds no server log, and probe records do not show exceptions or crashes.");
      }
      return consistent("process-failure", `No exception, crash or watchdog timeout in ${logs} server log(s)`,
        `${logs} server log(s) hold no traceback, thread death, crash dump, CUDA error, NCCL/gloo watchdog timeout or scheduler watchdog line.`, logs);
    }
    return { checked: logs, findings: groupFailures(records).map((g) => failureFinding(evidence, g, gaps)) };
  },
};

function failureFinding(evidence: Evidence, g: FailureGroup, gaps: readonly Gap[]): DraftFinding {
  const serious = g.fatal || SERIOUS.has(g.cls) || (!WENT_ON.has(g.cls) && g.records.some((r) => r.ev.attrs?.thread !== undefined || r.ev.kind !== "log.exception"));
  const silences = silencesAfter(g, gaps);
  const died = g.fatal ? "died" : failedVerb(g.cls, false);
  const dead = deadRanks(g);
  const silenceText = silences.length
    ? ` After it, ${silences.map((s) => `${s.gap.ranks?.join(", ") ?? s.gap.source} writes no periodic record (${s.gap.from} to ${s.gap.to})`).join("; ")}: the crash explains the silence.`
    : "";
  const others = otherMessages(g);
  const waited = waitedOnPeer(g);
  const outside = outsideCollective(evidence, g);
  const outsideText = outside
    ? ` ${outside.rank}'s dump is not in ${outside.op}: ${outside.where}. The ranks in the collective wait for it, and the stall starts there; why it is elsewhere is not in these dumps.`
    : "";
  const waitedText = waited
    ? ` Each of its ${waited.waits} DeepEP timeouts waited on rank ${waited.peer}, which reports no timeout of its own: rank ${waited.peer} did not send its part, and the stall starts there (what it did instead is not in these logs).`
    : "";
  return groupFinding("process-failure", g, {
    severity: g.fatal ? "critical" : serious ? "high" : "medium",
    title: `${whoFailed(g, died, dead)}: ${headline(g)}`,
    explanation:
      `Let ${premiseOf(g)}. Then they must keep serving, ` +
      `but ${occurrence(evidence, g)}${deathText(evidence, g)}.${others}${waitedText}${outsideText}${silenceText}${UNSAID[g.cls] ?? ""}`,
    falsify: FALSIFY[g.cls] ?? "Rerun the same load with the failing rank's stderr captured in full: if this failure is the cause, the rank fails the same way; without it, the rank keeps serving.",
    facts: { silencesExplained: silences.length, onsetUs: onsetOf(g), deadRanks: dead, ...hangOf(g), ...(waited && { waitedOnRank: waited.peer }), ...(outside && { outsideRank: outside.rank }) },
    because: silenceCauses(g, silences),
  }, silences.flatMap((s) => s.witness.slice(0, 1)));
}

/**
 * Where ranks that stopped without dying wait, for the suspects (failureCauses.ts): in a collective or a KV
 * transfer, as their thread dumps' frames say (`waitingIn`, `waitOp`); none known for a scheduler seen to stop.
 */
function hangOf(g: FailureGroup): { hang?: true; hangIn?: string[]; waitOps?: string[] } {
  if (g.fatal || (g.cls !== STOPPED && g.cls !== CAUGHT_WAITING)) return {};
  const where = [...new Set(g.records.flatMap((r) => attrString(r.ev, "waitingIn") ?? []))];
  const waitOps = [...new Set(g.records.flatMap((r) => attrString(r.ev, "waitOp") ?? []))];
  return { hang: true, hangIn: where, ...(waitOps.length && { waitOps }) };
}

/** The group's ranks, machines and pods with a fatal record: a group of one cause may hold a death and the failures around it. */
function deadRanks(g: FailureGroup): string[] {
  return g.ranks.filter((rank) => g.records.some((r) => r.rank === rank && r.fatal));
}

/**
 * The rank the group's DeepEP low-latency timeouts waited on. Each names the peer whose writes it waits for
 * (`src_rank` of a dispatch or combine receive, `dst_rank` of a barrier: DeepEP csrc/kernels/internode_ll.cu) and
 * its own rank. Where two or more name a peer, all name the same one, and that peer reports no timeout itself,
 * the waits start at it: the one rank that did not take part.
 */
function waitedOnPeer(g: FailureGroup): { peer: number; waits: number } | undefined {
  const waits = g.records.filter((r) => attrString(r.ev, "backend") === "deepep");
  if (waits.length < 2) return undefined;
  const peers = new Set<number>();
  const waiting = new Set<number>();
  for (const r of waits) {
    const peer = attrNumber(r.ev, "srcRank") ?? attrNumber(r.ev, "dstRank");
    if (peer === undefined) return undefined;
    peers.add(peer);
    const own = attrNumber(r.ev, "rank");
    if (own !== undefined) waiting.add(own);
  }
  const [peer] = peers;
  return peers.size === 1 && !waiting.has(peer!) ? { peer: peer!, waits: waits.length } : undefined;
}

/** Where the group's first death is: at its first record, or after it (a watchdog's timeout, then the terminate it ends in). */
function deathText(evidence: Evidence, g: FailureGroup): string {
  const death = g.records.find((r) => r.fatal);
  if (death === undefined) return "";
  return death === g.records[0] ? "; the process died there" : `; ${death.rank} died after it (${evidence.where(death.ev)})`;
}

/** What the failing parties do when they serve: a machine's serving processes, a router routing, a server's scheduler. */
function premiseOf(g: FailureGroup): string {
  if (g.records.every((r) => r.machine === true)) return `the serving processes of ${partiesText(g)} run`;
  if (g.records.every((r) => r.ev.role === "router")) return `${partiesText(g)} route each request to a prefill and a decode server`;
  const routers = routerRanks(g);
  if (routers.length === 0) return `${partiesText(g)} run the server's scheduler and its threads`;
  const servers = g.ranks.filter((r) => !routers.includes(r) && !g.records.some((x) => x.rank === r && x.machine === true));
  return `${ranksText(servers)} run the server's scheduler and its threads, and ${ranksText(routers)} route each request to a prefill and a decode server`;
}

/** The group's ranks whose every record is a router's. */
function routerRanks(g: FailureGroup): string[] {
  return g.ranks.filter((rank) => {
    const own = g.records.filter((r) => r.rank === rank);
    return own.length > 0 && own.every((r) => r.ev.role === "router" && r.machine !== true);
  });
}

/** What living ranks of a group did, in a title's words: failed; stopped (a scheduler that ran no batch); was caught waiting (a thread dump). */
function failedVerb(cls: string, plural: boolean): string {
  if (cls === STOPPED) return "stopped";
  if (cls === CAUGHT_WAITING) return plural ? "were caught waiting" : "was caught waiting";
  return "failed";
}

/**
 * Who failed, in a title's words: "decode/tp0 died"; "On machine node-3, a
 * process died" (the kernel, Kubernetes or Slurm name a machine, pod or step,
 * not the rank); "Machine node-3 failed" where the machine itself did (a node
 * not ready); "decode/tp0 died, and a process on machine gpu-node-9".
 */
function whoFailed(g: FailureGroup, died: string, deadParties: readonly string[]): string {
  const { ranks, places } = groupParties(g);
  if (ranks.length === 0) return g.cls === "node-failure" ? `${placesText(places, true)} failed` : `On ${placesText(places)}, a process ${died}`;
  const dead = ranks.filter((rank) => deadParties.includes(rank));
  const alive = ranks.filter((rank) => !dead.includes(rank));
  const who =
    dead.length === 0
      ? `${ranksText(ranks, true)} ${failedVerb(g.cls, ranks.length > 1)}`
      : alive.length === 0
        ? `${ranksText(dead, true)} died`
        : `${ranksText(dead, true)} died, and ${ranksText(alive)} ${failedVerb(g.cls, alive.length > 1)}`;
  return places.length === 0 ? who : `${who}, and a process on ${placesText(places)}`;
}

/**
 * When the failure began, as its records state it: a watchdog reports a
 * wait that started its timeout earlier (an NCCL collective that ran for
 * 600 s began 600 s before the line); other records began where they stand.
 */
function onsetOf(g: FailureGroup): number {
  return Math.min(
    ...g.records.map((r) => {
      const ms = attrNumber(r.ev, "timeoutMs") ?? (attrNumber(r.ev, "timeoutS") ?? 0) * 1000;
      return r.ev.tsUs - ms * 1000;
    }),
  );
}

/** The death and the end of each silence it explains (a silence to the incident's end has none to cite). */
function silenceCauses(g: FailureGroup, silences: readonly Gap[]): NonNullable<DraftFinding["because"]> {
  const death = g.records.find((r) => r.fatal)?.ev;
  if (!death) return [];
  return silences.flatMap((s) => {
    const end = s.witness[1];
    return end && end.seq !== death.seq ? [{ cause: death, effect: end }] : [];
  });
}
