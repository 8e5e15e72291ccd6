// Version facts the store-only rules need when no replay profile is at hand
// (sglang-pd-logs-and-protocol.md §7.1, §7.2).

import type { AbortHandling } from "../model/api.js";

/** "0.5.14" → [0, 5, 14]; suffixes like "rc2" or "+cu128" are ignored. */
export function versionTuple(version: string): number[] {
  return version.replace(/^v/, "").split(/[.+-]/).slice(0, 3).map((p) => parseInt(p, 10) || 0);
}

export function versionAtLeast(version: string, min: string): boolean {
  const a = versionTuple(version);
  const b = versionTuple(min);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

/**
 * How the prefill bootstrap thread answers ABORT: NIXL v0.5.13–v0.5.15 asserts
 * (decode sends ABORT since v0.5.13, NIXL handles it from v0.5.16 without an
 * ACK); Mooncake marks the room Failed and answers ABORT_ACK.
 */
export function abortHandlingOf(backend: string | undefined, version: string | undefined): AbortHandling | undefined {
  if (backend === "mooncake") return "failed-ack";
  if (backend !== "nixl" || version === undefined) return undefined;
  return versionAtLeast(version, "0.5.16") ? "failed-no-ack" : "fatal-assert";
}
