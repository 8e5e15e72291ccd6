// Shadow memory of the decode/prefill pools per (rank, buffer, page): owner
// room and allocation epoch, the last landed write, writes still in flight,
// and the HiCache load that fills it. Every modelled read checks it
// (DESIGN.md "The reference model"; seed cases 3 and 4;
// hicache-indexk-scheduler.md §1.4 race #1).
//
// A transfer write covers every layer (an RDMA write of whole page rows); a
// HiCache load covers every layer and lands layer by layer; a kernel store
// lands at once and may cover one layer.
//
// Pages, writes and targets are slots of column tables (shadowTables.ts); a
// page is tracked only while it holds something a later check needs, and a
// per-pool index maps page numbers to tracked slots.

import type { PageRanges } from "./evidence.js";
import { nullable, orNaN, PageIndex } from "./slots.js";
import { PageTable, TargetTable, WriteTable } from "./shadowTables.js";

export const BUFFERS = ["kv", "index_k"] as const;
export type BufferName = (typeof BUFFERS)[number];
export const BUF_KV = 0;
export const BUF_INDEX_K = 1;

export function bufferId(name: unknown): number {
  return name === "kv" ? BUF_KV : name === "index_k" ? BUF_INDEX_K : -1;
}

/** The pool a page lives in: one per (rank, buffer). */
export function poolIndex(rank: number, buf: number): number {
  return rank * 4 + buf;
}

export function poolRank(pool: number): number {
  return pool >> 2;
}

export function poolBuffer(pool: number): number {
  return pool & 3;
}

/** Page numbers are integers below this; a page past this bound is refused. */
export const MAX_PAGE = 1 << 26;

function isPageNumber(page: number): boolean {
  return page >= 0 && page < MAX_PAGE && Math.floor(page) === page;
}

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

/** The page slots one HiCache load marked, on its rank. */
export interface LoadPages {
  rank: number;
  pages: number[];
}

export class ShadowMemory {
  readonly pages = new PageTable();
  readonly writes = new WriteTable();
  readonly targets = new TargetTable();
  /** HiCache load id → the page slots it fills, until the load is swept. */
  readonly loadPages = new Map<number, LoadPages>();
  nextWriteId = 1;
  /** Indexed by poolIndex(rank, buf). */
  private readonly index: (PageIndex | undefined)[] = [];

  /** Whether any page of the pool of (rank, buf) was ever tracked. */
  tracksPool(rank: number, buf: number): boolean {
    return this.index[poolIndex(rank, buf)] !== undefined;
  }

  /** The slot of a tracked page, -1 when the page is not tracked. */
  find(rank: number, buf: number, page: number): number {
    const ix = this.index[poolIndex(rank, buf)];
    return ix === undefined || !isPageNumber(page) ? -1 : ix.get(page);
  }

  /** The slot of page `page` of pool `pool`, tracking it from `seq` on if it was not. */
  track(pool: number, page: number, seq: number): number {
    if (!isPageNumber(page)) throw new RangeError(`page ${page} is not a page number in 0..${MAX_PAGE}`);
    let ix = this.index[pool];
    if (ix === undefined) this.index[pool] = ix = new PageIndex();
    let x = ix.get(page);
    if (x < 0) ix.set(page, (x = this.pages.add(pool, page, seq)));
    return x;
  }

  /** `kv.alloc`: the page starts a new epoch owned by `room` (both buffers share the page numbering, §2.1). */
  alloc(rank: number, page: number, room: string, seq: number): void {
    const P = this.pages;
    for (let b = 0; b < BUFFERS.length; b++) {
      const x = this.track(poolIndex(rank, b), page, seq);
      P.epoch[x]++;
      P.owner[x] = room;
      P.allocSeq[x] = seq;
      P.prevFreeSeq[x] = P.freeSeq[x]!;
      P.freeSeq[x] = -1;
      P.changedSeq[x] = seq;
    }
  }

  /** `kv.free`: writes still in flight for the old owner become orphans. */
  free(rank: number, page: number, seq: number): void {
    const { pages: P, targets: T, writes: W } = this;
    for (let b = 0; b < BUFFERS.length; b++) {
      const x = this.find(rank, b, page);
      if (x < 0) continue;
      const owner = P.owner[x];
      for (let t = P.firstTarget[x]!; t >= 0; t = T.nextOnPage[t]!) {
        if (T.orphanFree[t]! < 0 && W.room[T.write[t]!] === owner) T.orphanFree[t] = seq;
      }
      P.owner[x] = null;
      P.freeSeq[x] = seq;
      P.changedSeq[x] = seq;
      this.maybeDrop(x);
    }
  }

  /**
   * A transfer write posted to `pages[from..to)` of the target rank's pool;
   * `roomFreeSeq` is when the room released its pages, if it did. Returns the
   * write's slot.
   */
  post(
    room: string,
    chunk: number | null,
    poster: number,
    target: number,
    buf: number,
    pages: readonly number[],
    seq: number,
    queue: number | null,
    roomFreeSeq = -1,
    from = 0,
    to = pages.length,
  ): number {
    const w = this.openWrite(this.nextWriteId++, room, chunk, poster, target, buf, seq, queue);
    const pool = poolIndex(target, buf);
    for (let i = from; i < to && i < pages.length; i++) this.postTo(w, room, pool, pages[i]!, seq, roomFreeSeq);
    return w;
  }

