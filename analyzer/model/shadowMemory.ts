// Shadow memory of the decode/prefill pools per (rank, buffer, page): owner
// room and allocation epoch, the last landed write, writes still in flight,
// and the HiCache load that fills it. Every modelled read checks it
// (DESIGN.md "The reference model"; seed cases 3 and 4;
// docs/hicache-indexk.md §1.4 race #1).
//
// A transfer write covers every layer (an RDMA write of whole page rows); a
// HiCache load covers every layer and lands layer by layer; a kernel store
// lands at once and may cover one layer.
//
// Events name pages in ranges, and neighbouring pages mostly share their
// history (a room allocates a run, a chunk writes a run of it), so the state
// is kept per extent: a run of pages of one pool in the same state. A change
// to part of an extent splits it first; extents are never merged back, so
// their number is at most the number of pages. Extents, writes and targets
// are slots of column tables (shadowTables.ts); a page is tracked only while
// it holds something a later check needs, and a per-pool index maps page
// numbers to the extent holding them.

import type { PageRanges } from "./evidence.js";
import { orNaN, PageIndex } from "./slots.js";
import { ExtentTable, TargetTable, WriteTable } from "./shadowTables.js";

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

/**
 * The end of the pages [lo, hi) a change tracks (lo when there are none). A
 * page that is no page number in 0..MAX_PAGE is refused: a record naming one
 * is broken, and tracking it would cost memory the incident never used.
 */
function trackedEnd(lo: number, hi: number): number {
  if (!(hi > lo)) return lo;
  if (!(lo >= 0 && Number.isInteger(lo))) throw new RangeError(`page ${lo} is not a page number in 0..${MAX_PAGE}`);
  const end = Math.ceil(hi);
  if (end > MAX_PAGE) throw new RangeError(`page ${MAX_PAGE} is not a page number in 0..${MAX_PAGE}`);
  return end;
}

/** The first of the pages [lo, hi) a lookup can find tracked (lookups skip what cannot be a page number). */
export function lookupStart(lo: number, hi: number): number {
  return hi > lo && Number.isInteger(lo) ? Math.max(lo, 0) : MAX_PAGE;
}

/** The end of the pages below `hi` a lookup can find tracked. */
export function lookupEnd(hi: number): number {
  return Math.min(Math.ceil(hi), MAX_PAGE);
}

/** The extents one HiCache load marked, on its rank. */
export interface LoadExtents {
  rank: number;
  extents: number[];
}

export class ShadowMemory {
  readonly extents = new ExtentTable();
  readonly writes = new WriteTable();
  readonly targets = new TargetTable();
  /** HiCache load id → the extents it fills, until the load is swept. */
  readonly loadExtents = new Map<number, LoadExtents>();
  nextWriteId = 1;
  /** The pages the extents cover. */
  pageCount = 0;
  /** Indexed by poolIndex(rank, buf). */
  private readonly index: (PageIndex | undefined)[] = [];
  /** The extents the last `cover` left, in page order. */
  private hits = new Int32Array(64);

  /** Whether any page of the pool of (rank, buf) was ever tracked. */
  tracksPool(rank: number, buf: number): boolean {
    return this.index[poolIndex(rank, buf)] !== undefined;
  }

  /** The extent holding `page` of `pool`, -1 when the page is not tracked. */
  extentAt(pool: number, page: number): number {
    const ix = this.index[pool];
    return ix === undefined || !(page >= 0 && page < MAX_PAGE) ? -1 : ix.get(page);
  }

  /** A new extent of untouched pages [lo, hi) of `pool`, which no extent holds (cover, and snapshot decoding). */
  addExtent(pool: number, lo: number, hi: number, seq: number): number {
    let ix = this.index[pool];
    if (ix === undefined) this.index[pool] = ix = new PageIndex();
    const x = this.extents.add(pool, lo, hi, seq);
    ix.fill(lo, hi, x);
    this.pageCount += hi - lo;
    return x;
  }

