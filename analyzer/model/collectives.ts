// Per-rank collective sequences per group and the first divergent
// (group, seq), matched the way PyTorch Flight Recorder's fr_trace does it
// (docs/hicache-indexk.md §5.2, §5.3 [inference]; §3.5–§3.6 for why ranks
// diverge: an on_idle branch skips the collectives its peers enter).

export type DivergenceKind = "op-mismatch" | "digest-mismatch" | "missing-ranks";

export interface Divergence {
  group: string;
  seq: number;
  kind: DivergenceKind;
  /** Ranks inside (or agreeing on) the collective. */
  ranks: number[];
  /** Ranks that differ: entered another op, or never entered. */
  culprits: number[];
  op: string;
  otherOp: string | null;
  site: string | null;
  /** Event seqs, entries first, then each culprit's last collective and scheduler iteration. */
  witness: number[];
  /** For missing ranks: their last scheduler branch (e.g. on_idle). */
  culpritBranches: (string | null)[];
}

export class Member {
  lastSeq = -1;
  inside = false;
  op = "";
  site = "";
  enterEv = -1;
  enterTsUs = 0;
  lastEv = -1;
  changedSeq = -1;
  constructor(readonly rank: number) {}
}

interface SeqEntry {
  op: string;
  digest: string | null;
  site: string;
  firstRank: number;
  firstEv: number;
  count: number;
}

export class GroupState {
  readonly members = new Map<number, Member>();
  readonly pending = new Map<number, SeqEntry>();
  diverged = false;
  constructor(readonly key: string) {}
}

export interface RankIteration {
  branch: string;
  ev: number;
}

export class CollectiveTracker {
  readonly groups = new Map<string, GroupState>();
  /** Last scheduler iteration per rank (sched.iter). */
  readonly iterations = new Map<number, RankIteration>();

  iter(rank: number, branch: string, ev: number): void {
    const it = this.iterations.get(rank);
    if (it === undefined) this.iterations.set(rank, { branch, ev });
    else {
      it.branch = branch;
      it.ev = ev;
    }
  }

  /**
   * A rank enters collective `seq` of `group` (its own count when the probe
   * gives none). Returns the group's first divergence when this entry reveals
   * it: another rank entered the same seq with another op or payload digest.
   */
  enter(rank: number, groupKey: string, seq: number | null, op: string, site: string, digest: string | null, ev: number, tsUs: number): Divergence | null {
    const g = this.group(groupKey);
    const m = this.member(g, rank);
    const s = seq ?? m.lastSeq + 1;
    m.lastSeq = s;
    m.inside = true;
    m.op = op;
    m.site = site;
    m.enterEv = ev;
    m.enterTsUs = tsUs;
    m.lastEv = ev;
    m.changedSeq = ev;
    const e = g.pending.get(s);
    if (e === undefined) {
      g.pending.set(s, { op, digest, site, firstRank: rank, firstEv: ev, count: 1 });
      if (g.pending.size > 4096) this.prune(g);
      return null;
    }
    e.count++;
    let found: Divergence | null = null;
    if (!g.diverged) {
      const kind: DivergenceKind | null =
        e.op !== op ? "op-mismatch" : e.digest !== null && digest !== null && e.digest !== digest ? "digest-mismatch" : null;
      if (kind !== null) {
        g.diverged = true;
        found = { group: groupKey, seq: s, kind, ranks: [e.firstRank], culprits: [rank], op: e.op, otherOp: op, site: e.site, witness: [e.firstEv, ev], culpritBranches: [this.iterations.get(rank)?.branch ?? null] };
      }
    }
    if (e.count >= g.members.size) g.pending.delete(s);
    return found;
  }

  exit(rank: number, groupKey: string, ev: number): void {
    const g = this.group(groupKey);
    const m = this.member(g, rank);
    m.inside = false;
    m.lastEv = ev;
    m.changedSeq = ev;
  }

  /**
   * At the end of the incident: in each group, ranks that have sat inside a
   * collective for at least `hangUs` while some member never entered that
   * seq. The first such (group, seq) is the divergence FR would report as
   * "Not all ranks joining collective".
   */
  hangs(lastTsUs: number, hangUs: number): Divergence[] {
    const out: Divergence[] = [];
    for (const g of this.groups.values()) {
      if (g.diverged) continue;
      const stuck = [...g.members.values()].filter((m) => m.inside && lastTsUs - m.enterTsUs >= hangUs);
      const seqs = [...new Set(stuck.map((m) => m.lastSeq))].sort((a, b) => a - b);
      const s = seqs.find((q) => [...g.members.values()].some((m) => m.lastSeq < q));
      if (s === undefined) continue;
      const atS = stuck.filter((m) => m.lastSeq === s);
      const missing = [...g.members.values()].filter((m) => m.lastSeq < s);
      const witness = atS.map((m) => m.enterEv);
      const branches: (string | null)[] = [];
      for (const m of missing) {
        if (m.lastEv >= 0) witness.push(m.lastEv);
        const it = this.iterations.get(m.rank);
        if (it !== undefined) witness.push(it.ev);
        branches.push(it?.branch ?? null);
      }
      out.push({ group: g.key, seq: s, kind: "missing-ranks", ranks: atS.map((m) => m.rank), culprits: missing.map((m) => m.rank), op: atS[0]!.op, otherOp: null, site: atS[0]!.site, witness, culpritBranches: branches });
    }
    return out;
  }

  private group(key: string): GroupState {
    let g = this.groups.get(key);
    if (g === undefined) this.groups.set(key, (g = new GroupState(key)));
    return g;
  }

  private member(g: GroupState, rank: number): Member {
    let m = g.members.get(rank);
    if (m === undefined) g.members.set(rank, (m = new Member(rank)));
    return m;
  }

  /** Forgets seqs every member has passed (entries a member never reported would pile up otherwise). */
  private prune(g: GroupState): void {
    let min = Infinity;
    for (const m of g.members.values()) if (m.lastSeq < min) min = m.lastSeq;
    for (const s of g.pending.keys()) if (s < min) g.pending.delete(s);
  }

  encode(): unknown[] {
    const groups = [...this.groups.values()].map((g) => [
      g.key,
      g.diverged ? 1 : 0,
      [...g.members.values()].map((m) => [m.rank, m.lastSeq, m.inside ? 1 : 0, m.op, m.site, m.enterEv, m.enterTsUs, m.lastEv, m.changedSeq]),
      [...g.pending].map(([s, e]) => [s, e.op, e.digest, e.site, e.firstRank, e.firstEv, e.count]),
    ]);
    return [groups, [...this.iterations].map(([r, it]) => [r, it.branch, it.ev])];
  }

  static decode(a: unknown[]): CollectiveTracker {
    const t = new CollectiveTracker();
    for (const [key, div, members, pending] of a[0] as [string, number, unknown[][], unknown[][]][]) {
      const g = new GroupState(key);
      g.diverged = div === 1;
      for (const r of members) {
        const m = new Member(r[0] as number);
        [, m.lastSeq, , m.op, m.site, m.enterEv, m.enterTsUs, m.lastEv, m.changedSeq] = r as [number, number, number, string, string, number, number, number, number];
        m.inside = r[2] === 1;
        g.members.set(m.rank, m);
      }
      for (const p of pending) {
        const [s, op, digest, site, firstRank, firstEv, count] = p as [number, string, string | null, string, number, number, number];
        g.pending.set(s, { op, digest, site, firstRank, firstEv, count });
      }
      t.groups.set(key, g);
    }
    for (const [r, branch, ev] of a[1] as [number, string, number][]) t.iterations.set(r, { branch, ev });
    return t;
  }
}
