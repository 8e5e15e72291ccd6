// collective-divergence: ranks of one process group disagree on their n-th
// collective. The model decides (analyzer/model/collectives.ts): entries are
// paired across the group's ranks by (group, sequence number) as PyTorch's
// Flight Recorder does (docs/hicache-indexk.md §5.2); unlike FR's "first rank
// is right", the majority behaviour is taken as expected and every rank of
// the minority is a culprit. The groups are per host, role and stage. This
// rule explains each decision from the records: the majority's entry, each
// culprit's own scheduler branch (`sched.iter`, e.g. `on_idle`, §3.5) and
// the op it entered instead, and counts the collectives matched before it.

import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { EventOf } from "../../domain/domainEvent.js";
import { seconds, type Evidence } from "./evidence.js";
import type { Violation } from "../model/api.js";
import { violationsOf } from "./replayEvidence.js";
import { undetermined, type DraftFinding, type Rule, type RuleResult } from "./rule.js";

interface Entry {
  enter: StoredEvent;
  exit?: StoredEvent;
}

interface Group {
  key: string;
  name: string;
  role: string;
  /** rank → collective seq → its entry and exit */
  ranks: Map<string, Map<number, Entry>>;
}

interface Divergence {
  group: Group;
  seq: number;
  expected: { op: string; site: string; ranks: string[]; sample: StoredEvent };
  culprits: { rank: string; entered?: StoredEvent; branch?: StoredEvent }[];
  hang: boolean;
  /** The model's kind: another op, the same op with another payload digest, or ranks that never entered. */
  kind: string;
}

export const collectiveDivergence: Rule = {
  id: "collective-divergence",
  needs: ["probe coll.enter / coll.exit records (group, op, seq, site) of every rank", "probe sched.iter records (branch) to say where a culprit went"],
  run({ evidence, replay }): RuleResult {
    const enters = evidence.of("coll.enter");
    if (enters.length === 0) {
      return undetermined("collective-divergence", "No collective records: rank divergence cannot be checked",
        ["probe coll.enter/coll.exit records or a Flight Recorder dump"],
        "Default SGLang logs do not show collectives; without per-rank collective records no sequence can be matched across ranks (docs/hicache-indexk.md §5.3).");
    }
    if (!replay) {
      return undetermined("collective-divergence", "No replay: collective divergence cannot be decided",
        ["a replay of the reference model over the collective records"],
        "The reference model decides which ranks of a group diverged (analyzer/model/collectives.ts); it did not run.");
    }
    const groups = buildGroups(evidence, enters, evidence.of("coll.exit"));
    const decisions = new Map(violationsOf(replay, "collective-divergence").map((v) => [v.detail.group as string, v]));
    const unrecorded = ranksWithoutRecords(evidence, groups);
    const endUs = evidence.endUs();
    const findings: DraftFinding[] = [];
    let matched = 0;
    for (const g of groups) {
      const decision = decisions.get(g.key);
      const d = decision && explainDecision(evidence, g, decision);
      const m = matchedBefore(g, d?.seq);
      matched += m;
      if (d) findings.push(divergenceFinding(evidence, d, unrecorded.get(g.role) ?? [], endUs, m));
    }
    if (findings.length > 0) return { checked: matched, findings };
    const missing = [...unrecorded].flatMap(([, ranks]) => ranks);
    if (missing.length > 0) {
      return undetermined("collective-divergence", `Collectives agree on the recorded ranks, but ${missing.length} rank(s) have no records`,
        [`collective records of ${missing.join(", ")}`],
        `${matched} collective(s) matched across the ranks that recorded them; ${missing.join(", ")} logged other events but no collective, so a divergence there cannot be ruled out.`, matched);
    }
    return {
      checked: matched,
      findings: [{
        rule: "collective-divergence", severity: "info", verdict: "consistent",
        title: `${matched} collective(s) matched across every rank of ${groups.length} group(s)`, ranks: [], witness: [],
        explanation: `Every (group, seq) pair was entered by all ranks of its group with the same op and call site (docs/hicache-indexk.md §5.2 matching).`,
        falsify: "", checked: matched,
      }],
    };
  },
};