  /**
   * Splits extents so that pages [lo, hi) of `pool` begin and end on extent
   * boundaries and leaves the extents holding them, in page order, in
   * `hits[0..n)`; returns n. With `track`, untracked pages become new extents.
   */
  private cover(pool: number, lo: number, hi: number, seq: number, track: boolean): number {
    const ix = this.index[pool];
    if (ix === undefined && !track) return 0;
    const E = this.extents;
    let n = 0;
    for (let p = lo; p < hi; ) {
      let x = ix === undefined ? -1 : ix.get(p);
      if (x < 0) {
        const q = ix === undefined ? hi : ix.nextMapped(p, hi);
        if (track) this.hit(n++, this.addExtent(pool, p, q, seq));
        p = q;
        continue;
      }
      if (E.lo[x]! < p) x = this.split(x, p);
      if (E.hi[x]! > hi) this.split(x, hi);
      this.hit(n++, x);
      p = E.hi[x]!;
    }
    return n;
  }

  private hit(i: number, x: number): void {
    if (i === this.hits.length) {
      const grown = new Int32Array(i * 2);
      grown.set(this.hits);
      this.hits = grown;
    }
    this.hits[i] = x;
  }

  /** Cuts extent `x` at page `at`: `x` keeps the pages below, the returned copy (with copies of its targets) the rest. */
  private split(x: number, at: number): number {
    const { extents: E, targets: T } = this;
    const y = E.copyOf(x, at, E.hi[x]!);
    E.hi[x] = at;
    this.index[E.pool[x]!]!.fill(at, E.hi[y]!, y);
    for (let t = E.firstTarget[x]!; t >= 0; t = T.nextOnExtent[t]!) this.addTarget(T.write[t]!, y, T.epoch[t]!, T.orphanFree[t]!);
    const load = E.hcLoad[x]!;
    if (load >= 0) this.loadExtents.get(load)?.extents.push(y);
    return y;
  }

  /** `kv.alloc` of pages [lo, hi): they start a new epoch owned by `room` (both buffers share the page numbering, §2.1). */
  alloc(rank: number, lo: number, hi: number, room: string, seq: number): void {
    const end = trackedEnd(lo, hi);
    const E = this.extents;
    for (let b = 0; b < BUFFERS.length; b++) {
      const n = this.cover(poolIndex(rank, b), lo, end, seq, true);
      for (let i = 0; i < n; i++) {
        const x = this.hits[i]!;
        E.epoch[x]++;
        E.owner[x] = room;
        E.allocSeq[x] = seq;
        E.prevFreeSeq[x] = E.freeSeq[x]!;
        E.freeSeq[x] = -1;
        E.changedSeq[x] = seq;
      }
    }
  }

  /** `kv.free` of pages [lo, hi): writes still in flight for the old owner become orphans. */
  free(rank: number, lo: number, hi: number, seq: number): void {
    const { extents: E, targets: T, writes: W } = this;
    const from = lookupStart(lo, hi);
    const to = lookupEnd(hi);
    for (let b = 0; b < BUFFERS.length; b++) {
      const n = this.cover(poolIndex(rank, b), from, to, seq, false);
      for (let i = 0; i < n; i++) {
        const x = this.hits[i]!;
        const owner = E.owner[x];
        for (let t = E.firstTarget[x]!; t >= 0; t = T.nextOnExtent[t]!) {
          if (T.orphanFree[t]! < 0 && W.room[T.write[t]!] === owner) T.orphanFree[t] = seq;
        }
        E.owner[x] = null;
        E.freeSeq[x] = seq;
        E.changedSeq[x] = seq;
        // An orphaned write's data was there for one owner to read; the next owner gets the page fresh.
        E.lwOrphanFree[x] = -1;
        this.maybeDrop(x);
      }
    }
  }

