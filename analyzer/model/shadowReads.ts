// The checks a modelled read makes against the shadow memory: a write of its
// own room still in flight, a late write of a freed page's previous owner, a
// HiCache layer not yet loaded (DESIGN.md seed cases 3 and 4;
// docs/hicache-indexk.md §1.3, §1.4 race #1).

import { lookupEnd, lookupStart, poolIndex, type ShadowMemory } from "./shadowMemory.js";
import { nullable } from "./slots.js";

/** What a read needs to know of the write it ran into. */
export interface WriteInfo {
  room: string;
  chunk: number | null;
  poster: number;
  postSeq: number;
}

/**
 * How another room's data reached a page its reader owns (stale-slot-reuse):
 * still in flight at the read; in flight at the free and landed after the
 * page was given out again; posted after the free; or written by a room
 * that never owned the page.
 */
export type StaleMechanism = "in-flight" | "landed-after-reuse" | "posted-after-free" | "non-owner-write";

export type ReadIssue =
  | { check: "read-before-landed-write"; page: number; allocSeq: number; write: WriteInfo; assumedOwner: boolean }
  | {
      check: "stale-slot-reuse";
      page: number;
      allocSeq: number;
      room: string;
      chunk: number | null;
      post: number;
      free: number;
      land: number | null;
      mechanism: StaleMechanism;
      /** No kv.alloc gave the page to its reader: the model took it as the reader's. */
      assumedOwner: boolean;
    }
  | { check: "hicache-pending"; page: number; allocSeq: number; load: number; assumedOwner: boolean };

/** Whether layer `layer` of HiCache load `id` on `rank` has landed (an unknown load has: its slot was reused). */
export type LoadedLookup = (rank: number, id: number, layer: number) => boolean;

/**
 * What a read of pages [lo, hi) of (rank, buf, layer) by `room` would see
 * wrong, page by page: a write of its own room still in flight
 * (read-before-landed-write); another room's data on a page the reader owns
 * (stale-slot-reuse, decided by the outcome: the write still in flight at
 * the read, or landed from a room that no longer or never owned the page);
 * or a HiCache load whose layer has not completed (hicache-pending: the
 * caller decides whether the read was gated). A page no kv.alloc gave out is
 * taken as the reader's: the read is a fact, its allocation was not seen.
 * Appends to `found` the first issue of each check it lacks.
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
    readIssues(sh, x, rank, layer, p, room, loaded, found);
    p = sh.extents.hi[x]!;
  }
}

/** What a read of page `page` of extent `x` sees wrong (the same for every page of the extent). */
function readIssues(sh: ShadowMemory, x: number, rank: number, layer: number, page: number, room: string | null, loaded: LoadedLookup, found: ReadIssue[]): void {
  const { extents: E, targets: T, writes: W } = sh;
  const assumedOwner = E.owner[x] === null && room !== null;
  const owner = (E.owner[x] as string | null) ?? room;
  const allocSeq = E.allocSeq[x]!;
  for (let t = E.firstTarget[x]!; t >= 0; t = T.nextOnExtent[t]!) {
    const w = T.write[t]!;
    const writer = W.room[w]!;
    const stale = T.orphanFree[t]! >= 0 || T.epoch[t] !== E.epoch[x] || writer !== owner;
    // On a page nobody was seen to own, only a write its own room had freed is another room's for sure.
    if (stale && assumedOwner && T.orphanFree[t]! < 0) continue;
    if (stale && owner !== null && (room === null || room === owner)) {
      if (hasCheck(found, "stale-slot-reuse")) return;
      const free = T.orphanFree[t]! >= 0 ? T.orphanFree[t]! : sh.lastFree(x);
      found.push({ check: "stale-slot-reuse", page, allocSeq, room: writer, chunk: nullable(W.chunk[w]!), post: W.postSeq[w]!, free, land: null, mechanism: "in-flight", assumedOwner });
      return;
    }
    if (!stale && (room === null || room === writer)) {
      if (!hasCheck(found, "read-before-landed-write")) {
        found.push({ check: "read-before-landed-write", page, allocSeq, write: { room: writer, chunk: nullable(W.chunk[w]!), poster: W.poster[w]!, postSeq: W.postSeq[w]! }, assumedOwner });
      }
      break;
    }
  }
  if (E.lwRoom[x] !== null && !hasCheck(found, "stale-slot-reuse")) {
    const landed = landedStale(sh, x, layer, owner, room, assumedOwner);
    if (landed !== null) found.push({ check: "stale-slot-reuse", page, allocSeq, ...landed, assumedOwner });
  }
  const load = E.hcLoad[x]!;
  if (load >= 0 && !loaded(rank, load, layer) && !hasCheck(found, "hicache-pending")) found.push({ check: "hicache-pending", page, allocSeq, load, assumedOwner });
}

/**
 * The page's last landed write is another room's, and that room did not own
 * the page when it wrote (posted after its free, or never its page), or it
 * landed after the page was given to its owner; no store of the owner's own
 * to the layer came after it.
 */
function landedStale(sh: ShadowMemory, x: number, layer: number, owner: string | null, room: string | null, assumedOwner: boolean): Pick<Extract<ReadIssue, { check: "stale-slot-reuse" }>, "room" | "chunk" | "post" | "free" | "land" | "mechanism"> | null {
  const E = sh.extents;
  const lwRoom = E.lwRoom[x] as string | null;
  if (lwRoom === null || owner === null || lwRoom === owner || (room !== null && room !== owner)) return null;
  if (E.layerStores[x]?.get(layer) !== undefined) return null;
  const orphan = E.lwOrphanFree[x]! >= 0;
  // With the owner assumed, only a write its own room had freed is another room's for sure.
  if (assumedOwner && !orphan) return null;
  const notOwned = E.lwEpoch[x] === -1;
  const afterAlloc = E.allocSeq[x]! >= 0 && E.lwEpoch[x] !== E.epoch[x] && E.lwLandSeq[x]! > E.allocSeq[x]!;
  if (!orphan && !notOwned && !afterAlloc) return null;
  const free = orphan ? E.lwOrphanFree[x]! : E.prevFreeSeq[x]! >= 0 ? E.prevFreeSeq[x]! : E.freeSeq[x]!;
  const mechanism: StaleMechanism = free < 0 ? "non-owner-write" : E.lwPostSeq[x]! > free ? "posted-after-free" : "landed-after-reuse";
  return { room: lwRoom, chunk: nullable(E.lwChunk[x]!), post: E.lwPostSeq[x]!, free, land: E.lwLandSeq[x]!, mechanism };
}

function hasCheck(found: readonly ReadIssue[], check: ReadIssue["check"]): boolean {
  for (let i = 0; i < found.length; i++) if (found[i]!.check === check) return true;
  return false;
}
