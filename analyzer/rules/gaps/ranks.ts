// Roles and ranks the incident should hold and does not: a PD side with no
// source at all, and TP ranks missing against the parallelism the run states
// (a `config` record's tp_size, or the `server_args=ServerArgs(… tp_size=N …)`
// line SGLang logs at start-up), not only against the highest rank seen.

import type { Evidence } from "../evidence.js";
import type { Parallelism } from "../../replay/logSigns.js";
import { profileSigns } from "../../replay/derivedSigns.js";
import { RULES_OF_ROLE, rulesOfRanks, type Gap } from "./gap.js";

const SIDES = ["prefill", "decode"] as const;

/** A PD incident with one side and not the other. */
export function missingRoles(evidence: Evidence): Gap[] {
  const present = new Set<string>();
  for (const s of evidence.sources()) if (s.role) present.add(s.role);
  for (const r of evidence.rankRows()) if (r.role) present.add(r.role);
  const sides = SIDES.filter((r) => present.has(r));
  if (sides.length !== 1) return [];
  const have = sides[0]!;
  const missing = have === "prefill" ? "decode" : "prefill";
  const n = evidence.sources().filter((s) => s.role === have).length;
  // The present side's own statement that it runs disaggregated (server_args names its mode).
  const stated = profileSigns(evidence.db).find((s) => s.parallelism?.role === have);
  const witness = stated ? evidence.event(stated.seq) : undefined;
  // What the input lacks, not what the system did: the rules that need the other side are
  // blinded (undetermined, so nothing reads as clean over it), and the finding says what to
  // collect; as a finding it is low, like the other gaps that describe the input (unreadable
  // lines, silences, unlinked clocks), so one side's healthy log is not reported as a problem.
  return [{
    severity: "low",
    witness: witness ? [witness] : [],
    gap: {
      kind: "missing-role",
      ranks: [missing],
      blinds: RULES_OF_ROLE[missing],
      detail: `no ${missing} source: the incident holds ${n} ${have} source(s) and nothing of the ${missing} side, so what ${missing} did (${missing === "prefill" ? "bootstrap threads, transfers posted, its failures" : "metadata sent, notifications, timeouts, its failures"}) is not in the evidence`,
    },
  }];
}

/** The TP size each role states, with where it is stated. */
interface StatedSize {
  tp: number;
  dp?: number;
  /** TP ranks each machine of a server runs, where the server states more machines than one. */
  perMachine?: number;
  where: string;
  seq: number;
}

/**
 * TP ranks per machine of a server spread over `nnodes` machines: tp_size / max(nnodes / pp_size, 1), each machine
 * the block of node_rank (sglang python/sglang/srt/entrypoints/engine.py _launch_subprocesses, `tp_rank_range`).
 */
function ranksPerMachine(p: Parallelism): number | undefined {
  if (p.tpSize === undefined || p.nnodes === undefined || p.nnodes <= 1) return undefined;
  const machines = Math.max(Math.floor(p.nnodes / (p.ppSize ?? 1)), 1);
  return machines > 1 && p.tpSize % machines === 0 ? p.tpSize / machines : undefined;
}

function statedSizes(evidence: Evidence): Map<string, StatedSize> {
  const out = new Map<string, StatedSize>();
  for (const p of profileSigns(evidence.db).flatMap((s) => (s.parallelism ? [{ ...s.parallelism, seq: s.seq }] : [])) as (Parallelism & { seq: number })[]) {
    const ev = evidence.event(p.seq);
    const perMachine = ranksPerMachine(p);
    if (p.tpSize !== undefined) {
      out.set(p.role, {
        tp: p.tpSize,
        ...(p.dpSize !== undefined && { dp: p.dpSize }),
        ...(perMachine !== undefined && { perMachine }),
        where: `${p.statedIn} at ${ev ? evidence.where(ev) : `seq ${p.seq}`}`,
        seq: p.seq,
      });
    }
  }
  for (const role of SIDES) {
    const e = evidence.config().entry("tp_size", role);
    const tp = evidence.config().num("tp_size", role);
    if (e && tp !== undefined && !out.has(role)) out.set(role, { tp, where: `config record at ${evidence.where(e.ev)}`, seq: e.ev.seq });
  }
  return out;
}