  /** `post` of the pages of half-open ranges. */
  postRanges(room: string, chunk: number | null, poster: number, target: number, buf: number, ranges: PageRanges, seq: number, queue: number | null, roomFreeSeq: number): number {
    const w = this.openWrite(this.nextWriteId++, room, chunk, poster, target, buf, seq, queue);
    const pool = poolIndex(target, buf);
    for (let k = 0; k < ranges.length; k++) for (let p = ranges[k]![0]; p < ranges[k]![1]; p++) this.postTo(w, room, pool, p, seq, roomFreeSeq);
    return w;
  }

  /** Write `w` (of `room`) targets `page` of `pool`. */
  private postTo(w: number, room: string, pool: number, page: number, seq: number, roomFreeSeq: number): void {
    const P = this.pages;
    const x = this.track(pool, page, seq);
    const owner = P.owner[x];
    const owned = owner === room;
    // Posted after the room's pages were freed: the page's own record of that
    // free may be gone (a free page is dropped), so the room's free stands in.
    const orphanFree = owned ? -1 : owner === null && P.freeSeq[x]! >= 0 ? P.freeSeq[x]! : roomFreeSeq >= 0 ? roomFreeSeq : this.lastFree(x);
    this.addTarget(w, x, owned ? P.epoch[x]! : -1, orphanFree);
    P.changedSeq[x] = seq;
  }

  /** A write with no targets yet (post, and snapshot decoding). */
  openWrite(id: number, room: string, chunk: number | null, poster: number, target: number, buf: number, postSeq: number, queue: number | null): number {
    return this.writes.add(id, room, orNaN(chunk), poster, target, buf, postSeq, orNaN(queue));
  }

  /** Appends a target to write `w`'s targets and to page `x`'s in-flight list. */
  addTarget(w: number, x: number, epoch: number, orphanFree: number): void {
    const { pages: P, targets: T, writes: W } = this;
    const t = T.add(w, x, epoch, orphanFree);
    const lastOfWrite = W.lastTarget[w]!;
    if (lastOfWrite < 0) W.firstTarget[w] = t;
    else T.nextInWrite[lastOfWrite] = t;
    W.lastTarget[w] = t;
    const lastOfPage = P.lastTarget[x]!;
    if (lastOfPage < 0) P.firstTarget[x] = t;
    else T.nextOnPage[lastOfPage] = t;
    T.prevOnPage[t] = lastOfPage;
    P.lastTarget[x] = t;
  }

  private lastFree(x: number): number {
    const P = this.pages;
    return P.freeSeq[x]! >= 0 ? P.freeSeq[x]! : P.prevFreeSeq[x]!;
  }

  /** The write's data is on the target pages: it becomes their last landed write. */
  land(w: number, seq: number): void {
    const { pages: P, targets: T, writes: W } = this;
    const room = W.room[w]!;
    const chunk = W.chunk[w]!;
    const postSeq = W.postSeq[w]!;
    for (let t = W.firstTarget[w]!; t >= 0; ) {
      const next = T.nextInWrite[t]!;
      const x = T.page[t]!;
      this.unlinkFromPage(t, x);
      P.lwRoom[x] = room;
      P.lwChunk[x] = chunk;
      P.lwEpoch[x] = T.epoch[t]!;
      P.lwPostSeq[x] = postSeq;
      P.lwLandSeq[x] = seq;
      P.lwOrphanFree[x] = T.orphanFree[t]!;
      P.layerStores[x] = null;
      P.changedSeq[x] = seq;
      this.maybeDrop(x);
      T.remove(t);
      t = next;
    }
    W.remove(w);
  }

  private unlinkFromPage(t: number, x: number): void {
    const { pages: P, targets: T } = this;
    const prev = T.prevOnPage[t]!;
    const next = T.nextOnPage[t]!;
    if (prev < 0) P.firstTarget[x] = next;
    else T.nextOnPage[prev] = next;
    if (next < 0) P.lastTarget[x] = prev;
    else T.prevOnPage[next] = prev;
  }

  /** A kernel store: lands at once, for one layer or (layer null) all. Only pages already tracked matter. */
  store(rank: number, buf: number, layer: number | null, page: number, room: string | null, seq: number): void {
    const x = this.find(rank, buf, page);
    if (x < 0) return;
    const P = this.pages;
    if (layer === null) {
      P.lwRoom[x] = room;
      P.lwChunk[x] = NaN;
      P.lwEpoch[x] = P.epoch[x]!;
      P.lwPostSeq[x] = seq;
      P.lwLandSeq[x] = seq;
      P.lwOrphanFree[x] = -1;
      P.layerStores[x] = null;
    } else {
      (P.layerStores[x] ??= new Map()).set(layer, [room, seq]);
    }
    P.changedSeq[x] = seq;
  }

