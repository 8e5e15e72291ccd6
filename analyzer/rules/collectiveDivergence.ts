// collective-divergence: ranks of one process group disagree on their n-th
// collective. Matching follows PyTorch's Flight Recorder (docs/hicache-indexk.md
// §5.2): entries are paired across the group's ranks by (group, sequence
// number) after dropping the prefix some ranks' records no longer hold; the
// first sequence number where a rank is absent or entered a different op is
// the divergence. Unlike FR's "first rank is right", the majority behaviour is
// taken as expected, and each culprit's own scheduler branch (`sched.iter`,
// e.g. `on_idle`, §3.5) says where it went instead.

import { rankActiveAfter } from "../../store/read/ranks.js";
import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { EventOf } from "../../domain/domainEvent.js";
import { seconds, type Evidence } from "./evidence.js";
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
}

export const collectiveDivergence: Rule = {
  id: "collective-divergence",
  needs: ["probe coll.enter / coll.exit records (group, op, seq, site) of every rank", "probe sched.iter records (branch) to say where a culprit went"],
  run({ evidence }): RuleResult {
    const enters = evidence.of("coll.enter");
    if (enters.length === 0) {
      return undetermined("collective-divergence", "No collective records: rank divergence cannot be checked",
        ["probe coll.enter/coll.exit records or a Flight Recorder dump"],
        "Default SGLang logs do not show collectives; without per-rank collective records no sequence can be matched across ranks (docs/hicache-indexk.md §5.3).");
    }
    const groups = buildGroups(evidence, enters, evidence.of("coll.exit"));
    const unrecorded = ranksWithoutRecords(evidence, groups);
    const endUs = evidence.endUs();
    const findings: DraftFinding[] = [];
    let matched = 0;
    for (const g of groups) {
      const r = matchGroup(evidence, g, endUs);
      matched += r.matched;
      if (r.divergence) findings.push(divergenceFinding(evidence, r.divergence, unrecorded.get(g.role) ?? [], endUs, r.matched));
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

function matchGroup(evidence: Evidence, g: Group, endUs: number): { matched: number; divergence?: Divergence } {
  const ranks = [...g.ranks.keys()].sort();
  // FR's align_trace_from_beginning: start at the largest first seq any rank still holds.
  const start = Math.max(...ranks.map((r) => Math.min(...g.ranks.get(r)!.keys())));
  const allSeqs = [...new Set(ranks.flatMap((r) => [...g.ranks.get(r)!.keys()]))].filter((s) => s >= start).sort((a, b) => a - b);
  let matched = 0;
  for (const seq of allSeqs) {
    const entered = ranks.filter((r) => g.ranks.get(r)!.has(seq));
    const absent = ranks.filter((r) => !g.ranks.get(r)!.has(seq));
    const byOp = new Map<string, string[]>();
    for (const r of entered) {
      const ev = g.ranks.get(r)!.get(seq)!.enter;
      const op = `${collective(ev).op ?? "?"}@${collective(ev).site ?? "?"}`;
      byOp.set(op, [...(byOp.get(op) ?? []), r]);
    }
    const [expectedOp, expectedRanks] = [...byOp].sort((a, b) => b[1].length - a[1].length || a[1][0]!.localeCompare(b[1][0]!))[0]!;
    const sample = g.ranks.get(expectedRanks[0]!)!.get(seq)!.enter;
    const exited = entered.some((r) => g.ranks.get(r)!.get(seq)!.exit);
    const enteredAtUs = Math.min(...entered.map((r) => g.ranks.get(r)!.get(seq)!.enter.tsUs));
    const hang = !exited && endUs - enteredAtUs > 0;
    const movedOn = absent.filter((r) => laterActivity(evidence, g, r, enteredAtUs));
    const odd = entered.filter((r) => !expectedRanks.includes(r));
    if (odd.length === 0 && absent.length === 0) {
      matched++;
      continue;
    }
    if (odd.length === 0 && movedOn.length === 0 && !hang) break; // records end at different points: nothing more to pair
    const culprits = [...odd, ...absent].sort().map((rank) => ({
      rank,
      ...(g.ranks.get(rank)!.get(seq) && { entered: g.ranks.get(rank)!.get(seq)!.enter }),
      ...branchOf(evidence, g, rank, seq),
    }));
    const [op, site] = expectedOp.split("@") as [string, string];
    return { matched, divergence: { group: g, seq, expected: { op, site, ranks: expectedRanks, sample }, culprits, hang } };
  }
  return { matched };
}

/** Whether a rank did anything after its peers entered a collective it never entered. */
function laterActivity(evidence: Evidence, g: Group, rank: string, afterUs: number): boolean {
  const last = [...g.ranks.get(rank)!.values()].at(-1)!.enter;
  return rankActiveAfter(evidence.db, last, ["sched.iter", "coll.enter"], last.seq, afterUs);
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
    const entered = c.entered
      ? `entered ${collective(c.entered).op ?? "?"} at ${collective(c.entered).site ?? "?"} instead (${evidence.where(c.entered)})`
      : "never entered it";
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
    title: `Group ${g.name} (${g.role}) diverges at collective #${seq}: ${d.culprits.map((c) => c.rank).join(", ")} ${onIdle.length ? "went to on_idle instead of" : "did not enter"} ${expected.op}${d.hang ? "; deadlocked" : ""}`,
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
