// The prefill KV sender and its transfer workers: queue routing, chunk ids,
// is_last, and the request_status transitions per backend
// (docs/protocol.md §5.1, §6 "Chunk routing", "Worker loop", §7.2).

import { type Profile } from "./api.js";
import { KVPoll, type Backend, type KVPollValue } from "../../domain/vocabulary.js";
import { polledState, setStatus, type PollStatus, type StoredStatus } from "./kvpoll.js";

/**
 * The transfer queue a room's chunks go to. NIXL before v0.5.17:
 * `bootstrap_room % n`; NIXL from v0.5.17 (#32025) and Mooncake: the sum of
 * the destination ports `% n`. Null when there are no queues (NIXL ≤ v0.5.11
 * posted inline) or the ports the rule needs are unknown.
 */
export function routeQueue(
  rule: Profile["queueRouting"],
  queues: number,
  room: string,
  dstPorts: readonly number[] | null,
): number | null {
  if (queues <= 0) return null;
  if (rule === "room-mod") return Number(BigInt(room) % BigInt(queues));
  if (dstPorts === null || dstPorts.length === 0) return null;
  let sum = 0;
  for (const p of dstPorts) sum += p;
  return sum % queues;
}

export interface ChunkSend {
  /** Null: an empty non-final chunk, which is not sent and uses no id. */
  chunkId: number | null;
  isLast: boolean;
}

/**
 * `NixlKVSender.send` bookkeeping (§6): chunk ids start at 0 and grow by one
 * per chunk actually sent; `should_send_kv_chunk` = pages > 0 or last;
 * is_last is page-based (`curr_idx == num_kv_indices`).
 */
export class ChunkCounter {
  private currIdx = 0;
  private nextId = 0;

  constructor(readonly numKvIndices: number) {}

  send(numPages: number): ChunkSend {
    this.currIdx += numPages;
    const isLast = this.currIdx === this.numKvIndices;
    if (numPages === 0 && !isLast) return { chunkId: null, isLast };
    return { chunkId: this.nextId++, isLast };
  }
}

/** One prefill rank's sender for one room: `kv_mgr.request_status[room]` and what the workers did. */
export class PrefillSender implements PollStatus {
  status: StoredStatus = KVPoll.Bootstrapping;
  /** conclude_state: the first terminal state poll() returned. */
  concluded: KVPollValue | null = null;
  transferInfos = 0;
  chunksPosted = 0;
  pagesPosted = 0;
  chunksDone = 0;
  lastChunk: number | null = null;
  queue: number | null = null;
  changedSeq: number;
  reason: string | null = null;

  constructor(
    readonly rank: number,
    readonly initTsUs: number,
    readonly initSeq: number,
  ) {
    this.changedSeq = initSeq;
  }

  /** Applies a transition through the backend's update_status; true if the stored status changed. */
  set(backend: Backend, next: KVPollValue, seq: number, reason?: string): boolean {
    return setStatus(this, backend, next, seq, reason);
  }

  /** What the scheduler's poll() reports: the cached terminal state, else the stored one. */
  poll(): KVPollValue {
    return polledState(this.concluded, this.status);
  }

  /** A worker picked up a chunk: NIXL stores Transferring, Mooncake never does (§5.1). */
  chunkPosted(backend: Backend, pages: number, chunk: number | null, isLast: boolean, seq: number): void {
    this.chunksPosted++;
    this.pagesPosted += pages;
    if (isLast && chunk !== null) this.lastChunk = chunk;
    if (backend === "nixl") this.set(backend, KVPoll.Transferring, seq);
    else this.changedSeq = seq;
  }

  /** A chunk's transfer handles are done; the last one concludes Success (§6 worker loop step 5). */
  chunkDone(backend: Backend, chunk: number | null, seq: number): void {
    this.chunksDone++;
    this.changedSeq = seq;
    if (chunk !== null && chunk === this.lastChunk) this.set(backend, KVPoll.Success, seq);
  }

  /** Bootstrapping → Failed once `now - init_time ≥ timeout`, when the profile times prefill out (§5.1). */
  bootstrapDeadlineUs(profile: Profile): number {
    if (!profile.prefillBootstrapTimeout || this.poll() !== KVPoll.Bootstrapping) return Infinity;
    return this.initTsUs + profile.bootstrapTimeoutS * 1e6;
  }
}
