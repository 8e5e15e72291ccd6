// What a violation says of itself: the witness lines' `why` texts of the
// checker (checker.ts).

import type { Distance, OrderClause } from "./ast.js";

/** Why a `has Q before` clause failed: no Q, the last Q came before the last `since` event, or it is out of reach. */
export function missedBefore(c: OrderClause, why: "none" | "stale" | "far"): string {
  if (why === "none") return `no ${c.other.kind} before it`;
  if (why === "stale") return `the last ${c.other.kind} before it came before the last ${c.since!.kind}`;
  return `the last ${c.other.kind} before it is too far ${distanceText(c.within)}`;
}

export function distanceText(within: Distance | undefined): string {
  if (!within) return "";
  return "us" in within ? `(more than ${within.us / 1000} ms)` : `(more than ${within.events} events)`;
}

export function shown(fields: readonly string[], value: string): string {
  const parts = value.split("\u0001");
  return fields.map((f, i) => `${f}=${parts[i] ?? ""}`).join(", ");
}
