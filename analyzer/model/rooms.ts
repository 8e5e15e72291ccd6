// Rooms (bootstrap_room, a 63-bit integer kept as its decimal string): one
// sender per prefill rank and one receiver per decode rank, the transfer
// writes still in flight, and which once-per-room findings were raised.
// Concluded rooms retire after a horizon so state (and snapshots) stay small.

import { KVPoll } from "./api.js";
import type { DecodeReceiver } from "./receiver.js";
import type { PrefillSender } from "./sender.js";

/** Bits of RoomRec.flags: a finding of that kind was already raised for the room. */
export const FLAG = {
  stall: 1,
  incomplete: 2,
  collision: 4,
  stale: 8,
  beforeLanded: 16,
  ungated: 32,
} as const;

/**
 * Bits of RoomRec.assumed: what the model had to assume to apply a room's
 * observed events as facts (DESIGN.md "The reference model"); ASSUMPTIONS
 * says each in words.
 */
export const ASSUMED = {
  /** Prefill posted or finished a transfer for the room without a bootstrap record of it (no metadata frame, no arrival). */
  noBootstrap: 1,
  /** Decode's pages of the room are known only from its kv.free (no kv.alloc or kv.meta named them). */
  pagesFromFree: 2,
  /** A transfer was posted after decode freed the room's pages: it was placed on the pages the room had held. */
  postAfterFree: 4,
  /** The room read pages no kv.alloc gave it: they were taken as its own. */
  readerOwns: 8,
} as const;

export const ASSUMPTIONS: readonly [number, string][] = [
  [ASSUMED.noBootstrap, "prefill transferred the room without a bootstrap record of it; the transfer is taken as a fact and its bootstrap as unseen"],
  [ASSUMED.pagesFromFree, "decode's pages of the room are known only from its kv.free; no kv.alloc or kv.meta named them"],
  [ASSUMED.postAfterFree, "a transfer was posted after decode freed the room's pages; it is placed on the pages the room had held"],
  [ASSUMED.readerOwns, "the room read pages no kv.alloc gave it; they are taken as its own"],
];

/** The assumptions of a room's bits, in words. */
export function assumptionsOf(bits: number): string[] {
  if (bits === 0) return [];
  return ASSUMPTIONS.filter(([bit]) => bits & bit).map(([, text]) => text);
}

export class RoomRec {
  readonly prefill = new Map<number, PrefillSender>();
  readonly decode = new Map<number, DecodeReceiver>();
  /** Transfer writes posted for this room and not landed (shadow memory write slots). */
  inflight: number[] = [];
  flags = 0;
  /** Bits of ASSUMED. */
  assumed = 0;
  rid: string | null = null;
  /** Decode rank ports the room's metadata came from (queue routing by port sum). */
  dstPorts: number[] = [];
  /** The event that last moved this room forward (witness for stalls). */
  progressSeq: number;
  lastTsUs: number;

  constructor(
    readonly room: string,
    readonly createdSeq: number,
    tsUs: number,
  ) {
    this.progressSeq = createdSeq;
    this.lastTsUs = tsUs;
  }

  /** Every side the room has concluded (Success/Failed) and nothing of it is in flight. */
  settled(): boolean {
    if (this.inflight.length > 0) return false;
    for (const s of this.prefill.values()) if (s.concluded === null) return false;
    for (const r of this.decode.values()) if (r.concluded === null) return false;
    return true;
  }

  /**
   * A room decode gave up on (Failed: a timeout, an abort) with no prefill
   * side in the evidence: prefill may still write its pages, long after (the
   * late write of stale-slot-reuse), so the room's pages are kept in mind longer.
   */
  awaitsLateWrites(): boolean {
    if (this.prefill.size > 0) return false;
    for (const d of this.decode.values()) if (d.concluded === KVPoll.Failed) return true;
    return false;
  }

  /** MIN over the side's ranks of what their poll() reports (§8 reduction); null when the side is unknown. */
  prefillState(): number | null {
    let m: number | null = null;
    for (const s of this.prefill.values()) {
      const p = s.poll();
      if (m === null || p < m) m = p;
    }
    return m;
  }

  decodeState(): number | null {
    let m: number | null = null;
    for (const r of this.decode.values()) {
      const p = r.concluded ?? r.status ?? KVPoll.WaitingForInput;
      if (m === null || p < m) m = p;
    }
    return m;
  }
}

export class RoomRegistry {
  readonly rooms = new Map<string, RoomRec>();
  readonly byRid = new Map<string, string>();

  get(room: string, seq: number, tsUs: number): RoomRec {
    let r = this.rooms.get(room);
    if (r === undefined) this.rooms.set(room, (r = new RoomRec(room, seq, tsUs)));
    r.lastTsUs = tsUs;
    return r;
  }

  find(room: string): RoomRec | undefined {
    return this.rooms.get(room);
  }

  linkRid(rid: string, r: RoomRec): void {
    r.rid = rid;
    this.byRid.set(rid, r.room);
  }

  /** Drops rooms settled and untouched for `horizonUs`, or `lateHorizonUs` for rooms that await late writes. */
  retire(nowUs: number, horizonUs: number, lateHorizonUs: number): void {
    for (const r of this.rooms.values()) {
      if (nowUs - r.lastTsUs < (r.awaitsLateWrites() ? lateHorizonUs : horizonUs) || !r.settled()) continue;
      this.rooms.delete(r.room);
      if (r.rid !== null) this.byRid.delete(r.rid);
    }
  }
}
