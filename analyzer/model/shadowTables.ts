// The shadow memory's records as column tables (see slots.ts for why):
// extents (runs of pages of one pool in the same state), transfer writes, and
// write targets (one per extent a write covers). A target sits on two lists:
// its write's targets, and its extent's in-flight targets in post order
// (doubly linked, so a landing write unlinks each target at once). Columns
// are public: shadowMemory.ts, the view and the snapshot read them by slot.
// -1 is "none" for every link and seq; NaN is null in nullable number columns
// (chunk, queue).

import { grownF64, grownI32, SlotAllocator } from "./slots.js";

const NONE = -1;

/** Kernel stores of single layers since the last whole-page write: layer → [room, seq]. */
export type LayerStores = Map<number, [string | null, number]>;

/**
 * Pages [lo, hi) of one pool (rank, buffer) that hold the same state, which a
 * later check needs: every field below describes each of its pages.
 */
export class ExtentTable {
  private readonly slots = new SlotAllocator();
  private capacity = 0;
  /** poolIndex(rank, buf); -1 marks a free slot. */
  pool = new Int32Array(0);
  lo = new Int32Array(0);
  hi = new Int32Array(0);
  /** Allocation epoch: +1 per kv.alloc of the page. */
  epoch = new Int32Array(0);
  allocSeq = new Float64Array(0);
  /** The free that ended the current epoch (-1 while owned). */
  freeSeq = new Float64Array(0);
  /** The free that ended the epoch before the current one. */
  prevFreeSeq = new Float64Array(0);
  owner: (string | null)[] = [];
  /** The last landed write: its room, chunk, epoch, post, landing and orphaning free. */
  lwRoom: (string | null)[] = [];
  lwChunk = new Float64Array(0);
  lwEpoch = new Int32Array(0);
  lwPostSeq = new Float64Array(0);
  lwLandSeq = new Float64Array(0);
  lwOrphanFree = new Float64Array(0);
  /** The HiCache load filling the page, and its event. */
  hcLoad = new Float64Array(0);
  hcSeq = new Float64Array(0);
  changedSeq = new Float64Array(0);
  layerStores: (LayerStores | null)[] = [];
  /** The extent's in-flight targets, oldest post first. */
  firstTarget = new Int32Array(0);
  lastTarget = new Int32Array(0);

  /** Slots below this may be live (check `pool[slot] >= 0`). */
  get highWater(): number {
    return this.slots.highWater;
  }

  get live(): number {
    return this.slots.live;
  }

  /** A new extent of pages [lo, hi) in the state of a page never touched. */
  add(pool: number, lo: number, hi: number, seq: number): number {
    const x = this.slots.take();
    if (x >= this.capacity) this.grow();
    this.pool[x] = pool;
    this.lo[x] = lo;
    this.hi[x] = hi;
    this.epoch[x] = 0;
    this.allocSeq[x] = NONE;
    this.freeSeq[x] = NONE;
    this.prevFreeSeq[x] = NONE;
    this.owner[x] = null;
    this.lwRoom[x] = null;
    this.lwChunk[x] = NaN;
    this.lwEpoch[x] = NONE;
    this.lwPostSeq[x] = NONE;
    this.lwLandSeq[x] = NONE;
    this.lwOrphanFree[x] = NONE;
    this.hcLoad[x] = NONE;
    this.hcSeq[x] = NONE;
    this.changedSeq[x] = seq;
    this.layerStores[x] = null;
    this.firstTarget[x] = NONE;
    this.lastTarget[x] = NONE;
    return x;
  }

  /** A new extent of pages [lo, hi) of `x`'s pool in `x`'s state, without its targets (the caller copies them). */
  copyOf(x: number, lo: number, hi: number): number {
    const y = this.add(this.pool[x]!, lo, hi, this.changedSeq[x]!);
    this.epoch[y] = this.epoch[x]!;
    this.allocSeq[y] = this.allocSeq[x]!;
    this.freeSeq[y] = this.freeSeq[x]!;
    this.prevFreeSeq[y] = this.prevFreeSeq[x]!;
    this.owner[y] = this.owner[x]!;
    this.lwRoom[y] = this.lwRoom[x]!;
    this.lwChunk[y] = this.lwChunk[x]!;
    this.lwEpoch[y] = this.lwEpoch[x]!;
    this.lwPostSeq[y] = this.lwPostSeq[x]!;
    this.lwLandSeq[y] = this.lwLandSeq[x]!;
    this.lwOrphanFree[y] = this.lwOrphanFree[x]!;
    this.hcLoad[y] = this.hcLoad[x]!;
    this.hcSeq[y] = this.hcSeq[x]!;
    const stores = this.layerStores[x];
    this.layerStores[y] = stores == null ? null : new Map(stores);
    return y;
  }

  remove(x: number): void {
    this.pool[x] = NONE;
    this.owner[x] = null;
    this.lwRoom[x] = null;
    this.layerStores[x] = null;
    this.slots.give(x);
  }

