// Shadow memory of the decode/prefill pools per (rank, buffer, page): owner
// room and allocation epoch, the last landed write, writes still in flight,
// and the HiCache load that fills it. Every modelled read checks it
// (DESIGN.md "The reference model"; seed cases 3 and 4;
// hicache-indexk-scheduler.md §1.4 race #1).
//
// A transfer write covers every layer (an RDMA write of whole page rows); a
// HiCache load covers every layer and lands layer by layer; a kernel store
// lands at once and may cover one layer.

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

/** One page a write targets, with the epoch it was posted under. */
export interface Target {
  write: Write;
  page: PageRec;
  /** The page's allocation epoch when posted; -1 when the room no longer owned it at post time. */
  epoch: number;
  /** The free that left this write without an owner (seq), or -1 while its room still owns the page. */
  orphanFree: number;
}

export class Write {
  readonly targets: Target[] = [];
  constructor(
    readonly id: number,
    readonly room: string,
    readonly chunk: number | null,
    readonly poster: number,
    readonly target: number,
    readonly buf: number,
    readonly postSeq: number,
    readonly queue: number | null,
  ) {}
}

export class PageRec {
  owner: string | null = null;
  epoch = 0;
  allocSeq = -1;
  /** The free that ended the current epoch (-1 while owned). */
  freeSeq = -1;
  /** The free that ended the epoch before the current one. */
  prevFreeSeq = -1;
  lwRoom: string | null = null;
  lwChunk: number | null = null;
  lwEpoch = -1;
  lwPostSeq = -1;
  lwLandSeq = -1;
  lwOrphanFree = -1;
  inflight: Target[] | null = null;
  hcLoad = -1;
  hcSeq = -1;
  /** Per-layer kernel stores since the last whole-page write: layer → [room, seq]. */
  layerStores: Map<number, [string | null, number]> | null = null;
  changedSeq: number;

  constructor(
    readonly pool: number,
    readonly page: number,
    seq: number,
  ) {
    this.changedSeq = seq;
  }

  get rank(): number {
    return this.pool >> 2;
  }
  get buf(): number {
    return this.pool & 3;
  }
}

export type ReadIssue =
  | { check: "read-before-landed-write"; page: PageRec; write: Write }
  | { check: "stale-slot-reuse"; page: PageRec; room: string; chunk: number | null; post: number; free: number; land: number | null }
  | { check: "hicache-pending"; page: PageRec; load: number };

/** Whether layer `layer` of HiCache load `id` on `rank` has landed (an unknown load has: its slot was reused). */
export type LoadedLookup = (rank: number, id: number, layer: number) => boolean;

/** Page numbers index plain arrays (pools are small and dense); a page past this bound is refused. */
export const MAX_PAGE = 1 << 26;

export class ShadowMemory {
  /** Indexed by poolIndex(rank, buf), then by page number. */
  readonly pools: (PageRec | undefined)[][] = [];
  readonly writes = new Map<number, Write>();
  /** HiCache load id → the page records it fills, until the load is swept. */
  readonly loadPages = new Map<number, PageRec[]>();
  nextWriteId = 1;

  get(rank: number, buf: number, page: number): PageRec | undefined {
    const pool = this.pools[poolIndex(rank, buf)];
    return pool === undefined ? undefined : pool[page];
  }

  pool(index: number): (PageRec | undefined)[] {
    let m = this.pools[index];
    if (m === undefined) this.pools[index] = m = [];
    return m;
  }

  /** Every tracked page, pool by pool, page by page. */
  *all(): IterableIterator<PageRec> {
    for (const m of this.pools) {
      if (m === undefined) continue;
      for (const p of m) if (p !== undefined) yield p;
    }
  }

  private getOrCreate(rank: number, buf: number, page: number, seq: number): PageRec {
    if (!(page >= 0 && page < MAX_PAGE)) throw new RangeError(`page ${page} is outside 0..${MAX_PAGE}`);
    const pool = this.pool(poolIndex(rank, buf));
    let p = pool[page];
    if (p === undefined) pool[page] = p = new PageRec(poolIndex(rank, buf), page, seq);
    return p;
  }

  /** `kv.alloc`: the page starts a new epoch owned by `room` (both buffers share the page numbering, §2.1). */
  alloc(rank: number, page: number, room: string, seq: number): void {
    for (let b = 0; b < BUFFERS.length; b++) {
      const p = this.getOrCreate(rank, b, page, seq);
      p.epoch++;
      p.owner = room;
      p.allocSeq = seq;
      p.prevFreeSeq = p.freeSeq;
      p.freeSeq = -1;
      p.changedSeq = seq;
    }
  }

  /** `kv.free`: writes still in flight for the old owner become orphans. */
  free(rank: number, page: number, seq: number): void {
    for (let b = 0; b < BUFFERS.length; b++) {
      const p = this.get(rank, b, page);
      if (p === undefined) continue;
      if (p.inflight !== null) {
        for (const t of p.inflight) if (t.orphanFree < 0 && t.write.room === p.owner) t.orphanFree = seq;
      }
      p.owner = null;
      p.freeSeq = seq;
      p.changedSeq = seq;
      this.maybeDrop(p);
    }
  }