  /** A HiCache host→device load writes the page (both buffers: §1.2 NSA host pool loads KV and index-K per layer). */
  hicacheLoad(rank: number, page: number, load: number, seq: number): void {
    let list = this.loadPages.get(load);
    if (list === undefined) this.loadPages.set(load, (list = { rank, pages: [] }));
    const P = this.pages;
    for (let b = 0; b < BUFFERS.length; b++) {
      const x = this.track(poolIndex(rank, b), page, seq);
      P.hcLoad[x] = load;
      P.hcSeq[x] = seq;
      P.changedSeq[x] = seq;
      list.pages.push(x);
    }
  }

  /**
   * What a read of (rank, buf, layer, page) by `room` would see wrong:
   * a write of its own room still in flight (read-before-landed-write); a
   * write posted for the page's previous owner, in flight at the free and
   * still in flight or landed after the page's new allocation
   * (stale-slot-reuse); or a HiCache load whose layer has not completed
   * (hicache-pending: the caller decides whether the read was gated).
   */
  checkRead(rank: number, buf: number, layer: number, page: number, room: string | null, loaded: LoadedLookup): ReadIssue | null {
    const x = this.find(rank, buf, page);
    if (x < 0) return null;
    const { pages: P, targets: T, writes: W } = this;
    const owner = P.owner[x] as string | null;
    const allocSeq = P.allocSeq[x]!;
    for (let t = P.firstTarget[x]!; t >= 0; t = T.nextOnPage[t]!) {
      const w = T.write[t]!;
      const writer = W.room[w]!;
      const stale = T.orphanFree[t]! >= 0 || T.epoch[t] !== P.epoch[x] || writer !== owner;
      if (stale && owner !== null && (room === null || room === owner)) {
        const free = T.orphanFree[t]! >= 0 ? T.orphanFree[t]! : this.lastFree(x);
        return { check: "stale-slot-reuse", page, allocSeq, room: writer, chunk: nullable(W.chunk[w]!), post: W.postSeq[w]!, free, land: null };
      }
      if (!stale && (room === null || room === writer)) return { check: "read-before-landed-write", page, allocSeq, write: this.writeInfo(w) };
    }
    const lwRoom = P.lwRoom[x] as string | null;
    if (
      P.layerStores[x]?.get(layer) === undefined &&
      lwRoom !== null &&
      owner !== null &&
      lwRoom !== owner &&
      (P.lwOrphanFree[x]! >= 0 || P.lwEpoch[x] !== P.epoch[x]) &&
      P.lwLandSeq[x]! > allocSeq &&
      (room === null || room === owner)
    ) {
      const free = P.lwOrphanFree[x]! >= 0 ? P.lwOrphanFree[x]! : P.prevFreeSeq[x]!;
      return { check: "stale-slot-reuse", page, allocSeq, room: lwRoom, chunk: nullable(P.lwChunk[x]!), post: P.lwPostSeq[x]!, free, land: P.lwLandSeq[x]! };
    }
    const load = P.hcLoad[x]!;
    if (load >= 0 && !loaded(rank, load, layer)) return { check: "hicache-pending", page, allocSeq, load };
    return null;
  }

  writeInfo(w: number): WriteInfo {
    const W = this.writes;
    return { room: W.room[w]!, chunk: nullable(W.chunk[w]!), poster: W.poster[w]!, postSeq: W.postSeq[w]! };
  }

  /** Drops the marks of HiCache loads that finished (or left their slot), and pages that then hold nothing worth keeping. */
  sweep(isLive: (rank: number, id: number) => boolean): void {
    const P = this.pages;
    for (const [id, list] of this.loadPages) {
      if (list.pages.length > 0 && isLive(list.rank, id)) continue;
      for (const x of list.pages) {
        if (P.hcLoad[x] !== id) continue;
        P.hcLoad[x] = -1;
        this.maybeDrop(x);
      }
      this.loadPages.delete(id);
    }
  }

  /** The tracked pages' slots, ordered by pool (rank, then buffer) and page number. */
  pagesInOrder(): Int32Array {
    const P = this.pages;
    const keys = new Float64Array(P.live);
    let n = 0;
    for (let x = 0; x < P.highWater; x++) if (P.pool[x]! >= 0) keys[n++] = P.pool[x]! * MAX_PAGE + P.page[x]!;
    keys.sort();
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const pool = Math.floor(keys[i]! / MAX_PAGE);
      out[i] = this.index[pool]!.get(keys[i]! - pool * MAX_PAGE);
    }
    return out;
  }

  /** The slots of the writes in flight, oldest post first. */
  writesInOrder(): number[] {
    const W = this.writes;
    const out: number[] = [];
    for (let w = 0; w < W.highWater; w++) if (W.id[w]! >= 0) out.push(w);
    return out.sort((a, b) => W.id[a]! - W.id[b]!);
  }

  /** A free page with nothing in flight and no pending load keeps no state a later check needs. */
  private maybeDrop(x: number): void {
    const P = this.pages;
    if (P.owner[x] === null && P.firstTarget[x]! < 0 && P.hcLoad[x]! < 0) {
      this.index[P.pool[x]!]!.set(P.page[x]!, -1);
      P.remove(x);
    }
  }
}