  private grow(): void {
    const n = Math.max(256, this.capacity * 2);
    this.pool = grownI32(this.pool, n, NONE);
    this.lo = grownI32(this.lo, n);
    this.hi = grownI32(this.hi, n);
    this.epoch = grownI32(this.epoch, n);
    this.allocSeq = grownF64(this.allocSeq, n);
    this.freeSeq = grownF64(this.freeSeq, n);
    this.prevFreeSeq = grownF64(this.prevFreeSeq, n);
    this.lwChunk = grownF64(this.lwChunk, n);
    this.lwEpoch = grownI32(this.lwEpoch, n);
    this.lwPostSeq = grownF64(this.lwPostSeq, n);
    this.lwLandSeq = grownF64(this.lwLandSeq, n);
    this.lwOrphanFree = grownF64(this.lwOrphanFree, n);
    this.hcLoad = grownF64(this.hcLoad, n);
    this.hcSeq = grownF64(this.hcSeq, n);
    this.changedSeq = grownF64(this.changedSeq, n);
    this.firstTarget = grownI32(this.firstTarget, n);
    this.lastTarget = grownI32(this.lastTarget, n);
    this.capacity = n;
  }
}

/** One transfer write in flight: a posted chunk (or the state pages) towards one decode rank's pool. */
export class WriteTable {
  private readonly slots = new SlotAllocator();
  private capacity = 0;
  /** Ids grow with every post; snapshots name writes by id. -1 marks a free slot. */
  id = new Float64Array(0);
  room: (string | null)[] = [];
  chunk = new Float64Array(0);
  poster = new Int32Array(0);
  target = new Int32Array(0);
  buf = new Int32Array(0);
  postSeq = new Float64Array(0);
  queue = new Float64Array(0);
  firstTarget = new Int32Array(0);
  lastTarget = new Int32Array(0);

  get highWater(): number {
    return this.slots.highWater;
  }

  get live(): number {
    return this.slots.live;
  }

  add(id: number, room: string, chunk: number, poster: number, target: number, buf: number, postSeq: number, queue: number): number {
    const x = this.slots.take();
    if (x >= this.capacity) this.grow();
    this.id[x] = id;
    this.room[x] = room;
    this.chunk[x] = chunk;
    this.poster[x] = poster;
    this.target[x] = target;
    this.buf[x] = buf;
    this.postSeq[x] = postSeq;
    this.queue[x] = queue;
    this.firstTarget[x] = NONE;
    this.lastTarget[x] = NONE;
    return x;
  }

  remove(x: number): void {
    this.id[x] = NONE;
    this.room[x] = null;
    this.slots.give(x);
  }

  private grow(): void {
    const n = Math.max(64, this.capacity * 2);
    this.id = grownF64(this.id, n, NONE);
    this.chunk = grownF64(this.chunk, n);
    this.poster = grownI32(this.poster, n);
    this.target = grownI32(this.target, n);
    this.buf = grownI32(this.buf, n);
    this.postSeq = grownF64(this.postSeq, n);
    this.queue = grownF64(this.queue, n);
    this.firstTarget = grownI32(this.firstTarget, n);
    this.lastTarget = grownI32(this.lastTarget, n);
    this.capacity = n;
  }
}

/** One extent a write targets, with its pages' epoch at post time and the free that orphaned the write there. */
export class TargetTable {
  private readonly slots = new SlotAllocator();
  private capacity = 0;
  write = new Int32Array(0);
  extent = new Int32Array(0);
  /** The pages' allocation epoch when posted; -1 when the room no longer owned them at post time. */
  epoch = new Int32Array(0);
  /** The free that left this write without an owner (seq), or -1 while its room still owns the page. */
  orphanFree = new Float64Array(0);
  prevOnExtent = new Int32Array(0);
  nextOnExtent = new Int32Array(0);
  nextInWrite = new Int32Array(0);

  add(write: number, extent: number, epoch: number, orphanFree: number): number {
    const x = this.slots.take();
    if (x >= this.capacity) this.grow();
    this.write[x] = write;
    this.extent[x] = extent;
    this.epoch[x] = epoch;
    this.orphanFree[x] = orphanFree;
    this.prevOnExtent[x] = NONE;
    this.nextOnExtent[x] = NONE;
    this.nextInWrite[x] = NONE;
    return x;
  }

  remove(x: number): void {
    this.slots.give(x);
  }

  private grow(): void {
    const n = Math.max(256, this.capacity * 2);
    this.write = grownI32(this.write, n);
    this.extent = grownI32(this.extent, n);
    this.epoch = grownI32(this.epoch, n);
    this.orphanFree = grownF64(this.orphanFree, n);
    this.prevOnExtent = grownI32(this.prevOnExtent, n);
    this.nextOnExtent = grownI32(this.nextOnExtent, n);
    this.nextInWrite = grownI32(this.nextInWrite, n);
    this.capacity = n;
  }
}
