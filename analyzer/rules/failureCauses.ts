// The causes that are failures in themselves: a process that died or stopped (process-crash) and a transfer path
// that failed (transport-failure). Each stays a suspect until a finding explains it (a wedge that came first, a
// transport failure just before a death).

import { isoTime } from "./evidence.js";
import { ids, namedRanks, transportFailures, wedges, type CauseCase, type Indication, type NumberedFinding, type Of } from "./suspectEvidence.js";

/** A process died, or a rank's work failed or stopped: the failure itself is the cause until something explains it. */
export function processCrash(of: Of): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const failures = of("process-failure");
  const deaths = failures.filter((f) => f.draft.facts?.fatal === true);
  const hangs = failures.filter((f) => f.draft.facts?.fatal !== true && f.draft.facts?.hang === true);
  const serious = failures.filter((f) => f.draft.facts?.fatal !== true && f.draft.severity === "high" && !hangs.includes(f));
  // A death's group may hold another rank's failure beside it (process-failure's `deadRanks`): name only those that died.
  const dead = (f: NumberedFinding): readonly string[] => (f.draft.facts?.deadRanks as string[] | undefined) ?? f.draft.ranks;
  if (deaths.length) c.for.push({ weight: 0.85, findings: ids(deaths), note: `${namedRanks(deaths, dead)}the process died (${deaths.map((f) => f.draft.title).join("; ")})` });
  if (serious.length) c.for.push({ weight: deaths.length ? 0.2 : 0.6, findings: ids(serious), note: `a rank's work failed (${serious.map((f) => f.draft.title).join("; ")})` });
  if (hangs.length) c.for.push(hangIndication(hangs, deaths.length > 0));
  // A case made of hangs alone is refuted by the dumps that say where the ranks wait, not by a rerun without a crash.
  if (hangs.length && !deaths.length && !serious.length) c.falsify = (hangs.find((f) => hangIn(f).length > 0) ?? hangs[0]!).draft.falsify;
  // A rank the others' DeepEP timeouts all waited on, silent itself, hung first (process-failure's `waitedOnRank`).
  const waited = failures.filter((f) => typeof f.draft.facts?.waitedOnRank === "number");
  if (waited.length) {
    const peers = [...new Set(waited.map((f) => f.draft.facts!.waitedOnRank as number))].join(", ");
    c.for.push({ weight: 0.1, findings: ids(waited), note: `the DeepEP timeouts waited on rank ${peers}, which reported none itself: the stall began there` });
  }
  // The rank whose thread dump is not in the collective the others' dumps caught them in (process-failure's `outsideRank`).
  const outside = failures.filter((f) => typeof f.draft.facts?.outsideRank === "string");
  if (outside.length) {
    const ranks = [...new Set(outside.map((f) => f.draft.facts!.outsideRank as string))].join(", ");
    c.for.push({ weight: 0.1, findings: ids(outside), note: `the thread dumps caught every other rank in one collective and ${ranks} elsewhere: the stall began there` });
  }
  const silenced = failures.filter((f) => Number(f.draft.facts?.silencesExplained ?? 0) > 0);
  if (silenced.length) c.for.push({ weight: 0.1, findings: ids(silenced), note: "the crashed ranks went silent after it" });
  const consequences = of("transport-failure").filter((f) => f.draft.facts?.afterCrash);
  if (c.for.length && consequences.length) c.for.push({ weight: 0.1, findings: ids(consequences), note: "transfers failed after the crash" });
  // A cause comes before its effect: a death that began well after the path wedged (a crash dump at a forced
  // exit, a restart) is its end, not its cause; a watchdog's death began when its timeout did.
  const wedgeUs = Math.min(...wedges(of).map((f) => f.draft.facts!.wedgeStartUs as number));
  const onset = (f: NumberedFinding): number | undefined => (f.draft.facts?.onsetUs as number | undefined) ?? f.draft.tsUs;
  const late = deaths.filter((f) => onset(f) !== undefined && onset(f)! - wedgeUs > WEDGE_LEAD_US);
  if (deaths.length && late.length === deaths.length) {
    c.against.push({ factor: 0.15, note: `every death came after the transfer path wedged (from ${isoTime(wedgeUs)}): the wedge came first` });
  }
  // The same on one rank or machine: a NIC's fatal error, the engine's failed work requests, then the process's abort.
  const transportFirst = transportFailures(of).filter((t) => t.draft.facts?.afterCrash == null && t.draft.tsUs !== undefined);
  const follows = (d: NumberedFinding): boolean =>
    transportFirst.some((t) => {
      const at = onset(d);
      return at !== undefined && at >= t.draft.tsUs! && at - t.draft.tsUs! <= TRANSPORT_LEAD_US && t.draft.ranks.some((r) => d.draft.ranks.includes(r));
    });
  if (deaths.length && deaths.every(follows)) {
    c.against.push({ factor: 0.5, note: "every death came just after a transport failure on the same rank or machine: the transport failed first" });
  }
  return c;
}

