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
  /** Rooms met and not yet passed. */
  private readonly open = new Set<string>();
  /** The distinct end seqs of open rooms, ascending, and the rooms ending at each. */
  private readonly ends: number[] = [];
  private readonly roomsEndingAt = new Map<number, string[]>();

  constructor(db: IncidentDb) {
    const { keys, blocks } = LIVE_TABLES;
    this.lastSeqOf = db.prepare(`SELECT MAX(b.last_seq) FROM ${keys} k JOIN ${blocks} b ON b.block = k.block WHERE k.dim = ${KeyDim.room} AND k.key = ?`).pluck();
  }

  /** A room the scan has met: passTo reports it once the scan is past its last record. */
  track(room: string): void {
    if (this.open.has(room)) return;
    this.open.add(room);
    // A room the side table lacks is kept to the end of the scan.
    const end = this.lastSeqOf.get(room) as number | null;
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
        passed(room);
      }
    }
  }
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