/** A probe or Flight Recorder collective record, decoded. */
function collective(ev: StoredEvent): EventOf<"coll.enter" | "coll.exit"> {
  return decodeAs(ev, "coll.enter", "coll.exit")!;
}

/** The branch a scheduler iteration took. */
function iterationBranch(ev: StoredEvent): string | undefined {
  return decodeAs(ev, "sched.iter")!.branch;
}

function buildGroups(evidence: Evidence, enters: StoredEvent[], exits: StoredEvent[]): Group[] {
  const groups = new Map<string, Group>();
  const keyOf = (ev: StoredEvent): { key: string; name: string; role: string; rank: string } | undefined => {
    const name = collective(ev).group;
    if (name === undefined || collective(ev).collSeq === undefined) return undefined;
    const rank = evidence.rank(ev);
    const role = rank.slice(0, rank.lastIndexOf("/tp"));
    return { key: `${role}:${name}`, name, role, rank };
  };
  for (const ev of enters) {
    const k = keyOf(ev);
    if (!k) continue;
    let g = groups.get(k.key);
    if (!g) groups.set(k.key, (g = { key: k.key, name: k.name, role: k.role, ranks: new Map() }));
    let perSeq = g.ranks.get(k.rank);
    if (!perSeq) g.ranks.set(k.rank, (perSeq = new Map()));
    const seq = collective(ev).collSeq!;
    if (!perSeq.has(seq)) perSeq.set(seq, { enter: ev });
  }
  for (const ev of exits) {
    const k = keyOf(ev);
    const entry = k && groups.get(k.key)?.ranks.get(k.rank)?.get(collective(ev).collSeq!);
    if (entry && !entry.exit) entry.exit = ev;
  }
  return [...groups.values()];
}

