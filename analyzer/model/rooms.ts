// Rooms (bootstrap_room, a 63-bit integer kept as its decimal string): one
// sender per prefill rank and one receiver per decode rank, the transfer
// writes still in flight, and which once-per-room findings were raised.
// Concluded rooms retire after a horizon so state (and snapshots) stay small.

import { KVPoll } from "../../domain/vocabulary.js";
import type { DecodeReceiver } from "./receiver.js";
import type { StoredRooms } from "./roomSnapshot.js";
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
}

/**
 * The live rooms in creation order. A registry restored from a snapshot
 * starts with every room as a row of the snapshot's tables and makes a room
 * a record only when an event, a due timeout or a snapshot needs it: a wedged
 * incident's snapshot holds tens of thousands of rooms, and building them all
 * as objects was most of a time-travel step. A room becomes a record in its
 * place (Map.set keeps the order), so iteration order is that of the
 * original registry.
 */
export class RoomRegistry {
  private readonly entries = new Map<string, RoomRec | number>();
  readonly byRid = new Map<string, string>();

  constructor(private readonly stored: StoredRooms | null = null) {}

  get size(): number {
    return this.entries.size;
  }

  get(room: string, seq: number, tsUs: number): RoomRec {
    let r = this.find(room);
    if (r === undefined) this.entries.set(room, (r = new RoomRec(room, seq, tsUs)));
    r.lastTsUs = tsUs;
    return r;
  }

  find(room: string): RoomRec | undefined {
    const e = this.entries.get(room);
    return typeof e === "number" ? this.materialize(room, e) : e;
  }

  /** A room as row `row` of the stored tables; only a restore (roomSnapshot.ts decodeRooms) adds rooms this way. */
  addStored(room: string, row: number, rid: string | null): void {
    this.entries.set(room, row);
    if (rid !== null) this.byRid.set(rid, room);
  }

  linkRid(rid: string, r: RoomRec): void {
    r.rid = rid;
    this.byRid.set(rid, r.room);
  }

  /** Every room as a record, in order (materializes stored rows). */
  records(): RoomRec[] {
    const out: RoomRec[] = [];
    for (const [room, e] of this.entries) out.push(typeof e === "number" ? this.materialize(room, e) : e);
    return out;
  }

  /**
   * Calls `each` in order for every room that is a record and for every stored
   * room whose earliest deadline is at or before `nowUs` (made a record
   * first); returns the earliest deadline of the stored rooms left out.
   */
  forEachDueBy(nowUs: number, each: (r: RoomRec) => void): number {
    let next = Infinity;
    for (const [room, e] of this.entries) {
      if (typeof e !== "number") each(e);
      else {
        const due = this.stored!.deadlineUs(e);
        if (due <= nowUs) each(this.materialize(room, e));
        else if (due < next) next = due;
      }
    }
    return next;
  }

  /** Visits every room in order: a record, or a stored row (read without making it a record). */
  visit(record: (r: RoomRec) => void, storedRow: (rows: StoredRooms, row: number) => void): void {
    for (const e of this.entries.values()) {
      if (typeof e === "number") storedRow(this.stored!, e);
      else record(e);
    }
  }

  /** Drops rooms settled and untouched for `horizonUs`, or `lateHorizonUs` for rooms that await late writes. */
  retire(nowUs: number, horizonUs: number, lateHorizonUs: number): void {
    for (const [room, e] of this.entries) {
      if (typeof e === "number") {
        const t = this.stored!;
        if (nowUs - t.lastTsUs(e) < (t.awaitsLateWrites(e) ? lateHorizonUs : horizonUs) || !t.settled(e)) continue;
      } else if (nowUs - e.lastTsUs < (e.awaitsLateWrites() ? lateHorizonUs : horizonUs) || !e.settled()) continue;
      this.entries.delete(room);
      const rid = typeof e === "number" ? this.stored!.rid(e) : e.rid;
      if (rid !== null) this.byRid.delete(rid);
    }
  }

  private materialize(room: string, row: number): RoomRec {
    const r = this.stored!.materialize(row);
    this.entries.set(room, r);
    return r;
  }
}