const hangIn = (f: NumberedFinding): string[] => (f.draft.facts?.hangIn as string[] | undefined) ?? [];

/**
 * Ranks whose work stopped while their processes lived (process-failure's `hang`: a scheduler that stopped, a thread
 * dump that caught a rank waiting): a hang, and what it waits in is the suspect — a collective's peer that never
 * came, or a KV transfer that never completed. A stop seen in the batch lines alone is strong (high); one dump is one
 * instant's evidence (medium).
 */
function hangIndication(hangs: readonly NumberedFinding[], died: boolean): Indication {
  const where = new Set(hangs.flatMap(hangIn));
  const ops = [...new Set(hangs.flatMap((f) => (f.draft.facts?.waitOps as string[] | undefined) ?? []))];
  const inOps = ops.length ? ` (${ops.join(", ")})` : "";
  const suspected = [
    ...(where.has("collective") ? [`in a collective${inOps}: the collective is suspected, a peer rank that never entered it or a link that never delivered`] : []),
    ...(where.has("transfer") ? [`in a KV transfer's wait${where.has("collective") ? "" : inOps}: the transfer is suspected, a peer that never sent or a transport that never completed it`] : []),
  ];
  const whereText = suspected.length ? `, ${suspected.join("; and ")}` : ": where the ranks wait is not in this evidence (a thread dump or the Flight Recorder would say)";
  const strong = hangs.some((f) => f.draft.severity === "high");
  return {
    weight: died ? 0.2 : strong ? 0.6 : 0.3,
    findings: ids(hangs),
    note: `${namedRanks(hangs)}no process died, yet the work stopped (${hangs.map((f) => f.draft.title).join("; ")}): a hang${whereText}`,
  };
}

/** A death more than this after a wedge began did not cause it. */
const WEDGE_LEAD_US = 60_000_000;
/** A death this soon after a transport failure on its rank or machine may be that failure's end. */
const TRANSPORT_LEAD_US = 60_000_000;

/** The transfer path itself failed: engine errors and timeouts, node failures, rooms failed for transport reasons. */
export function transportCase(of: Of): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const failures = transportFailures(of);
  const engine = failures.filter((f) => Array.isArray(f.draft.facts?.engines) && f.draft.facts.engines.length > 0);
  if (failures.length) c.for.push({ weight: 0.6, findings: ids(failures), note: `the transfer path failed (${failures.map((f) => f.draft.title).join("; ")})` });
  if (engine.length) {
    const names = [...new Set(engine.flatMap((f) => f.draft.facts!.engines as string[]))].join(" and ");
    c.for.push({ weight: 0.2, findings: ids(engine), note: `the transfer engine's own log (${names}) reported errors` });
  }
  const afterCrash = failures.filter((f) => f.draft.facts?.afterCrash);
  if (afterCrash.length > 0 && afterCrash.length === failures.length) c.against.push({ factor: 0.3, note: "a process crashed before every transport failure, which explains them" });
  return c;
}
