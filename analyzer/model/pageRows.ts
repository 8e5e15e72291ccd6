// A dumped index-K page as the kernels lay it out (docs/hicache-indexk.md
// §2.1, §2.2): where each token row's bytes are (the store kernel's own
// addressing, storeAddress), its values decoded (fp8 with its row's scale,
// bf16 as bf16), and how two pages differ row by row. Pure.

import type { IndexKDtype } from "../../domain/vocabulary.js";
import { bf16Decode } from "./bf16.js";
import { fp8Decode } from "./fp8.js";
import { INDEX_HEAD_DIM, INDEX_K_PAGE_TOKENS, pageBytes, storeAddress } from "./indexK.js";

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

/**
 * Rows holding a value that decodes to no finite number, told from the bits:
 * an fp8 e4m3fn NaN byte (S.1111.111), a non-finite fp32 scale, a bf16 NaN or
 * infinity (exponent all ones). The page is scanned a 32-bit word at a time
 * and only a word that holds such a value is looked at row by row.
 */
export function nonFiniteRows(p: PageImage): number[] {
  const n = rowsOf(p);
  if (n === 0) return [];
  const view = new DataView(p.bytes.buffer, p.bytes.byteOffset, p.bytes.byteLength);
  const rows = new Set<number>();
  if (p.dtype === "fp8") {
    const data = n * INDEX_HEAD_DIM;
    for (let at = 0; at < data; at += 4) {
      // A byte of w & 0x7f7f7f7f is 0x7f exactly when adding 1 sets its top bit; no carry crosses bytes.
      if ((((view.getUint32(at, true) & 0x7f7f7f7f) + 0x01010101) & 0x80808080) !== 0) {
        for (let i = at; i < at + 4; i++) if ((p.bytes[i]! & 0x7f) === 0x7f) rows.add(Math.floor(i / INDEX_HEAD_DIM));
      }
    }
    for (let r = 0; r < n; r++) if (!Number.isFinite(view.getFloat32(data + r * 4, true))) rows.add(r);
  } else {
    for (let at = 0; at < p.bytes.length; at += 4) {
      const w = view.getUint32(at, true);
      if ((w & 0x7f80) === 0x7f80) rows.add(Math.floor(at / (INDEX_HEAD_DIM * 2)));
      if ((w & 0x7f800000) === 0x7f800000) rows.add(Math.floor(at / (INDEX_HEAD_DIM * 2)));
    }
  }
  return [...rows].sort((a, b) => a - b);
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
