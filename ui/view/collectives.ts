// The collective sequence per rank at the cursor, read for divergence: the
// ranks of one host and role are one process group per collective group, and
// every member must issue the same collective (op) at the same sequence
// number; a rank that sits at another (seq, op) than the rest has parted ways
// (the overlap-schedule desync: some ranks in all_reduce, others in the
// on_idle broadcast with the same seq, DESIGN.md seed case 1).

export interface CollectiveRow {
  rank: string;
  group: string;
  seq: number;
  op: string;
  site: string;
  inside: boolean;
  changedAt: number;
}

export interface DivergedGroup {
  /** "p0/prefill" and the collective group, e.g. "tp". */
  where: string;
  group: string;
  /** The (seq, op) most members are at. */
  majority: { seq: number; op: string };
  divergent: string[];
  /** The lowest seq at which a member is not where the majority is. */
  firstDivergentSeq: number;
}

/** "p0/prefill/tp3" → "p0/prefill"; a rank of one part stays as it is. */
const processGroupOf = (rank: string) => (rank.includes("/") ? rank.slice(0, rank.lastIndexOf("/")) : rank);

/** Rows in rank order (TP2 before TP10), by host and role, then group. */
export function sortCollectives(rows: readonly CollectiveRow[]): CollectiveRow[] {
  return [...rows].sort((a, b) => a.rank.localeCompare(b.rank, "en", { numeric: true }) || a.group.localeCompare(b.group));
}

export function divergence(rows: readonly CollectiveRow[]): DivergedGroup[] {
  const byGroup = new Map<string, CollectiveRow[]>();
  for (const r of rows) {
    const key = `${processGroupOf(r.rank)}\u0000${r.group}`;
    byGroup.get(key)?.push(r) ?? byGroup.set(key, [r]);
  }
  const out: DivergedGroup[] = [];
  for (const [key, members] of byGroup) {
    if (members.length < 2) continue;
    const tally = new Map<string, number>();
    for (const m of members) tally.set(`${m.seq}\u0000${m.op}`, (tally.get(`${m.seq}\u0000${m.op}`) ?? 0) + 1);
    if (tally.size < 2) continue;
    const [top] = [...tally].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const [seq, op] = top![0].split("\u0000") as [string, string];
    const majority = { seq: Number(seq), op };
    const divergent = members.filter((m) => m.seq !== majority.seq || m.op !== majority.op);
    const [where, group] = key.split("\u0000") as [string, string];
    out.push({
      where,
      group,
      majority,
      divergent: divergent.map((m) => m.rank).sort((a, b) => a.localeCompare(b, "en", { numeric: true })),
      firstDivergentSeq: Math.min(...divergent.map((m) => m.seq)),
    });
  }
  return out.sort((a, b) => a.where.localeCompare(b.where, "en", { numeric: true }) || a.group.localeCompare(b.group));
}
