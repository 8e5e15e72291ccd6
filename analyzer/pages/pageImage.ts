// A dumped index-K page as the kernels lay it out (docs/hicache-indexk.md
// §2.1, §2.2): where each token row's bytes are (the store kernel's own
// addressing, storeAddress), its values decoded (fp8 with its row's scale,
// bf16 as bf16), and how two pages differ row by row. Pure.

import type { IndexKDtype } from "../model/api.js";
import { bf16Decode } from "../model/bf16.js";
import { fp8Decode } from "../model/fp8.js";
import { INDEX_HEAD_DIM, INDEX_K_PAGE_TOKENS, pageBytes, storeAddress } from "../model/indexK.js";

export interface PageImage {
  dtype: IndexKDtype;
  bytes: Uint8Array;
}

/** A byte range [start, end) of a page. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Token row `row`'s byte ranges in a page: fp8 its 128 data bytes and its 4 scale bytes, bf16 its 256 bytes. */
export function rowRanges(row: number, dtype: IndexKDtype): ByteRange[] {
  const a = storeAddress(row, dtype);
  if (a.scale === null) return [{ start: a.k, end: a.k + INDEX_HEAD_DIM * 2 }];
  return [{ start: a.k, end: a.k + INDEX_HEAD_DIM }, { start: a.scale, end: a.scale + 4 }];
}

/** The page's size is its dtype's page (8,448 B fp8, 16,384 B bf16). */
export function hasPageSize(p: PageImage): boolean {
  return p.bytes.length === pageBytes(p.dtype);
}

export function rowsOf(p: PageImage): number {
  return hasPageSize(p) ? INDEX_K_PAGE_TOKENS : 0;
}

/** An fp8 row's fp32 scale (little-endian, at page*8448 + 8192 + off*4). */
export function rowScale(p: PageImage, row: number): number {
  const a = storeAddress(row, "fp8");
  return new DataView(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength).getFloat32(a.scale!, true);
}

/** Row `row`'s 128 values: fp8 × its scale, or bf16. */
export function decodeRow(p: PageImage, row: number, out = new Float32Array(INDEX_HEAD_DIM)): Float32Array {
  const a = storeAddress(row, p.dtype);
  if (p.dtype === "fp8") {
    const scale = rowScale(p, row);
    for (let i = 0; i < INDEX_HEAD_DIM; i++) out[i] = fp8Decode(p.bytes[a.k + i]!) * scale;
    return out;
  }
  const view = new DataView(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength);
  for (let i = 0; i < INDEX_HEAD_DIM; i++) out[i] = bf16Decode(view.getUint16(a.k + i * 2, true));
  return out;
}

/** A byte loop, not Buffer.compare: rows are 132–256 B, where a view per comparison costs more than the bytes. */
export function rangesEqual(a: Uint8Array, b: Uint8Array, ranges: readonly ByteRange[]): boolean {
  for (const r of ranges) {
    if (a.length < r.end || b.length < r.end) return false;
    for (let i = r.start; i < r.end; i++) if (a[i] !== b[i]) return false;
  }
  return true;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array, start = 0, end = Math.max(a.length, b.length)): boolean {
  if (a.length < end || b.length < end) return false;
  return Buffer.compare(a.subarray(start, end), b.subarray(start, end)) === 0;
}

/** Rows whose bytes differ between two pages of one dtype and size. */
export function differingRows(a: PageImage, b: PageImage): number[] {
  const rows: number[] = [];
  for (let r = 0; r < rowsOf(a); r++) if (!rangesEqual(a.bytes, b.bytes, rowRanges(r, a.dtype))) rows.push(r);
  return rows;
}

export function hex(bytes: Uint8Array, start: number, count: number): string {
  return Buffer.from(bytes.subarray(start, Math.min(bytes.length, start + count))).toString("hex").replace(/(..)(?!$)/g, "$1 ");
}
