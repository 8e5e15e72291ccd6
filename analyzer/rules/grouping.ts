// One finding per cause, not per room (DESIGN.md "Findings"): findings a rule
// drew up room by room are merged when they share a mechanism. The first
// room's finding leads (its title, witness, explanation and facts); the
// others add their rooms, ranks, a few representative witness lines and the
// count.

import { severityRank } from "../../domain/vocabulary.js";
import { uniqueEvents } from "./evidence.js";
import type { DraftFinding } from "./rule.js";

/** Rooms of a merged finding whose first witness line joins the lead's, at most. */
const REPRESENTATIVE_ROOMS = 3;

export function mergeByMechanism(findings: DraftFinding[], mechanism: (f: DraftFinding) => string, title: (lead: DraftFinding, rooms: number) => string): DraftFinding[] {
  const groups = new Map<string, DraftFinding[]>();
  for (const f of findings) {
    const key = f.verdict === "violated" ? `v|${mechanism(f)}` : `${f.verdict}|${groups.size}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.values()].map((g) => (g.length === 1 ? g[0]! : merged(g, title)));
}

function merged(g: DraftFinding[], title: (lead: DraftFinding, rooms: number) => string): DraftFinding {
  const lead = g[0]!;
  const rest = g.slice(1);
  const rooms = [...new Set(g.flatMap((f) => f.rooms ?? (f.room !== undefined ? [f.room] : [])))];
  const severity = g.reduce((s, f) => (severityRank(f.severity) < severityRank(s) ? f.severity : s), lead.severity);
  return {
    ...lead,
    severity,
    title: title(lead, rooms.length),
    ranks: [...new Set(g.flatMap((f) => f.ranks))].sort(),
    witness: uniqueEvents([...lead.witness, ...rest.slice(0, REPRESENTATIVE_ROOMS).flatMap((f) => f.witness.slice(0, 1))]),
    explanation: `${lead.explanation} The same holds for ${rest.length} more room(s): ${rest.slice(0, 10).map((f) => f.room ?? "?").join(", ")}${rest.length > 10 ? " …" : ""}.`,
    ...(rooms.length > 1 && { rooms }),
    count: rooms.length || g.length,
    checked: g.reduce((n, f) => n + (f.checked ?? 0), 0),
    facts: { ...lead.facts, groupRooms: rooms, grouped: g.map((f) => f.facts ?? {}) },
  };
}