  /**
   * A transfer write posted to `pages[from..to)` of the target rank's pool;
   * `roomFreeSeq` is when the room released its pages, if it did.
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
  ): Write {
    const w = new Write(this.nextWriteId++, room, chunk, poster, target, buf, seq, queue);
    for (let i = from; i < to && i < pages.length; i++) {
      const p = this.getOrCreate(target, buf, pages[i]!, seq);
      const owned = p.owner === room;
      // Posted after the room's pages were freed: the page's own record of that
      // free may be gone (a free page is dropped), so the room's free stands in.
      const orphanFree = owned ? -1 : p.owner === null && p.freeSeq >= 0 ? p.freeSeq : roomFreeSeq >= 0 ? roomFreeSeq : this.lastFree(p);
      const t: Target = { write: w, page: p, epoch: owned ? p.epoch : -1, orphanFree };
      w.targets.push(t);
      (p.inflight ??= []).push(t);
      p.changedSeq = seq;
    }
    this.writes.set(w.id, w);
    return w;
  }

  private lastFree(p: PageRec): number {
    return p.freeSeq >= 0 ? p.freeSeq : p.prevFreeSeq;
  }

  /** The write's data is on the target pages: it becomes their last landed write. */
  land(w: Write, seq: number): void {
    for (const t of w.targets) {
      const p = t.page;
      if (p.inflight !== null) {
        const i = p.inflight.indexOf(t);
        if (i >= 0) p.inflight.splice(i, 1);
        if (p.inflight.length === 0) p.inflight = null;
      }
      p.lwRoom = w.room;
      p.lwChunk = w.chunk;
      p.lwEpoch = t.epoch;
      p.lwPostSeq = w.postSeq;
      p.lwLandSeq = seq;
      p.lwOrphanFree = t.orphanFree;
      p.layerStores = null;
      p.changedSeq = seq;
      this.maybeDrop(p);
    }
    this.writes.delete(w.id);
  }

  /** A kernel store: lands at once, for one layer or (layer null) all. Only pages already tracked matter. */
  store(rank: number, buf: number, layer: number | null, page: number, room: string | null, seq: number): void {
    const p = this.get(rank, buf, page);
    if (p === undefined) return;
    if (layer === null) {
      p.lwRoom = room;
      p.lwChunk = null;
      p.lwEpoch = p.epoch;
      p.lwPostSeq = seq;
      p.lwLandSeq = seq;
      p.lwOrphanFree = -1;
      p.layerStores = null;
    } else {
      (p.layerStores ??= new Map()).set(layer, [room, seq]);
    }
    p.changedSeq = seq;
  }

  /** A HiCache host→device load writes the page (both buffers: §1.2 NSA host pool loads KV and index-K per layer). */
  hicacheLoad(rank: number, page: number, load: number, seq: number): void {
    let list = this.loadPages.get(load);
    if (list === undefined) this.loadPages.set(load, (list = []));
    for (let b = 0; b < BUFFERS.length; b++) {
      const p = this.getOrCreate(rank, b, page, seq);
      p.hcLoad = load;
      p.hcSeq = seq;
      p.changedSeq = seq;
      list.push(p);
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
    const p = this.get(rank, buf, page);
    if (p === undefined) return null;
    if (p.inflight !== null) {
      for (const t of p.inflight) {
        const stale = t.orphanFree >= 0 || t.epoch !== p.epoch || t.write.room !== p.owner;
        if (stale && p.owner !== null && (room === null || room === p.owner)) {
          return { check: "stale-slot-reuse", page: p, room: t.write.room, chunk: t.write.chunk, post: t.write.postSeq, free: t.orphanFree >= 0 ? t.orphanFree : this.lastFree(p), land: null };
        }
        if (!stale && (room === null || room === t.write.room)) return { check: "read-before-landed-write", page: p, write: t.write };
      }
    }
    const layerStore = p.layerStores?.get(layer);
    if (
      layerStore === undefined &&
      p.lwRoom !== null &&
      p.owner !== null &&
      p.lwRoom !== p.owner &&
      (p.lwOrphanFree >= 0 || p.lwEpoch !== p.epoch) &&
      p.lwLandSeq > p.allocSeq &&
      (room === null || room === p.owner)
    ) {
      return { check: "stale-slot-reuse", page: p, room: p.lwRoom, chunk: p.lwChunk, post: p.lwPostSeq, free: p.lwOrphanFree >= 0 ? p.lwOrphanFree : p.prevFreeSeq, land: p.lwLandSeq };
    }
    if (p.hcLoad >= 0 && !loaded(rank, p.hcLoad, layer)) return { check: "hicache-pending", page: p, load: p.hcLoad };
    return null;
  }

  /** Drops the marks of HiCache loads that finished (or left their slot), and pages that then hold nothing worth keeping. */
  sweep(isLive: (rank: number, id: number) => boolean): void {
    for (const [id, pages] of this.loadPages) {
      if (pages.length > 0 && isLive(pages[0]!.rank, id)) continue;
      for (const p of pages) {
        if (p.hcLoad !== id) continue;
        p.hcLoad = -1;
        this.maybeDrop(p);
      }
      this.loadPages.delete(id);
    }
  }

  /** A free page with nothing in flight and no pending load keeps no state a later check needs. */
  private maybeDrop(p: PageRec): void {
    if (p.owner === null && p.inflight === null && p.hcLoad < 0) {
      const pool = this.pools[p.pool];
      if (pool !== undefined) pool[p.page] = undefined;
    }
  }
}
