// Timeline lanes: one per host / role / rank / component. The component is
// derived from the event kind, so a new kind lands in a sensible lane without
// a table edit: probe kinds are `<area>.<what>` (DESIGN.md "Probe JSONL
// record"), log kinds follow LogKind in domain/event.ts.

import type { Lane } from "../wire.js";
import type { Component } from "../../domain/vocabulary.js";

export const COMPONENTS: readonly Component[] = ["scheduler", "transfer", "bootstrap", "hicache", "kernels", "collectives", "checksums", "logs"];

/** Exact kinds whose prefix alone would put them in the wrong lane. */
const KIND_COMPONENT: Record<string, Component> = {
  "pd.bootstrap_failed": "bootstrap",
  "pd.handshake_failed": "bootstrap",
  "pd.node_failure": "bootstrap",
  "pd.transfer_failed": "transfer",
  "pd.timeout_warning": "transfer",
  "pd.room_timeout": "transfer",
  "pd.metadata_not_ready": "transfer",
  "pd.context_corruption": "transfer",
  "coll.watchdog": "collectives",
  "abort.request": "scheduler",
  checksum: "checksums",
  config: "logs",
};

const PREFIX_COMPONENT: Record<string, Component> = {
  nccl: "collectives",
  batch: "scheduler",
  sched: "scheduler",
  req: "scheduler",
  http: "scheduler",
  pd: "scheduler",
  kv: "transfer",
  xfer: "transfer",
  boot: "bootstrap",
  abort: "bootstrap",
  hicache: "hicache",
  kernel: "kernels",
  coll: "collectives",
  checksum: "checksums",
  log: "logs",
};

export function componentOfKind(kind: string): Component {
  const exact = KIND_COMPONENT[kind];
  if (exact) return exact;
  const dot = kind.indexOf(".");
  return PREFIX_COMPONENT[dot < 0 ? kind : kind.slice(0, dot)] ?? "logs";
}

/** How loud a kind is on the timeline: 0 routine, 1 worth a look, 2 a failure. */
export function toneOfKind(kind: string, state: number | null): 0 | 1 | 2 {
  if (state === 0) return 2; // KVPoll.Failed
  if (kind === "boot.exit" || /(fail|error|exception|corruption|watchdog|crash)/.test(kind)) return 2;
  if (/(abort|timeout|mismatch|retract)/.test(kind)) return 1;
  return 0;
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
