// One column of numbers in an event block, frame-of-reference
// packed: base + u8/u16/u32 offsets (the widest value reserved for NULL), a
// constant, or raw float64 where values are not integers or span too much.
// Decoding makes a typed-array view of the stored bytes and reads rows in
// place.

/** How one packed column is laid out: value = base + stored, the all-ones code meaning NULL. */
export interface PackedLayout {
  /** Null in a stored header for NaN. */
  base: number | null;
  /** 0: constant `base` (NaN: all NULL); 8: absolute float64, NaN meaning NULL. */
  width: 0 | 1 | 2 | 4 | 8;
  offset: number;
}

const NULL_CODE = { 1: 0xff, 2: 0xffff, 4: 0xffffffff } as const;

/** Packs `values[0..n)` (NaN: NULL) and places the bytes with `place`, which returns their offset. */
export function packColumn(values: Float64Array, n: number, place: (b: Uint8Array) => number): PackedLayout {
  let min = Infinity;
  let max = -Infinity;
  let nulls = 0;
  let integral = true;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v !== v) {
      nulls++;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    if (integral && !Number.isInteger(v)) integral = false;
  }
  if (nulls === n) return { base: NaN, width: 0, offset: 0 };
  if (min === max && nulls === 0) return { base: min, width: 0, offset: 0 };
  const span = max - min;
  if (!integral || span >= NULL_CODE[4]) {
    return { base: 0, width: 8, offset: place(new Uint8Array(values.slice(0, n).buffer)) };
  }
  const width = span < NULL_CODE[1] ? 1 : span < NULL_CODE[2] ? 2 : 4;
  const nullCode = NULL_CODE[width];
  const packed = width === 1 ? new Uint8Array(n) : width === 2 ? new Uint16Array(n) : new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    packed[i] = v !== v ? nullCode : v - min;
  }
  return { base: min, width, offset: place(new Uint8Array(packed.buffer)) };
}

/**
 * One column of a decoded block, read in place from the block's buffer (no
 * unpacking pass: most rows are skipped by the model after their kind).
 */
export class PackedColumn {
  base = NaN;
  private nullCode = NaN;
  /** Null for a constant column: every row holds `base` (NaN: all NULL). */
  private data: Uint8Array | Uint16Array | Uint32Array | Float64Array | null = null;

  /** Row i's value; NaN for NULL. */
  at(i: number): number {
    const d = this.data;
    if (d === null) return this.base;
    const v = d[i]!;
    return v === this.nullCode ? NaN : this.base + v;
  }

  view(buf: Buffer, body: number, layout: PackedLayout, n: number): void {
    const at = buf.byteOffset + body + layout.offset;
    // The header is JSON, where the NaN base of an all-NULL column becomes null.
    this.base = layout.width === 8 ? 0 : (layout.base ?? NaN);
    this.nullCode = layout.width === 0 || layout.width === 8 ? NaN : NULL_CODE[layout.width];
    this.data =
      layout.width === 0 ? null
      : layout.width === 1 ? new Uint8Array(buf.buffer, at, n)
      : layout.width === 2 ? new Uint16Array(buf.buffer, at, n)
      : layout.width === 4 ? new Uint32Array(buf.buffer, at, n)
      : new Float64Array(buf.buffer, at, n);
  }
}
