// The shared words of kvrewind: roles, KVPoll, backends, dtypes, timeline
// components, rule and cause ids, verdicts and severities. Every floor reads
// them from here; this file imports nothing (DESIGN.md "Layout": domain/).

export type Role = "prefill" | "decode" | "router" | "unknown";

export const ROLES: readonly Role[] = ["prefill", "decode", "router", "unknown"];

/** KVPoll (docs/protocol.md §5): a plain class of ints, not an Enum. */
export const KVPoll = {
  Failed: 0,
  Bootstrapping: 1,
  WaitingForInput: 2,
  Transferring: 3,
  Success: 4,
} as const;
export type KVPollValue = (typeof KVPoll)[keyof typeof KVPoll];

export type Backend = "nixl" | "mooncake";
export type IndexKDtype = "fp8" | "bf16";

export const KVPOLL_NAMES = ["Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success"] as const;

/** "WaitingForInput" or "KVPoll.WaitingForInput" → 2; anything else → null. */
export function kvPollFromName(name: string): KVPollValue | null {
  const bare = name.startsWith("KVPoll.") ? name.slice(7) : name;
  const i = (KVPOLL_NAMES as readonly string[]).indexOf(bare);
  return i < 0 ? null : (i as KVPollValue);
}

/** The timeline component a kind is drawn in (domain/kinds.ts gives each kind one). */
export const COMPONENTS = ["scheduler", "transfer", "bootstrap", "hicache", "kernels", "collectives", "checksums", "metrics", "traces", "logs"] as const;
export type Component = (typeof COMPONENTS)[number];

export const RULE_IDS = [
  "read-before-landed-write",
  "hicache-ungated-read",
  "unhandled-abort",
  "collective-divergence",
  "transfer-stall",
  "stale-slot-reuse",
  "checksum-mismatch",
  "page-bytes",
  "incomplete-completion",
  "pool-sizing-mismatch",
  "address-overflow",
  "metadata-collision",
  "process-failure",
  "transport-failure",
  "evidence-gap",
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export const SEVERITIES = ["critical", "high", "medium", "low", "info"] as const;
export type Severity = (typeof SEVERITIES)[number];

export const VERDICTS = ["violated", "consistent", "undetermined"] as const;
export type Verdict = (typeof VERDICTS)[number];

export const CAUSE_IDS = [
  "overlap-collective-desync",
  "unhandled-abort",
  "hicache-indexk-race",
  "stale-slot-reuse",
  "pool-sizing-fp8-hardcoded",
  "transfer-saturation",
  "indexer-address-overflow",
  "item-len-mismatch",
  "uncounted-state-transfer",
  "process-crash",
  "transport-failure",
] as const;
export type CauseId = (typeof CAUSE_IDS)[number];

/** Lower is more severe; `atOrAbove(s, floor)` compares by this order. */
export function severityRank(s: Severity): number {
  return SEVERITIES.indexOf(s);
}

export function atOrAbove(s: Severity, floor: Severity): boolean {
  return severityRank(s) <= severityRank(floor);
}