/** TP ranks missing from each TP group ("decode", "d1/decode", "decode/pp1"), against the stated size when there is one. */
export function missingRanks(evidence: Evidence): Gap[] {
  const rows = evidence.rankRows().filter((r) => r.tp !== null && r.role !== null);
  const groups = new Map<string, { role: string; tps: Set<number> }>();
  for (const r of rows) {
    const label = evidence.rank(r);
    const group = label.slice(0, label.lastIndexOf("/tp"));
    const g = groups.get(group) ?? { role: r.role!, tps: new Set<number>() };
    groups.set(group, g);
    g.tps.add(r.tp!);
  }
  const stated = statedSizes(evidence);
  const out: Gap[] = [];
  const machineBlocks = new Map<string, Set<number>>();
  for (const [group, { role, tps }] of groups) {
    const s = stated.get(role);
    const size = Math.max(s?.tp ?? 0, Math.max(...tps) + 1);
    // A machine of a server spread over several owes the blocks its ranks fall in; blocks no machine shows are the role's.
    const blocks = s?.perMachine === undefined ? undefined : new Set([...tps].map((tp) => blockOf(s, tp)));
    if (blocks) machineBlocks.set(role, new Set([...(machineBlocks.get(role) ?? []), ...blocks]));
    const owed = [...Array(size).keys()].filter((tp) => blocks === undefined || blocks.has(blockOf(s!, tp)));
    const missing = owed.filter((tp) => !tps.has(tp)).map((tp) => `${group}/tp${tp}`);
    if (missing.length === 0) continue;
    const basis = s ? `tp_size=${s.tp} stated (${s.where})` : "size from the highest rank seen; no tp_size stated";
    const shown = blocks === undefined ? `${tps.size} of ${size} TP ranks` : `${tps.size} of the ${owed.length} TP ranks its machine runs`;
    // Ranks missing against the size the run states are the run contradicting the evidence (medium);
    // against the highest rank seen, an inference (a DP-attention rank logs batch lines only when it
    // has a batch, and an excerpt holds a few seconds of them): low, its rules blinded all the same.
    out.push(rankGap(evidence, role, missing, s, `${group} shows ${shown} (${basis}); missing ${missing.join(", ")}`, s ? "medium" : "low"));
  }
  for (const [role, blocks] of machineBlocks) {
    const gap = unshownMachines(evidence, role, stated.get(role)!, blocks);
    if (gap) out.push(gap);
  }
  return out;
}

/** The machine (block of ranks) of a TP rank of a server spread over several. */
function blockOf(s: StatedSize, tp: number): number {
  return Math.floor(tp / s.perMachine!);
}

/**
 * The ranks of a multi-machine server's blocks that no machine's folder shows. A whole machine's block absent is a
 * machine whose log was not collected, as a PD side with no source is: the input, not the run, so low (its rules
 * blinded all the same).
 */
function unshownMachines(evidence: Evidence, role: string, s: StatedSize, shown: ReadonlySet<number>): Gap | undefined {
  const missing = [...Array(s.tp).keys()].filter((tp) => !shown.has(blockOf(s, tp))).map((tp) => `${role}/tp${tp}`);
  if (missing.length === 0) return undefined;
  const detail = `${role} runs on ${s.tp / s.perMachine!} machines of ${s.perMachine} TP ranks each (tp_size=${s.tp} stated (${s.where})); no machine of it shows ${missing.join(", ")}`;
  return rankGap(evidence, role, missing, s, detail, "low");
}

function rankGap(evidence: Evidence, role: string, missing: string[], s: StatedSize | undefined, detail: string, severity: Gap["severity"]): Gap {
  const statement = s ? evidence.event(s.seq) : undefined;
  return {
    severity,
    witness: statement ? [statement] : [],
    gap: { kind: "missing-ranks", ranks: missing, blinds: rulesOfRanks(role), detail },
  };
}
