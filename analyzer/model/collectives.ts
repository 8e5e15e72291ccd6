// Per-rank collective sequences per group and the first divergent
// (group, seq), matched the way PyTorch Flight Recorder's fr_trace does it
// (docs/hicache-indexk.md §5.2, §5.3 [inference]; §3.5–§3.6 for why ranks
// diverge: an on_idle branch skips the collectives its peers enter).

export type DivergenceKind = "op-mismatch" | "digest-mismatch" | "missing-ranks";

export interface Divergence {
  group: string;
  /** The process group's ranks less their tp ("p0/prefill", or "prefill" when hosts are not qualified) and the collective group's name. */
  where: string;
  name: string;
  seq: number;
  kind: DivergenceKind;
  /** Ranks inside (or agreeing on) the collective: the majority. */
  ranks: number[];
  /** Every rank of the minority: entered another op or payload, or never entered. */
  culprits: number[];
  op: string;
  otherOp: string | null;
  site: string | null;
  /** Event seqs: the majority's first entry, then each culprit's scheduler iteration and entry (or last collective). */
  witness: number[];
  /** Each culprit's scheduler branch when it diverged (e.g. on_idle). */
  culpritBranches: (string | null)[];
  /** No member left the collective by the end of the records. */
  hang: boolean;
  /** The seq of the event that revealed the split. */
  changedSeq: number;
}

/** One rank's entry into the collective where its group split. */
interface SplitEntry {
  rank: number;
  op: string;
  digest: string | null;
  site: string;
  ev: number;
  iterBranch: string | null;
  iterEv: number;
}

/** A (group, seq) whose entrants disagree on op or payload: every entry into it, and whether anyone left it. */
export interface Split {
  seq: number;
  entries: SplitEntry[];
  exited: boolean;
  firstTsUs: number;
  changedSeq: number;
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
  /** Entrants so far and their entry events, in order (all agree with op and digest until the group splits here). */
  ranks: number[];
  evs: number[];
  firstTsUs: number;
}

export class GroupState {
  readonly members = new Map<number, Member>();
  readonly pending = new Map<number, SeqEntry>();
  /** The group's first split (FR reports the first divergent seq only). */
  split: Split | null = null;
  constructor(
    readonly key: string,
    readonly where: string,
    readonly name: string,
  ) {}
}

export interface RankIteration {
  branch: string;
  ev: number;
}

