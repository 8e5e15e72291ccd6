// Timeline lanes: one per host / role / rank / component; a kind's component
// is its `lane` in the kinds table (domain/kinds.ts laneOfKind).

import { COMPONENTS, type Component } from "../../domain/vocabulary.js";

/** One timeline lane: a host / role / rank / component. */
export interface Lane {
  id: number;
  host: string | null;
  role: string | null;
  dp: number | null;
  pp: number | null;
  tp: number | null;
  component: Component;
  /** "p0/prefill" — the collapsible group a lane belongs to. */
  group: string;
  /** "DP0 TP3" or "no rank" — the rank within the group (rankLabel). */
  rank: string;
  events: number;
}

export type LaneKeyParts = Pick<Lane, "host" | "role" | "dp" | "pp" | "tp" | "component">;

/**
 * A rank as SGLang's log prefix names it (§1): DP and PP only when not 0 (a
 * probe record says `"pp": 0` where the log line has no PP tag at all, and
 * both are the same rank). Records with no TP (tokenizer, HTTP server, a
 * traceback block) share one "no rank" row per host and role.
 */
export function rankLabel(dp: number | null, pp: number | null, tp: number | null): string {
  if (tp === null) return "no rank";
  return [dp ? `DP${dp}` : "", pp ? `PP${pp}` : "", `TP${tp}`].filter(Boolean).join(" ");
}

export function groupLabel(host: string | null, role: string | null): string {
  return `${host ?? "?"}/${role ?? "unknown"}`;
}

/** Host, role and TP identify a rank (TP is numbered across DP groups); DP and PP only label it. */
export function laneKey(p: LaneKeyParts): string {
  return `${p.host ?? ""}\u0000${p.role ?? ""}\u0000${p.tp ?? ""}\u0000${p.component}`;
}

const ROLE_ORDER: Record<string, number> = { router: 0, prefill: 1, decode: 2, unknown: 3 };

/** Lanes in display order: host, role, rank, then the component order above. */
export function sortLanes(lanes: Omit<Lane, "id">[]): Lane[] {
  const cmpNullable = (a: number | null, b: number | null) => (a ?? -1) - (b ?? -1);
  return [...lanes]
    .sort(
      (a, b) =>
        (a.host ?? "").localeCompare(b.host ?? "", "en", { numeric: true }) ||
        (ROLE_ORDER[a.role ?? "unknown"] ?? 3) - (ROLE_ORDER[b.role ?? "unknown"] ?? 3) ||
        cmpNullable(a.tp, b.tp) ||
        COMPONENTS.indexOf(a.component) - COMPONENTS.indexOf(b.component),
    )
    .map((lane, id) => ({ ...lane, id }));
}
