// The collective sequence per rank at the cursor and the model's decision on
// each group that split (analyzer/model/collectives.ts): the ranks of one
// host and role are one process group per collective group, and every member
// must issue the same collective (op) at the same sequence number; the
// minority that entered another op (the overlap-schedule desync: some ranks in
// all_reduce, others in the on_idle broadcast with the same seq, DESIGN.md seed
// case 1) is the model's culprits. The UI draws that decision, never its own.

export interface CollectiveRow {
  rank: string;
  group: string;
  seq: number;
  op: string;
  site: string;
  inside: boolean;
}

export interface CollectiveDivergence {
  group: string;
  where: string;
  name: string;
  seq: number;
  op: string;
  ranks: string[];
  culprits: string[];
}

/** Rows in rank order (TP2 before TP10), by host and role, then group. */
export function sortCollectives<R extends CollectiveRow>(rows: readonly R[]): R[] {
  return [...rows].sort((a, b) => a.rank.localeCompare(b.rank, "en", { numeric: true }) || a.group.localeCompare(b.group));
}

/** Whether a row is a culprit's, and whether it sits at the seq where its group split. */
export function culpritMark(row: CollectiveRow, divergences: readonly CollectiveDivergence[]): { culprit: boolean; atSplit: boolean } {
  const d = divergences.find((x) => x.group === row.group && x.culprits.includes(row.rank));
  return { culprit: d !== undefined, atSplit: d !== undefined && d.seq === row.seq };
}

/** "p0/prefill tp_cpu: 2 ranks part ways at seq 69683 (…); the others are in all_reduce #69683". */
export function divergenceNote(d: CollectiveDivergence): string {
  const culprits = [...d.culprits].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  return `${d.where} ${d.name}: ${culprits.length} rank${culprits.length > 1 ? "s" : ""} part ways at seq ${d.seq} (${culprits.join(", ")}); the others are in ${d.op} #${d.seq}`;
}