/** Ranks of a role that logged events but no collective at all. */
function ranksWithoutRecords(evidence: Evidence, groups: Group[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const seenRanks = [...new Set(evidence.rankRows().filter((r) => r.tp !== null).map((r) => evidence.rank(r)))];
  for (const role of new Set(groups.map((g) => g.role))) {
    const recorded = new Set(groups.filter((g) => g.role === role).flatMap((g) => [...g.ranks.keys()]));
    const missing = seenRanks.filter((r) => r.slice(0, r.lastIndexOf("/tp")) === role && !recorded.has(r)).sort();
    if (missing.length > 0) out.set(role, missing);
  }
  return out;
}

/**
 * Collectives every rank of the group entered alike, from the largest first
 * seq any rank still holds (FR's align_trace_from_beginning) up to the first
 * seq not so entered or the divergence.
 */
function matchedBefore(g: Group, divergentSeq: number | undefined): number {
  const ranks = [...g.ranks.keys()].sort();
  const start = Math.max(...ranks.map((r) => Math.min(...g.ranks.get(r)!.keys())));
  const allSeqs = [...new Set(ranks.flatMap((r) => [...g.ranks.get(r)!.keys()]))].filter((s) => s >= start && (divergentSeq === undefined || s < divergentSeq)).sort((a, b) => a - b);
  let matched = 0;
  for (const seq of allSeqs) {
    const entries = ranks.map((r) => g.ranks.get(r)!.get(seq)?.enter);
    if (entries.some((e) => e === undefined)) break;
    if (new Set(entries.map((e) => `${collective(e!).op ?? "?"}@${collective(e!).site ?? "?"}`)).size > 1) break;
    matched++;
  }
  return matched;
}

/** The model's decision on a group, with the records that show it: the majority's first entry, each culprit's entry and branch. */
function explainDecision(evidence: Evidence, g: Group, v: Violation): Divergence | undefined {
  const seq = v.detail.collectiveSeq as number;
  const inside = v.detail.inside as string[];
  const sample = inside.map((r) => g.ranks.get(r)?.get(seq)?.enter).find((e) => e !== undefined);
  if (sample === undefined) return undefined;
  const culprits = (v.detail.culprits as string[]).map((rank) => {
    const entered = g.ranks.get(rank)?.get(seq)?.enter;
    return { rank, ...(entered && { entered }), ...(g.ranks.has(rank) ? branchOf(evidence, g, rank, seq) : {}) };
  });
  return {
    group: g,
    seq,
    expected: { op: collective(sample).op ?? "?", site: collective(sample).site ?? "?", ranks: inside, sample },
    culprits,
    hang: v.detail.hang === true,
    kind: v.detail.kind as string,
  };
}

/** The scheduler branch a culprit took in the iteration where it diverged. */
function branchOf(evidence: Evidence, g: Group, rank: string, seq: number): { branch?: StoredEvent } {
  const perSeq = g.ranks.get(rank)!;
  const before = [...perSeq.entries()].filter(([s]) => s < seq).map(([, e]) => e.exit ?? e.enter);
  const ref = perSeq.get(seq)?.enter ?? before.at(-1) ?? [...perSeq.values()][0]!.enter;
  const after = before.at(-1)?.seq ?? 0;
  const iters = evidence.of("sched.iter").filter((e) => e.host === ref.host && e.role === ref.role && e.tp === ref.tp && e.seq > after);
  const taken = perSeq.has(seq) ? iters.filter((e) => e.seq < perSeq.get(seq)!.enter.seq).at(-1) : iters.find((e) => iterationBranch(e) !== "run_batch") ?? iters[0];
  return taken ? { branch: taken } : {};
}

function divergenceFinding(evidence: Evidence, d: Divergence, unrecorded: string[], endUs: number, matched: number): DraftFinding {
  const { group: g, seq, expected } = d;
  const describe = (c: Divergence["culprits"][number]): string => {
    const branch = c.branch ? `took ${iterationBranch(c.branch) ?? "?"} (${evidence.where(c.branch)})` : "";
    const entered = !c.entered
      ? "never entered it"
      : d.kind === "digest-mismatch"
        ? `entered it with payload digest ${collective(c.entered).digest ?? "?"} instead of ${collective(expected.sample).digest ?? "?"} (${evidence.where(c.entered)})`
        : `entered ${collective(c.entered).op ?? "?"} at ${collective(c.entered).site ?? "?"} instead (${evidence.where(c.entered)})`;
    return `${c.rank} ${[branch, entered].filter(Boolean).join(" and ")}`;
  };
  const onIdle = d.culprits.filter((c) => c.branch && iterationBranch(c.branch) === "on_idle").map((c) => c.rank);
  const witness: StoredEvent[] = [expected.sample];
  for (const c of d.culprits) witness.push(...(c.branch ? [c.branch] : []), ...(c.entered ? [c.entered] : []));
  const hangText = d.hang
    ? ` No rank left #${seq} in the remaining ${seconds(endUs - expected.sample.tsUs)} of the records: the group is deadlocked.`
    : "";
  const missingText = unrecorded.length > 0 ? ` Records of ${unrecorded.join(", ")} are missing, so their part cannot be checked.` : "";
  return {
    rule: "collective-divergence",
    severity: d.hang ? "critical" : "high",
    verdict: "violated",
    title: `Group ${g.name} (${g.role}) diverges at collective #${seq}: ${d.culprits.map((c) => c.rank).join(", ")} ${d.kind === "digest-mismatch" ? "entered it with another payload than" : onIdle.length ? "went to on_idle instead of" : "did not enter"} ${expected.op}${d.hang ? "; deadlocked" : ""}`,
    ranks: [...expected.ranks, ...d.culprits.map((c) => c.rank)].sort(),
    tsUs: expected.sample.tsUs,
    witness,
    explanation:
      `Let group ${g.name} reach collective #${seq}: ${expected.ranks.join(", ")} entered ${expected.op} at ${expected.site} (first at ${evidence.where(expected.sample)}). ` +
      `Then every rank of the group must enter #${seq} with the same op before any can leave it (matching by (group, seq), docs/hicache-indexk.md §5.2), ` +
      `but ${d.culprits.map(describe).join("; ")}.${hangText}${missingText} Culprit rank(s): ${d.culprits.map((c) => c.rank).join(", ")}.`,
    falsify: "Rerun the same abort burst with --disable-overlap-schedule (event_loop_normal_disagg_*); if the divergence is the overlap loop's, every rank takes the same branch.",
    checked: matched,
    facts: { group: g.name, seq, culprits: d.culprits.map((c) => c.rank), onIdle, hang: d.hang, missingRanks: unrecorded, opMismatch: d.culprits.some((c) => c.entered !== undefined) },
  };
}
