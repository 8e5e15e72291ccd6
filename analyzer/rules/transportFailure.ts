// transport-failure: the KV transfer path failed below the PD protocol:
// Mooncake/NIXL transport errors (`Session … failed.`, `NIXL transport error
// for room …`, transfer-engine errors), engine-level transfer timeouts
// (`Failed to complete transfers after N seconds`), node failures (`Lost
// connection with prefill instance …`), bootstrap fetch failures (`Could not
// fetch prefill parallel info …`), and PD failure lines whose reason is one of
// those (docs/protocol.md §3.1–§3.5; failures.ts reads them).
// High; critical when a transfer thread died with it. When a process crash
// came first, the failure is its consequence and the finding says so.

import { isoTime, type Evidence } from "./evidence.js";
import { failureRecords, serverLogCount, transportName, type FailureRecord } from "./failures.js";
import { groupFailures, groupFinding, headline, occurrence, otherMessages, partiesText, type FailureGroup, weakness } from "./failureFindings.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

/** A crash this long before a transport failure may have caused it (the peer's heartbeat and transfer timeouts). */
const CRASH_LEAD_US = 600_000_000;

export const transportFailure: Rule = {
  id: "transport-failure",
  needs: ["prefill and decode server logs (transport errors, PD failure lines, node failures)", "transfer-engine log lines (Mooncake/NIXL C++ messages)"],
  run({ evidence }): RuleResult {
    const logs = serverLogCount(evidence);
    const all = failureRecords(evidence);
    const records = all.filter((f) => f.family === "transport");
    if (records.length === 0) {
      if (logs === 0) {
        return undetermined("transport-failure", "No server log: transport failures cannot be seen",
          ["prefill and decode server logs"], "Transport errors and PD failure lines are logged by the servers; the incident holds no server log.");
      }
      return consistent("transport-failure", `No transport failure in ${logs} server log(s)`,
        `${logs} server log(s) hold no transport error, transfer-engine timeout, node failure, bootstrap fetch failure or PD failure line with a transport reason.`, logs);
    }
    // A crash whose time is unknown cannot be said to come first.
    const crashes = all.filter((f) => f.family === "process" && f.fatal && f.ev.timeless !== true);
    return { checked: logs, findings: groupFailures(records).map((g) => failureFinding(evidence, g, crashes)) };
  },
};

/**
 * What a transport that is not the KV path's carries, and how to test it: NVSHMEM carries DeepEP's
 * expert-parallel traffic between GPUs, LMCache keeps the KV cache it offloads, the Mooncake store and 3FS hold
 * the pages HiCache stores (transport names, failures.ts transportName).
 */
const OTHER_TRANSPORTS: Readonly<Record<string, { premise: string; falsify: string }>> = {
  NVSHMEM: {
    premise: "Let NVSHMEM carry the expert-parallel traffic (DeepEP's dispatch and combine) between the ranks' GPUs. Then its transports must come up and its operations complete",
    falsify: "Rerun with NVSHMEM_DEBUG=INFO and the NICs' error counters watched: a transport that cannot come up (a device, a permission, a QP that does not reach RTR) says why there; with it fixed, NVSHMEM initializes and the dispatch runs.",
  },
  LMCache: {
    premise: "Let LMCache keep the KV cache it offloads in its storage (its local tiers and the L2 adapters behind them) and read it back. Then a block it stores must be stored, and a block its lookup found must be read back",
    falsify: "Check the storage LMCache writes to at that time (the L2 adapter's server, Redis or another, its log and whether the LMCache process reaches it; the local disk's space) and rerun: with the storage up and reachable, the stores complete and the blocks read back.",
  },
  "Mooncake store": {
    premise: "Let the Mooncake store hold the KV pages HiCache (or LMCache) offloads to it, on the segments its clients mount, and read them back. Then its transfers must complete within their timeout",
    falsify: "Check the Mooncake store at that time (mooncake_master's log, the clients' mounted segments and the hosts that hold them, the transfer engine's log at MC_LOG_LEVEL=INFO) and rerun: with every segment's host up and reachable, the store's transfers complete.",
  },
  "3FS": {
    premise: "Let 3FS hold the KV pages HiCache stores and reads back. Then its operations must succeed",
    falsify: "Check the 3FS cluster at that time (admin_cli `list-nodes`, the mgmtd, meta and storage services' logs) and rerun: with every 3FS service up, HiCache's reads and writes complete.",
  },
};

