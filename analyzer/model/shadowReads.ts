// The checks a modelled read makes against the shadow memory: a write of its
// own room still in flight, a late write of a freed page's previous owner, a
// HiCache layer not yet loaded (DESIGN.md seed cases 3 and 4;
// hicache-indexk-scheduler.md §1.3, §1.4 race #1).

import { lookupEnd, lookupStart, poolIndex, type ShadowMemory } from "./shadowMemory.js";
import { nullable } from "./slots.js";

/** What a read needs to know of the write it ran into. */
export interface WriteInfo {
  room: string;
  chunk: number | null;
  poster: number;
  postSeq: number;
}

export type ReadIssue =
  | { check: "read-before-landed-write"; page: number; allocSeq: number; write: WriteInfo }
  | { check: "stale-slot-reuse"; page: number; allocSeq: number; room: string; chunk: number | null; post: number; free: number; land: number | null }
  | { check: "hicache-pending"; page: number; allocSeq: number; load: number };

/** Whether layer `layer` of HiCache load `id` on `rank` has landed (an unknown load has: its slot was reused). */
export type LoadedLookup = (rank: number, id: number, layer: number) => boolean;

/**
 * What a read of pages [lo, hi) of (rank, buf, layer) by `room` would see
 * wrong, page by page: a write of its own room still in flight
 * (read-before-landed-write); a write posted for the page's previous owner,
 * in flight at the free and still in flight or landed after the page's new
 * allocation (stale-slot-reuse); or a HiCache load whose layer has not
 * completed (hicache-pending: the caller decides whether the read was
 * gated). Appends to `found` the first issue of each check it lacks.
 */
export function checkRead(
  sh: ShadowMemory,
  rank: number,
  buf: number,
  layer: number,
  lo: number,
  hi: number,
  room: string | null,
  loaded: LoadedLookup,
  found: ReadIssue[],
): void {
  const pool = poolIndex(rank, buf);
  const to = lookupEnd(hi);
  for (let p = sh.nextTracked(pool, lookupStart(lo, hi), to); p < to; p = sh.nextTracked(pool, p, to)) {
    const x = sh.extentAt(pool, p);
    const issue = readIssue(sh, x, rank, layer, p, room, loaded);
    if (issue !== null && !hasCheck(found, issue.check)) found.push(issue);
    p = sh.extents.hi[x]!;
  }
}

/** What a read of page `page` of extent `x` sees wrong (the same for every page of the extent). */
function readIssue(sh: ShadowMemory, x: number, rank: number, layer: number, page: number, room: string | null, loaded: LoadedLookup): ReadIssue | null {
  const { extents: E, targets: T, writes: W } = sh;
  const owner = E.owner[x] as string | null;
  const allocSeq = E.allocSeq[x]!;
  for (let t = E.firstTarget[x]!; t >= 0; t = T.nextOnExtent[t]!) {
    const w = T.write[t]!;
    const writer = W.room[w]!;
    const stale = T.orphanFree[t]! >= 0 || T.epoch[t] !== E.epoch[x] || writer !== owner;
    if (stale && owner !== null && (room === null || room === owner)) {
      const free = T.orphanFree[t]! >= 0 ? T.orphanFree[t]! : sh.lastFree(x);
      return { check: "stale-slot-reuse", page, allocSeq, room: writer, chunk: nullable(W.chunk[w]!), post: W.postSeq[w]!, free, land: null };
    }
    if (!stale && (room === null || room === writer)) {
      return { check: "read-before-landed-write", page, allocSeq, write: { room: writer, chunk: nullable(W.chunk[w]!), poster: W.poster[w]!, postSeq: W.postSeq[w]! } };
    }
  }
  const lwRoom = E.lwRoom[x] as string | null;
  if (
    E.layerStores[x]?.get(layer) === undefined &&
    lwRoom !== null &&
    owner !== null &&
    lwRoom !== owner &&
    (E.lwOrphanFree[x]! >= 0 || E.lwEpoch[x] !== E.epoch[x]) &&
    E.lwLandSeq[x]! > allocSeq &&
    (room === null || room === owner)
  ) {
    const free = E.lwOrphanFree[x]! >= 0 ? E.lwOrphanFree[x]! : E.prevFreeSeq[x]!;
    return { check: "stale-slot-reuse", page, allocSeq, room: lwRoom, chunk: nullable(E.lwChunk[x]!), post: E.lwPostSeq[x]!, free, land: E.lwLandSeq[x]! };
  }
  const load = E.hcLoad[x]!;
  if (load >= 0 && !loaded(rank, load, layer)) return { check: "hicache-pending", page, allocSeq, load };
  return null;
}

function hasCheck(found: readonly ReadIssue[], check: ReadIssue["check"]): boolean {
  for (let i = 0; i < found.length; i++) if (found[i]!.check === check) return true;
  return false;
}
