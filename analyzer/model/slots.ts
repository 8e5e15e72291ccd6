// Storage for the shadow memory's many short-lived records (pages, writes,
// write targets): each kind is a table of typed-array columns indexed by a
// small integer slot, and freed slots are reused. A replay creates and drops
// millions of these records; as objects they were most of the garbage the
// collector had to copy, as slots they cost nothing to drop.

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
 * allocated on first use: lookups are two array reads, and memory follows the
 * pages in use, not the highest page number seen.
 */
export class PageIndex {
  private readonly blocks: (Int32Array | undefined)[] = [];

  get(page: number): number {
    const b = this.blocks[page >>> BLOCK_BITS];
    return b === undefined ? -1 : b[page & BLOCK_MASK]!;
  }

  set(page: number, slot: number): void {
    let b = this.blocks[page >>> BLOCK_BITS];
    if (b === undefined) this.blocks[page >>> BLOCK_BITS] = b = new Int32Array(1 << BLOCK_BITS).fill(-1);
    b[page & BLOCK_MASK] = slot;
  }
}
