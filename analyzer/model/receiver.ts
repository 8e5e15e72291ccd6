// The decode KV receiver: Bootstrapping at creation, WaitingForInput locally
// at init, the waiting timeout from send_metadata's init_time, abort() and the
// metadata gate (docs/protocol.md §5.2, §8).

import { type Profile } from "./api.js";
import { KVPoll, type Backend, type KVPollValue } from "../../domain/vocabulary.js";
import { setStatus, type PollStatus, type StoredStatus } from "./kvpoll.js";
import { decodeSendsAbortFor } from "./profile.js";
import { TransferStatus } from "./transferStatus.js";

/**
 * `_apply_metadata_gate` (§5.2): a polled Success reads as Transferring while
 * the metadata buffer's bootstrap_room slot is still 0 (aux not landed).
 */
export function metadataGate(polled: KVPollValue, metadataLanded: boolean): KVPollValue {
  return polled === KVPoll.Success && !metadataLanded ? KVPoll.Transferring : polled;
}

export function whetherDecodeSendsAbort(profile: Profile): boolean {
  return profile.decodeSendsAbort ?? decodeSendsAbortFor(profile.version);
}

/** One decode rank's receiver for one room. */
export class DecodeReceiver implements PollStatus {
  status: StoredStatus = KVPoll.Bootstrapping;
  concluded: KVPollValue | null = null;
  /** init_time: set at the end of send_metadata; the waiting timeout counts from it. */
  metaTsUs: number | null = null;
  metaSeq: number | null = null;
  /** The room's pages in this rank's pool, in sequence order (from the metadata sent to prefill). */
  pages: number[] = [];
  auxIndex: number | null = null;
  transfer: TransferStatus;
  abortNotified = false;
  /** When the room's pages on this rank were released (kv.free), -1 while held. */
  freedSeq = -1;
  /** Mooncake: prefill ranks whose Success status message arrived (§5.2). */
  successFrom: number[] = [];
  changedSeq: number;
  reason: string | null = null;

  constructor(
    readonly rank: number,
    readonly createdSeq: number,
    requiredResponses = 1,
    expectsState = false,
  ) {
    this.changedSeq = createdSeq;
    this.transfer = new TransferStatus(requiredResponses, expectsState);
  }

  set(backend: Backend, next: KVPollValue, seq: number, reason?: string): boolean {
    return setStatus(this, backend, next, seq, reason);
  }

  /** `init()` then `send_metadata`: WaitingForInput is local ("ready to send metadata", not a prefill ack). */
  metadataSent(backend: Backend, pages: number[], tsUs: number, seq: number): void {
    this.pages = pages;
    this.metaTsUs = tsUs;
    this.metaSeq = seq;
    this.set(backend, KVPoll.WaitingForInput, seq);
  }

  /**
   * NIXL `poll()`: notifications first, then conclude Success when
   * `TransferStatus.is_done()`; request_status never holds Success on decode.
   */
  poll(backend: Backend, seq: number): KVPollValue {
    if (this.concluded !== null) return this.concluded;
    if (backend === "nixl" && this.status !== KVPoll.Failed && this.transfer.isDone()) {
      this.concluded = KVPoll.Success;
      this.changedSeq = seq;
      return KVPoll.Success;
    }
    return this.status ?? KVPoll.WaitingForInput;
  }

  /**
   * `abort()` (§8 "Abort"): records "Aborted by AbortReq.", Failed, and sends
   * ABORT when bootstrap infos exist (after init) in versions that send it.
   * Returns whether an ABORT frame goes out.
   */
  abort(profile: Profile, seq: number, reason = "Aborted by AbortReq."): boolean {
    const infos = this.status !== null && this.status !== KVPoll.Bootstrapping;
    this.set(profile.backend, KVPoll.Failed, seq, reason);
    if (!infos || this.abortNotified || !whetherDecodeSendsAbort(profile)) return false;
    this.abortNotified = true;
    return true;
  }

  /** `_check_waiting_timeout` deadline: WaitingForInput since init_time for waitingTimeoutS (§5.2). */
  waitingDeadlineUs(profile: Profile): number {
    if (this.metaTsUs === null || this.concluded !== null || this.status !== KVPoll.WaitingForInput) return Infinity;
    return this.metaTsUs + profile.waitingTimeoutS * 1e6;
  }
}
