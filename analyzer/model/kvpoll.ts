// KVPoll status updates, the MIN reduction across ranks and conclude_state
// caching (sglang-pd-logs-and-protocol.md §5, §8 "Reduction").

import { KVPoll, type Backend, type KVPollValue } from "./api.js";

/** `null` is a room absent from `request_status` (never seen, or cleared). */
export type StoredStatus = KVPollValue | null;

/**
 * `CommonKVManager.update_status` (§5): an absent room ignores a new Failed (no
 * resurrection after clear()) and stores anything else; a present room takes
 * Failed unconditionally, else max(old, new). Because Failed is 0, a later
 * non-Failed update overwrites Failed: Mooncake keeps this base rule.
 */
export function updateStatusBase(old: StoredStatus, next: KVPollValue): StoredStatus {
  if (old === null) return next === KVPoll.Failed ? null : next;
  if (next === KVPoll.Failed) return KVPoll.Failed;
  return (next > old ? next : old) as KVPollValue;
}

/** NIXL overrides update_status: Failed is sticky until clear() (§5, #30352). */
export function updateStatusNixl(old: StoredStatus, next: KVPollValue): StoredStatus {
  if (old === KVPoll.Failed) return KVPoll.Failed;
  return updateStatusBase(old, next);
}

export function updateStatus(backend: Backend, old: StoredStatus, next: KVPollValue): StoredStatus {
  return backend === "nixl" ? updateStatusNixl(old, next) : updateStatusBase(old, next);
}

/**
 * `poll_and_all_reduce`: all_reduce(MIN) of the per-rank polls over the
 * attn-TP group (§8): Failed dominates, Success only if every rank has it.
 */
export function minReduce(polls: ArrayLike<number>): KVPollValue {
  let m = KVPoll.Success as number;
  for (let i = 0; i < polls.length; i++) if (polls[i]! < m) m = polls[i]!;
  return m as KVPollValue;
}

export function isTerminal(s: number): boolean {
  return s === KVPoll.Success || s === KVPoll.Failed;
}

/**
 * A sender's or receiver's `poll()` caches the first terminal state it sees in
 * `conclude_state` and returns it from then on (§5).
 */
export class ConcludedPoll {
  concluded: KVPollValue | null = null;

  poll(current: KVPollValue): KVPollValue {
    if (this.concluded !== null) return this.concluded;
    if (isTerminal(current)) this.concluded = current;
    return current;
  }
}

export const KVPOLL_NAMES = ["Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success"] as const;

/** "WaitingForInput" or "KVPoll.WaitingForInput" → 2; anything else → null. */
export function kvPollFromName(name: string): KVPollValue | null {
  const bare = name.startsWith("KVPoll.") ? name.slice(7) : name;
  const i = (KVPOLL_NAMES as readonly string[]).indexOf(bare);
  return i < 0 ? null : (i as KVPollValue);
}
