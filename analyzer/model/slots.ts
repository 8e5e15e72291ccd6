// Storage for the shadow memory's many short-lived records (page extents, writes,
// write targets): each kind is a table of typed-array columns indexed by a
// small integer slot, and freed slots are reused. A replay creates and drops
// millions of these records; as objects they would be most of the garbage
// the collector has to copy, as slots they cost nothing to drop.

/** Hands out table slots, reusing freed ones first. */
export class SlotAllocator {
  private free: Int32Array = new Int32Array(64);
  private freeCount = 0;
  /** Every slot ever handed out is below this. */
  highWater = 0;

  /** A free slot: a freed one, else a new one (`highWater - 1`) that the table may have to grow for. */
  take(): number {
    if (this.freeCount > 0) return this.free[--this.freeCount]!;
    return this.highWater++;
  }

  give(slot: number): void {
    if (this.freeCount === this.free.length) this.free = grownI32(this.free, this.free.length * 2);
    this.free[this.freeCount++] = slot;
  }

  get live(): number {
    return this.highWater - this.freeCount;
  }
}

export function grownF64(a: Float64Array, size: number, fill = 0): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

export function grownI32(a: Int32Array, size: number, fill = 0): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

/** Null numbers live in Float64 columns as NaN. */
export function nullable(v: number): number | null {
  return v === v ? v : null;
}

export function orNaN(v: number | null): number {
  return v === null ? NaN : v;
}

const BLOCK_BITS = 12;
const BLOCK_MASK = (1 << BLOCK_BITS) - 1;

/**
 * Page number → slot (-1: none) for one pool, in blocks of 4,096 pages
 * allocated on first use: lookups are two array reads, a run of pages is set
 * with one native fill per block, and memory follows the pages in use, not
 * the highest page number seen.
 */
export class PageIndex {
  private readonly blocks: (Int32Array | undefined)[] = [];

  get(page: number): number {
    const b = this.blocks[page >>> BLOCK_BITS];
    return b === undefined ? -1 : b[page & BLOCK_MASK]!;
  }

  /** Maps pages [lo, hi) to `slot`. */
  fill(lo: number, hi: number, slot: number): void {
    for (let p = lo; p < hi; ) {
      const k = p >>> BLOCK_BITS;
      const end = Math.min(hi, (k + 1) << BLOCK_BITS);
      let b = this.blocks[k];
      if (b === undefined && slot >= 0) this.blocks[k] = b = new Int32Array(1 << BLOCK_BITS).fill(-1);
      b?.fill(slot, p & BLOCK_MASK, ((end - 1) & BLOCK_MASK) + 1);
      p = end;
    }
  }

  /** The first page in [from, hi) that maps to a slot, else `hi`; blocks never used are skipped whole. */
  nextMapped(from: number, hi: number): number {
    for (let p = from; p < hi; ) {
      const b = this.blocks[p >>> BLOCK_BITS];
      if (b === undefined) {
        p = ((p >>> BLOCK_BITS) + 1) << BLOCK_BITS;
        continue;
      }
      if (b[p & BLOCK_MASK]! >= 0) return p;
      p++;
    }
    return hi;
  }
}