function engineNames(g: FailureGroup): string[] {
  return [...new Set(g.records.flatMap((r) => {
    const name = transportName(r.ev);
    return name ? [name] : [];
  }))];
}

function failureFinding(evidence: Evidence, g: FailureGroup, crashes: FailureRecord[]): DraftFinding {
  const firstUs = g.records[0]!.ev.tsUs;
  const crash = crashes.find((c) => c.ev.tsUs <= firstUs && firstUs - c.ev.tsUs <= CRASH_LEAD_US);
  const rooms = g.rooms.length ? ` It failed ${g.rooms.length} room(s)${g.rooms.length > 1 ? `, first ${g.rooms[0]}` : ` (${g.rooms[0]})`}.` : "";
  const cause = crash
    ? ` A process died first: ${crash.rank} at ${isoTime(crash.ev.tsUs)} (${evidence.where(crash.ev)}: ${crash.summary}); the transport failure follows from that crash.`
    : "";
  // Transfers failed by an abort (`Aborted by AbortReq.`, `… by decode-side abort notification.`) were
  // stopped by a client or by the other side, not by the transport; a router's failed probes of a worker
  // are what a worker still starting or already gone gives too: recorded, low, never a suspect of their own.
  const weak = weakness(g);
  const aborted = weak === "aborts";
  const engines = engineNames(g);
  const other = engines.length === 1 ? OTHER_TRANSPORTS[engines[0]!] : undefined;
  return groupFinding("transport-failure", g, {
    severity: g.fatal ? "critical" : weak !== null ? "low" : "high",
    title: `Transport failure on ${partiesText(g)}: ${headline(g)}${g.rooms.length > 1 ? ` (${g.rooms.length} rooms)` : ""}`,
    explanation:
      `${other?.premise ?? "Let the transfer engine carry each room's KV cache between prefill and decode. Then a transfer must complete or be retried within its timeout"}, ` +
      `but ${occurrence(evidence, g)}.${otherMessages(g)}${rooms}${cause}`,
    falsify: crash
      ? "Keep the crashed process alive (fix its own failure first) and rerun: if the crash caused these, the transport errors disappear with it."
      : other !== undefined
        ? other.falsify
      : weak === "probes"
        ? "Read the worker's own log and health endpoint at those times: a worker that was up and serving makes these the router's link to it failing; one still starting or already gone explains them."
      : g.records.some((r) => r.machine === true)
        ? "Check the machine's GPUs and their links (`nvidia-smi -q`, `nvidia-smi nvlink --status`, DCGM's `dcgmi diag -r 3`) and rerun the load on another machine: a GPU or link fault shows there, and elsewhere the transfers complete."
        : "Rerun the same transfers with the transfer engine's own logs at debug (MC_LOG_LEVEL / UCX_LOG_LEVEL) and the NICs' error counters: a transport fault shows there; with a healthy link, the transfers complete.",
    // Only a transfer engine's own lines (Mooncake, NIXL, UCX templates set `engine`) say the engine failed;
    // SGLang's connector raising about the transfer (a RuntimeError on mismatched TP sizes) does not.
    facts: { afterCrash: crash?.rank ?? null, engines, aborted, probesOnly: weak === "probes" },
    ...(crash && { because: [{ cause: crash.ev, effect: g.records[0]!.ev }] }),
  }, crash ? [crash.ev] : []);
}
