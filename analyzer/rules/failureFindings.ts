// What process-failure and transport-failure share: their failure records
// grouped one finding per cause (family and class, DESIGN.md "Findings": one
// finding per cause and mechanism), with the ranks, rooms and times the group
// covers and a representative witness per rank.

import { isoTime, uniqueEvents, type Evidence } from "./evidence.js";
import type { FailureFamily, FailureRecord } from "./failures.js";
import type { Gap } from "./gaps/index.js";
import type { DraftFinding } from "./rule.js";

/** Witness lines of one group: the first record of each rank, at most. */
const WITNESS_RANKS = 6;

export interface FailureGroup {
  family: FailureFamily;
  cls: string;
  records: FailureRecord[];
  ranks: string[];
  rooms: string[];
  fatal: boolean;
  /** The distinct messages of the group, first seen first. */
  summaries: string[];
}

export function groupFailures(records: FailureRecord[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const r of records) {
    const key = `${r.family}|${r.cls}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { family: r.family, cls: r.cls, records: [], ranks: [], rooms: [], fatal: false, summaries: [] }));
    g.records.push(r);
    if (!g.ranks.includes(r.rank)) g.ranks.push(r.rank);
    if (r.ev.room && !g.rooms.includes(r.ev.room)) g.rooms.push(r.ev.room);
    if (!g.summaries.includes(r.summary)) g.summaries.push(r.summary);
    g.fatal ||= r.fatal;
  }
  return [...groups.values()];
}

export interface GroupText {
  severity: DraftFinding["severity"];
  title: string;
  explanation: string;
  falsify: string;
  facts?: Record<string, unknown>;
}

/** The finding of one group, its texts given by the rule. */
export function groupFinding(rule: DraftFinding["rule"], g: FailureGroup, text: GroupText, extraWitness: DraftFinding["witness"] = []): DraftFinding {
  const first = g.records[0]!;
  const perRank = g.ranks.slice(0, WITNESS_RANKS).map((rank) => g.records.find((r) => r.rank === rank)!.ev);
  return {
    rule,
    severity: text.severity,
    verdict: "violated",
    title: text.title,
    ...(g.rooms[0] !== undefined && { room: g.rooms[0] }),
    ...(g.rooms.length > 1 && { rooms: g.rooms }),
    ranks: [...g.ranks].sort(),
    tsUs: first.ev.tsUs,
    witness: uniqueEvents([...perRank, ...extraWitness]),
    explanation: text.explanation,
    falsify: text.falsify,
    count: g.rooms.length > 1 ? g.rooms.length : g.records.length,
    facts: { family: g.family, cls: g.cls, fatal: g.fatal, ranks: g.ranks, firstUs: first.ev.tsUs, records: g.records.length, ...text.facts },
  };
}

/** "prefill/tp1" or "3 ranks (prefill/tp0, prefill/tp1, prefill/tp2)". */
export function ranksText(ranks: string[]): string {
  return ranks.length === 1 ? ranks[0]! : `${ranks.length} ranks (${[...ranks].sort().join(", ")})`;
}

/** Where and when the group starts, and how many more records it has. */
export function occurrence(evidence: Evidence, g: FailureGroup): string {
  const first = g.records[0]!;
  // A record with no time of its own (a dump, a traceback) carries one interpolated from its neighbours.
  const inferred = (first.ev as { tsInferred?: boolean }).tsInferred === true;
  const when = `${inferred ? "about " : ""}${isoTime(first.ev.tsUs)}`;
  const more = g.records.length > 1 ? ` and ${g.records.length - 1} more record(s)${g.ranks.length > 1 ? ` on ${g.ranks.length} ranks` : ""}` : "";
  return `${first.rank} logged \`${first.summary}\` at ${when} (${evidence.where(first.ev)})${more}`;
}

/** The silences (evidence gaps) that the group's deaths explain. */
export function silencesAfter(g: FailureGroup, gaps: readonly Gap[]): Gap[] {
  return gaps.filter((x) => x.gap.kind === "time-gap" && x.gap.explainedBy !== undefined && g.records.some((r) => r.fatal && x.witness.includes(r.ev)));
}
