// KVPoll status updates, the MIN reduction across ranks and conclude_state
// caching (docs/protocol.md §5, §8 "Reduction").

import { KVPoll, type Backend, type KVPollValue } from "../../domain/vocabulary.js";

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

/** What poll() reports of a side (§5): the conclude_state cache, else the stored status, else WaitingForInput for a room absent from request_status. */
export function polledState(concluded: KVPollValue | null, status: StoredStatus): KVPollValue {
  return concluded ?? status ?? KVPoll.WaitingForInput;
}

export function isTerminal(s: number): boolean {
  return s === KVPoll.Success || s === KVPoll.Failed;
}

/** What a sender and a receiver both keep of their KVPoll (§5): the stored status, the conclude_state cache, when and why it last changed. */
export interface PollStatus {
  status: StoredStatus;
  concluded: KVPollValue | null;
  changedSeq: number;
  reason: string | null;
}

/**
 * Applies a transition through the backend's update_status; the first
 * terminal status is cached as conclude_state, which poll() returns from then
 * on (§5). True if the stored status changed.
 */
export function setStatus(side: PollStatus, backend: Backend, next: KVPollValue, seq: number, reason?: string): boolean {
  const before = side.status;
  side.status = updateStatus(backend, before, next);
  if (side.status === before) return false;
  side.changedSeq = seq;
  if (reason !== undefined && side.status === KVPoll.Failed) side.reason = reason;
  if (side.concluded === null && side.status !== null && isTerminal(side.status)) side.concluded = side.status;
  return true;
}