/** Labels order ranks the way findings list them (plain string order, as the rule sorts them). */
type LabelOf = (rank: number) => string;
const byLabel = (label: LabelOf) => (a: number, b: number) => (label(a) < label(b) ? -1 : label(a) > label(b) ? 1 : 0);

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
   * A rank enters collective `seq` of the group `key` (its own count when the
   * probe gives none). The first entry with another op or payload digest than
   * the seq's first entrant splits the group there; every later entry into
   * that seq joins the split, so the minority is known once all have entered.
   */
  enter(rank: number, key: string, where: string, name: string, seq: number | null, op: string, site: string, digest: string | null, ev: number, tsUs: number): void {
    const g = this.group(key, where, name);
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
      g.pending.set(s, { op, digest, site, ranks: [rank], evs: [ev], firstTsUs: tsUs });
      if (g.pending.size > 4096) this.prune(g);
      return;
    }
    e.ranks.push(rank);
    e.evs.push(ev);
    if (g.split === null && (e.op !== op || (e.digest !== null && digest !== null && e.digest !== digest))) {
      g.split = { seq: s, entries: e.ranks.slice(0, -1).map((r, i) => this.entry(r, e.op, e.digest, e.site, e.evs[i]!)), exited: false, firstTsUs: e.firstTsUs, changedSeq: ev };
    }
    if (g.split !== null && g.split.seq === s) {
      g.split.entries.push(this.entry(rank, op, digest, site, ev));
      g.split.changedSeq = ev;
    }
    if (e.ranks.length >= g.members.size) g.pending.delete(s);
  }

  exit(rank: number, key: string, where: string, name: string, ev: number): void {
    const g = this.group(key, where, name);
    const m = this.member(g, rank);
    m.inside = false;
    m.lastEv = ev;
    m.changedSeq = ev;
    if (g.split !== null && m.lastSeq === g.split.seq) g.split.exited = true;
  }

  /**
   * Each split group's decision so far: the (op, digest) most entrants chose
   * is the expected behaviour (unlike FR's "first rank is right"), every
   * other entrant a culprit. `final`: the records have ended, so members that
   * never entered the seq are culprits too, and a split nobody left for
   * `final.hangUs` before the records end is a hang (a split the records end
   * right after says nothing of a deadlock).
   */
  splits(label: LabelOf, final: { lastTsUs: number; hangUs: number } | null): Divergence[] {
    const out: Divergence[] = [];
    for (const g of this.groups.values()) if (g.split !== null) out.push(this.decide(g, g.split, label, final));
    return out;
  }

  /**
   * At the end of the incident, every group's decision: each split, then in
   * each group without one, ranks that have sat inside a collective
   * for at least `hangUs` while some member never entered that seq. The first
   * such (group, seq) is the divergence FR would report as "Not all ranks
   * joining collective".
   */
  finalDecisions(label: LabelOf, lastTsUs: number, hangUs: number): Divergence[] {
    const out = this.splits(label, { lastTsUs, hangUs });
    for (const g of this.groups.values()) {
      if (g.split !== null) continue;
      const stuck = [...g.members.values()].filter((m) => m.inside && lastTsUs - m.enterTsUs >= hangUs);
      const seqs = [...new Set(stuck.map((m) => m.lastSeq))].sort((a, b) => a - b);
      const s = seqs.find((q) => [...g.members.values()].some((m) => m.lastSeq < q));
      if (s === undefined) continue;
      const atS = stuck.filter((m) => m.lastSeq === s).sort((a, b) => byLabel(label)(a.rank, b.rank));
      const missing = [...g.members.values()].filter((m) => m.lastSeq < s).sort((a, b) => byLabel(label)(a.rank, b.rank));
      const witness = atS.map((m) => m.enterEv);
      const branches: (string | null)[] = [];
      for (const m of missing) {
        if (m.lastEv >= 0) witness.push(m.lastEv);
        const it = this.iterations.get(m.rank);
        if (it !== undefined) witness.push(it.ev);
        branches.push(it?.branch ?? null);
      }
      out.push({
        group: g.key, where: g.where, name: g.name, seq: s, kind: "missing-ranks", ranks: atS.map((m) => m.rank), culprits: missing.map((m) => m.rank),
        op: atS[0]!.op, otherOp: null, site: atS[0]!.site, witness, culpritBranches: branches, hang: true, changedSeq: Math.max(...atS.map((m) => m.enterEv)),
      });
    }
    return out;
  }

  private decide(g: GroupState, split: Split, label: LabelOf, final: { lastTsUs: number; hangUs: number } | null): Divergence {
    const order = byLabel(label);
    const entries = [...split.entries].sort((a, b) => order(a.rank, b.rank));
    const tally = new Map<string, SplitEntry[]>();
    for (const e of entries) {
      const k = `${e.op}\u0000${e.digest ?? ""}`;
      tally.get(k)?.push(e) ?? tally.set(k, [e]);
    }
    // Ties go to the choice whose first rank sorts first.
    const majority = [...tally.values()].sort((a, b) => b.length - a.length || order(a[0]!.rank, b[0]!.rank))[0]!;
    const expected = majority[0]!;
    const odd = entries.filter((e) => !majority.includes(e));
    const entered = new Set(entries.map((e) => e.rank));
    const absent = final ? [...g.members.values()].filter((m) => !entered.has(m.rank) && m.lastSeq < split.seq) : [];
    const culprits = [...odd.map((e) => ({ rank: e.rank, entry: e as SplitEntry | undefined })), ...absent.map((m) => ({ rank: m.rank, entry: undefined }))].sort((a, b) => order(a.rank, b.rank));
    const witness = [expected.ev];
    const branches: (string | null)[] = [];
    for (const c of culprits) {
      const it = c.entry ?? this.iterations.get(c.rank);
      const iterEv = c.entry ? c.entry.iterEv : (it as RankIteration | undefined)?.ev ?? -1;
      if (iterEv >= 0) witness.push(iterEv);
      if (c.entry) witness.push(c.entry.ev);
      else if ((g.members.get(c.rank)?.lastEv ?? -1) >= 0) witness.push(g.members.get(c.rank)!.lastEv);
      branches.push(c.entry ? c.entry.iterBranch : ((it as RankIteration | undefined)?.branch ?? null));
    }
    const otherOp = odd.find((e) => e.op !== expected.op)?.op ?? null;
    return {
      group: g.key, where: g.where, name: g.name, seq: split.seq, kind: otherOp !== null ? "op-mismatch" : "digest-mismatch",
      ranks: majority.map((e) => e.rank), culprits: culprits.map((c) => c.rank), op: expected.op, otherOp: otherOp ?? (odd[0]?.op ?? null), site: expected.site,
      witness, culpritBranches: branches, hang: final !== null && !split.exited && final.lastTsUs - split.firstTsUs >= final.hangUs, changedSeq: split.changedSeq,
    };
  }

  private entry(rank: number, op: string, digest: string | null, site: string, ev: number): SplitEntry {
    const it = this.iterations.get(rank);
    return { rank, op, digest, site, ev, iterBranch: it?.branch ?? null, iterEv: it?.ev ?? -1 };
  }

  private group(key: string, where: string, name: string): GroupState {
    let g = this.groups.get(key);
    if (g === undefined) this.groups.set(key, (g = new GroupState(key, where, name)));
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
      g.where,
      g.name,
      g.split === null ? null : [g.split.seq, g.split.exited ? 1 : 0, g.split.firstTsUs, g.split.changedSeq, g.split.entries.map((e) => [e.rank, e.op, e.digest, e.site, e.ev, e.iterBranch, e.iterEv])],
      [...g.members.values()].map((m) => [m.rank, m.lastSeq, m.inside ? 1 : 0, m.op, m.site, m.enterEv, m.enterTsUs, m.lastEv, m.changedSeq]),
      [...g.pending].map(([s, e]) => [s, e.op, e.digest, e.site, e.ranks, e.evs, e.firstTsUs]),
    ]);
    return [groups, [...this.iterations].map(([r, it]) => [r, it.branch, it.ev])];
  }

  static decode(a: unknown[]): CollectiveTracker {
    const t = new CollectiveTracker();
    for (const [key, where, name, split, members, pending] of a[0] as [string, string, string, unknown[] | null, unknown[][], unknown[][]][]) {
      const g = new GroupState(key, where, name);
      if (split !== null) {
        const [seq, exited, firstTsUs, changedSeq, entries] = split as [number, number, number, number, unknown[][]];
        g.split = {
          seq, exited: exited === 1, firstTsUs, changedSeq,
          entries: entries.map((r) => {
            const [rank, op, digest, site, ev, iterBranch, iterEv] = r as [number, string, string | null, string, number, string | null, number];
            return { rank, op, digest, site, ev, iterBranch, iterEv };
          }),
        };
      }
      for (const r of members) {
        const m = new Member(r[0] as number);
        [, m.lastSeq, , m.op, m.site, m.enterEv, m.enterTsUs, m.lastEv, m.changedSeq] = r as [number, number, number, string, string, number, number, number, number];
        m.inside = r[2] === 1;
        g.members.set(m.rank, m);
      }
      for (const p of pending) {
        const [s, op, digest, site, ranks, evs, firstTsUs] = p as [number, string, string | null, string, number[], number[], number];
        g.pending.set(s, { op, digest, site, ranks, evs, firstTsUs });
      }
      t.groups.set(key, g);
    }
    for (const [r, branch, ev] of a[1] as [number, string, number][]) t.iterations.set(r, { branch, ev });
    return t;
  }
}
