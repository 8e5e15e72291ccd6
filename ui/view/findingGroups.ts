// Findings as a person reads them: one entry per rule and cause, not one per
// room. A finding the analyzer already grouped carries `rooms` and `count`
// (DESIGN.md "Findings": one finding listing its rooms); findings that were
// not grouped are grouped here by rule, verdict and the shape of their title
// (the title with its numbers — rooms, counts, times — taken out), so that 58
// "Room N timed out …" findings are one entry of 58 rooms. Violated entries
// come in severity order; every other verdict goes to a section of its own.

import { SEVERITIES } from "../../domain/vocabulary.js";
import type { Finding, Suspect } from "../wire.js";

export interface FindingGroup {
  /** The finding that stands for the group: its first member (by id), whose witnesses the timeline shows. */
  lead: Finding;
  members: Finding[];
  rule: string;
  severity: string;
  verdict: string;
  /** Every room the group names, in first-seen order, lossless. */
  rooms: string[];
  /** Instances grouped: the analyzer's count where it gave one, else the members. */
  count: number;
  /** Suspects (by rank) that cite a member. */
  citedBy: number[];
}

export interface GroupedFindings {
  violated: FindingGroup[];
  /** consistent, undetermined, …: not evidence of a fault; shown apart and folded. */
  other: FindingGroup[];
}

/** F2 before F10. */
export function compareIds(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

const severityRank = (s: string) => {
  const i = (SEVERITIES as readonly string[]).indexOf(s);
  return i < 0 ? SEVERITIES.length : i;
};

/** A title with its numbers (19-digit rooms, counts, times, rank numbers) made alike. */
export function titleShape(title: string): string {
  return title.replace(/\d+(?:\.\d+)?/g, "#");
}

function roomsOf(f: Finding): string[] {
  const listed = Array.isArray(f.body["rooms"]) ? (f.body["rooms"] as unknown[]).filter((r): r is string => typeof r === "string") : [];
  return listed.length ? listed : f.body.room ? [f.body.room] : [];
}

export function groupFindings(findings: readonly Finding[], suspects: readonly Suspect[]): GroupedFindings {
  const byKey = new Map<string, Finding[]>();
  for (const f of [...findings].sort((a, b) => compareIds(a.id, b.id))) {
    const key = `${f.rule}\u0000${f.verdict}\u0000${titleShape(f.title)}`;
    byKey.get(key)?.push(f) ?? byKey.set(key, [f]);
  }
  const citing = new Map<string, number[]>();
  for (const s of suspects) for (const id of s.body.findings ?? []) citing.get(id)?.push(s.rank) ?? citing.set(id, [s.rank]);
  const groups = [...byKey.values()].map((members): FindingGroup => {
    const rooms = [...new Set(members.flatMap(roomsOf))];
    const counted = members.reduce((n, f) => n + (typeof f.body["count"] === "number" ? (f.body["count"] as number) : 1), 0);
    return {
      lead: members[0]!,
      members,
      rule: members[0]!.rule,
      severity: members.map((m) => m.severity).sort((a, b) => severityRank(a) - severityRank(b))[0]!,
      verdict: members[0]!.verdict,
      rooms,
      count: Math.max(counted, members.length),
      citedBy: [...new Set(members.flatMap((m) => citing.get(m.id) ?? []))].sort((a, b) => a - b),
    };
  });
  const order = (a: FindingGroup, b: FindingGroup) =>
    severityRank(a.severity) - severityRank(b.severity) ||
    (a.citedBy[0] ?? Infinity) - (b.citedBy[0] ?? Infinity) ||
    (a.lead.tsUs ?? Infinity) - (b.lead.tsUs ?? Infinity) ||
    compareIds(a.lead.id, b.lead.id);
  return {
    violated: groups.filter((g) => g.verdict === "violated").sort(order),
    other: groups.filter((g) => g.verdict !== "violated").sort((a, b) => a.verdict.localeCompare(b.verdict) || order(a, b)),
  };
}

/** The group a finding id belongs to. */
export function groupOf(grouped: GroupedFindings, id: string): FindingGroup | undefined {
  return [...grouped.violated, ...grouped.other].find((g) => g.members.some((m) => m.id === id));
}

/** The rooms "in this finding": its group's and its own. */
export function roomsOfFinding(grouped: GroupedFindings, f: Finding): string[] {
  return [...new Set([...(groupOf(grouped, f.id)?.rooms ?? []), ...(f.body.room ? [f.body.room] : [])])];
}
