// Where a room's records end, for a scan that holds state per room: the last
// seq of the last block the room occurs in (the blocks' room keys), looked up
// when the scan first meets the room. The scan drops a room's state once it
// is past that seq, so what it holds is the rooms in flight, with neither a
// first pass over the incident nor a map of every room.

import type { Statement } from "better-sqlite3";
import type { IncidentDb } from "../db.js";
import { KeyDim, LIVE_TABLES } from "../blocks/blockTables.js";

export class RoomEnds {
  private readonly lastSeqOf: Statement;
  private readonly looked: Map<string, number | null>;
  /** Rooms met and not yet passed. */
  private readonly open = new Set<string>();
  /** The distinct end seqs of open rooms, ascending, and the rooms ending at each. */
  private readonly ends: number[] = [];
  private readonly roomsEndingAt = new Map<number, string[]>();

  constructor(db: IncidentDb) {
    const { keys, blocks } = LIVE_TABLES;
    this.lastSeqOf = db.prepare(`SELECT MAX(b.last_seq) FROM ${keys} k JOIN ${blocks} b ON b.block = k.block WHERE k.dim = ${KeyDim.room} AND k.key = ?`).pluck();
    this.looked = lookedUpEnds(db);
  }

  /** A room the scan has met: passTo reports it once the scan is past its last record. */
  track(room: string): void {
    if (this.open.has(room)) return;
    this.open.add(room);
    // A room the side table lacks is kept to the end of the scan.
    const end = this.endOf(room);
    if (end === null) return;
    const rooms = this.roomsEndingAt.get(end);
    if (rooms) return void rooms.push(room);
    this.roomsEndingAt.set(end, [room]);
    this.ends.splice(insertionPoint(this.ends, end), 0, end);
  }

  /** Calls `passed` for each tracked room whose records all come before `seq`, the earliest ending first. */
  passTo(seq: number, passed: (room: string) => void): void {
    while (this.ends.length > 0 && this.ends[0]! < seq) {
      const end = this.ends.shift()!;
      const rooms = this.roomsEndingAt.get(end)!;
      this.roomsEndingAt.delete(end);
      for (const room of rooms) {
        this.open.delete(room);
        // No scan in step with this one meets the room again: its records are behind every one of them.
        this.looked.delete(room);
        passed(room);
      }
    }
  }

  private endOf(room: string): number | null {
    const known = this.looked.get(room);
    if (known !== undefined) return known;
    const end = this.lastSeqOf.get(room) as number | null;
    this.looked.set(room, end);
    return end;
  }
}

const looked = new WeakMap<IncidentDb, { blocks: string; ends: Map<string, number | null> }>();

/**
 * The ends looked up on a connection for rooms some scan holds, shared by the
 * scans of one pass (blocks/pass.ts) so that each room is looked up once
 * rather than once per scan; a room is forgotten once a scan is past it.
 * Looked up afresh once the blocks have changed (this connection's own writes
 * included, which PRAGMA data_version does not count).
 */
function lookedUpEnds(db: IncidentDb): Map<string, number | null> {
  const blocks = db.prepare(`SELECT count(*) || ':' || max(block) || ':' || max(last_seq) FROM ${LIVE_TABLES.blocks}`).pluck().get() as string;
  const cached = looked.get(db);
  if (cached && cached.blocks === blocks) return cached.ends;
  const ends = new Map<string, number | null>();
  looked.set(db, { blocks, ends });
  return ends;
}

/** The index at which `value` keeps `sorted` ascending. */
function insertionPoint(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
