// What a suspect's case is made of, and the readings of findings that several causes' cases share (suspects.ts,
// failureCauses.ts).

import type { DraftFinding } from "./rule.js";

export interface NumberedFinding {
  id: string;
  draft: DraftFinding;
}

/** One piece of evidence for a cause: how directly it proves it, the findings it rests on, and what it says. */
export interface Indication {
  weight: number;
  findings: string[];
  note: string;
}

export interface CauseCase {
  for: Indication[];
  /** Factors below 1 for evidence against the cause. */
  against: { factor: number; note: string }[];
  /** The experiment that would refute the cause as this evidence makes it, where it differs from the cause's own. */
  falsify?: string;
}

/** The violated findings of one rule. */
export type Of = (rule: DraftFinding["rule"]) => NumberedFinding[];

export function ids(fs: readonly NumberedFinding[]): string[] {
  return fs.map((f) => f.id);
}

export function wedges(of: Of): NumberedFinding[] {
  return of("transfer-stall").filter((f) => f.draft.facts?.wedgeStartUs !== undefined);
}

export function timeouts(of: Of): NumberedFinding[] {
  return of("transfer-stall").filter((f) => Array.isArray(f.draft.facts?.rooms));
}

/**
 * "d0/decode/tp1, p0/prefill/tp0: " for the ranks the findings name (or those `of` picks from each), each once; nothing
 * when they name none (a process of unknown role).
 */
export function namedRanks(findings: readonly NumberedFinding[], of: (f: NumberedFinding) => readonly string[] = (f) => f.draft.ranks): string {
  const ranks = [...new Set(findings.flatMap(of))].filter((r) => r !== "unknown");
  return ranks.length ? `${ranks.join(", ")}: ` : "";
}

/** Transport failures other than transfers an abort stopped (a client's or the other side's, not the transport's doing) and a router's failed probes. */
export function transportFailures(of: Of): NumberedFinding[] {
  return of("transport-failure").filter((f) => f.draft.facts?.aborted !== true && f.draft.facts?.probesOnly !== true);
}

/** The model's per-room stall causes behind a timeout finding. */
export function causesOf(f: NumberedFinding): Record<string, number> {
  return (f.draft.facts?.causes as Record<string, number> | undefined) ?? {};
}

/** Every room a finding names: a grouped finding's rooms, else its room. */
export function roomsOf(f: NumberedFinding): string[] {
  return f.draft.rooms ?? (f.draft.room !== undefined ? [f.draft.room] : []);
}