  /** `free` of a page list, run by run. */
  freePages(rank: number, pages: readonly number[], seq: number): void {
    for (let i = 0; i < pages.length; ) {
      const j = runEnd(pages, i, pages.length);
      this.free(rank, pages[i]!, pages[j - 1]! + 1, seq);
      i = j;
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
    const end = Math.min(to, pages.length);
    for (let i = from; i < end; ) {
      const j = runEnd(pages, i, end);
      this.postTo(w, room, pool, pages[i]!, pages[j - 1]! + 1, seq, roomFreeSeq);
      i = j;
    }
    return w;
  }

  /** `post` of the pages of half-open ranges. */
  postRanges(room: string, chunk: number | null, poster: number, target: number, buf: number, ranges: PageRanges, seq: number, queue: number | null, roomFreeSeq: number): number {
    const w = this.openWrite(this.nextWriteId++, room, chunk, poster, target, buf, seq, queue);
    const pool = poolIndex(target, buf);
    for (let k = 0; k < ranges.length; k++) this.postTo(w, room, pool, ranges[k]![0], ranges[k]![1], seq, roomFreeSeq);
    return w;
  }

  /** Write `w` (of `room`) targets pages [lo, hi) of `pool`. */
  private postTo(w: number, room: string, pool: number, lo: number, hi: number, seq: number, roomFreeSeq: number): void {
    const E = this.extents;
    const n = this.cover(pool, lo, trackedEnd(lo, hi), seq, true);
    for (let i = 0; i < n; i++) {
      const x = this.hits[i]!;
      const owner = E.owner[x];
      const owned = owner === room;
      // Posted after the room's pages were freed: the pages' own record of
      // that free may be gone (free pages are dropped), so the room's free stands in.
      const orphanFree = owned ? -1 : owner === null && E.freeSeq[x]! >= 0 ? E.freeSeq[x]! : roomFreeSeq >= 0 ? roomFreeSeq : this.lastFree(x);
      this.addTarget(w, x, owned ? E.epoch[x]! : -1, orphanFree);
      E.changedSeq[x] = seq;
    }
  }

  /** A write with no targets yet (post, and snapshot decoding). */
  openWrite(id: number, room: string, chunk: number | null, poster: number, target: number, buf: number, postSeq: number, queue: number | null): number {
    return this.writes.add(id, room, orNaN(chunk), poster, target, buf, postSeq, orNaN(queue));
  }

  /** Appends a target to write `w`'s targets and to extent `x`'s in-flight list. */
  addTarget(w: number, x: number, epoch: number, orphanFree: number): void {
    const { extents: E, targets: T, writes: W } = this;
    const t = T.add(w, x, epoch, orphanFree);
    const lastOfWrite = W.lastTarget[w]!;
    if (lastOfWrite < 0) W.firstTarget[w] = t;
    else T.nextInWrite[lastOfWrite] = t;
    W.lastTarget[w] = t;
    const lastOfExtent = E.lastTarget[x]!;
    if (lastOfExtent < 0) E.firstTarget[x] = t;
    else T.nextOnExtent[lastOfExtent] = t;
    T.prevOnExtent[t] = lastOfExtent;
    E.lastTarget[x] = t;
  }

  /** The free that ended extent `x`'s current epoch, else the one before. */
  lastFree(x: number): number {
    const E = this.extents;
    return E.freeSeq[x]! >= 0 ? E.freeSeq[x]! : E.prevFreeSeq[x]!;
  }

  /** The write's data is on the target pages: it becomes their last landed write. */
  land(w: number, seq: number): void {
    const { extents: E, targets: T, writes: W } = this;
    const room = W.room[w]!;
    const chunk = W.chunk[w]!;
    const postSeq = W.postSeq[w]!;
    for (let t = W.firstTarget[w]!; t >= 0; ) {
      const next = T.nextInWrite[t]!;
      const x = T.extent[t]!;
      this.unlinkFromExtent(t, x);
      E.lwRoom[x] = room;
      E.lwChunk[x] = chunk;
      E.lwEpoch[x] = T.epoch[t]!;
      E.lwPostSeq[x] = postSeq;
      E.lwLandSeq[x] = seq;
      E.lwOrphanFree[x] = T.orphanFree[t]!;
      E.layerStores[x] = null;
      E.changedSeq[x] = seq;
      this.maybeDrop(x);
      T.remove(t);
      t = next;
    }
    W.remove(w);
  }

  private unlinkFromExtent(t: number, x: number): void {
    const { extents: E, targets: T } = this;
    const prev = T.prevOnExtent[t]!;
    const next = T.nextOnExtent[t]!;
    if (prev < 0) E.firstTarget[x] = next;
    else T.nextOnExtent[prev] = next;
    if (next < 0) E.lastTarget[x] = prev;
    else T.prevOnExtent[next] = prev;
  }

  /** A kernel store to pages [lo, hi): lands at once, for one layer or (layer null) all. Only pages already tracked matter. */
  store(rank: number, buf: number, layer: number | null, lo: number, hi: number, room: string | null, seq: number): void {
    const E = this.extents;
    const n = this.cover(poolIndex(rank, buf), lookupStart(lo, hi), lookupEnd(hi), seq, false);
    for (let i = 0; i < n; i++) {
      const x = this.hits[i]!;
      if (layer === null) {
        E.lwRoom[x] = room;
        E.lwChunk[x] = NaN;
        E.lwEpoch[x] = E.epoch[x]!;
        E.lwPostSeq[x] = seq;
        E.lwLandSeq[x] = seq;
        E.lwOrphanFree[x] = -1;
        E.layerStores[x] = null;
      } else {
        (E.layerStores[x] ??= new Map()).set(layer, [room, seq]);
      }
      E.changedSeq[x] = seq;
    }
  }

  /** A HiCache host→device load writes pages [lo, hi) (both buffers: §1.2 NSA host pool loads KV and index-K per layer). */
  hicacheLoad(rank: number, lo: number, hi: number, load: number, seq: number): void {
    const end = trackedEnd(lo, hi);
    if (end <= lo) return;
    let list = this.loadExtents.get(load);
    if (list === undefined) this.loadExtents.set(load, (list = { rank, extents: [] }));
    const E = this.extents;
    for (let b = 0; b < BUFFERS.length; b++) {
      const n = this.cover(poolIndex(rank, b), lo, end, seq, true);
      for (let i = 0; i < n; i++) {
        const x = this.hits[i]!;
        E.hcLoad[x] = load;
        E.hcSeq[x] = seq;
        E.changedSeq[x] = seq;
        list.extents.push(x);
      }
    }
  }

  /** The first page in [from, to) of `pool` that an extent holds, else `to`. */
  nextTracked(pool: number, from: number, to: number): number {
    const ix = this.index[pool];
    return ix === undefined ? to : ix.nextMapped(from, to);
  }

  /** Drops the marks of HiCache loads that finished (or left their slot), and extents that then hold nothing worth keeping. */
  sweep(isLive: (rank: number, id: number) => boolean): void {
    const E = this.extents;
    for (const [id, list] of this.loadExtents) {
      if (list.extents.length > 0 && isLive(list.rank, id)) continue;
      for (const x of list.extents) {
        if (E.hcLoad[x] !== id) continue;
        E.hcLoad[x] = -1;
        this.maybeDrop(x);
      }
      this.loadExtents.delete(id);
    }
  }

  /** The extents' slots, ordered by pool (rank, then buffer) and first page. */
  extentsInOrder(): Int32Array {
    const E = this.extents;
    const keys = new Float64Array(E.live);
    let n = 0;
    for (let x = 0; x < E.highWater; x++) if (E.pool[x]! >= 0) keys[n++] = E.pool[x]! * MAX_PAGE + E.lo[x]!;
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

  /**
   * Free pages with nothing in flight, no pending load and no orphaned write
   * landed on them (a late write's data waits there for the page's next
   * owner) keep no state a later check needs.
   */
  private maybeDrop(x: number): void {
    const E = this.extents;
    if (E.owner[x] === null && E.firstTarget[x]! < 0 && E.hcLoad[x]! < 0 && !(E.lwOrphanFree[x]! >= 0 && E.lwRoom[x] !== null)) {
      this.index[E.pool[x]!]!.fill(E.lo[x]!, E.hi[x]!, -1);
      this.pageCount -= E.hi[x]! - E.lo[x]!;
      E.remove(x);
    }
  }
}

/** The end of the run of consecutive pages that starts at `pages[i]`, below `end`. */
function runEnd(pages: readonly number[], i: number, end: number): number {
  let j = i + 1;
  while (j < end && pages[j] === pages[j - 1]! + 1) j++;
  return j;
}
