// The NSA index-K pool, byte-exact over typed arrays: row and page layout,
// the store kernel's addressing, the gather kernels through a page table
// (docs/hicache-indexk.md §2.1, §2.2).

import type { IndexKDtype } from "../../domain/vocabulary.js";
import { pageChecksum, type ChecksumAlgo } from "./checksum.js";

export const INDEX_HEAD_DIM = 128;
export const QUANT_BLOCK_SIZE = 128;
/** `page_size == 64` on CUDA. */
export const INDEX_K_PAGE_TOKENS = 64;

/** Bytes per token per layer: fp8 128 + 128/128 × 4 (fp32 scale) = 132; bf16 128 × 2 = 256 (no scale). */
export function rowBytes(dtype: IndexKDtype): number {
  return dtype === "fp8" ? INDEX_HEAD_DIM + (INDEX_HEAD_DIM / QUANT_BLOCK_SIZE) * 4 : INDEX_HEAD_DIM * 2;
}

/** Bytes of one page row of the per-layer buffer: 8,448 (fp8) or 16,384 (bf16) at 64 tokens. */
export function pageBytes(dtype: IndexKDtype, pageTokens = INDEX_K_PAGE_TOKENS): number {
  return rowBytes(dtype) * pageTokens;
}

/** Pages of the per-layer buffer: `(index_buf_size + page_size + 1) // page_size`. */
export function poolPages(indexBufSize: number, pageTokens = INDEX_K_PAGE_TOKENS): number {
  return Math.floor((indexBufSize + pageTokens + 1) / pageTokens);
}

export interface StoreAddress {
  page: number;
  off: number;
  /** Byte offset of the token's K bytes in the layer buffer. */
  k: number;
  /** Byte offset of its fp32 scale; null for bf16, which has none. */
  scale: number | null;
}

/**
 * `_set_k_and_s_triton_kernel` addressing: page = loc // 64, off = loc % 64;
 * fp8 K at page*8448 + off*128, scale at page*8448 + 64*128 + off*4 (all data
 * of a page first, then all its scales); bf16 rows at page*16384 + off*256.
 */
export function storeAddress(loc: number, dtype: IndexKDtype = "fp8", pageTokens = INDEX_K_PAGE_TOKENS): StoreAddress {
  const page = Math.floor(loc / pageTokens);
  const off = loc % pageTokens;
  const base = page * pageBytes(dtype, pageTokens);
  if (dtype === "bf16") return { page, off, k: base + off * rowBytes("bf16"), scale: null };
  return { page, off, k: base + off * INDEX_HEAD_DIM, scale: base + pageTokens * INDEX_HEAD_DIM + off * 4 };
}

/** One layer-buffer per layer, each `pages × pageBytes` bytes. */
export class IndexKPool {
  readonly pageBytes: number;
  private readonly buffers: Uint8Array[];

  constructor(
    readonly dtype: IndexKDtype,
    readonly pages: number,
    readonly layers = 1,
    readonly pageTokens = INDEX_K_PAGE_TOKENS,
  ) {
    this.pageBytes = pageBytes(dtype, pageTokens);
    this.buffers = Array.from({ length: layers }, () => new Uint8Array(pages * this.pageBytes));
  }

  layer(layer: number): Uint8Array {
    const b = this.buffers[layer];
    if (b === undefined) throw new RangeError(`layer ${layer} outside the pool's ${this.layers} layers`);
    return b;
  }

  /**
   * `SetKAndS`: token i's 128 fp8 bytes (`k[i*128 ..]`) and fp32 scale
   * (`scales[i]`, stored little-endian) at `locs[i]`. bf16 pools take 256-byte
   * rows and no scales.
   */
  store(layer: number, locs: ArrayLike<number>, k: Uint8Array, scales?: ArrayLike<number>): void {
    const buf = this.layer(layer);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const rb = this.dtype === "fp8" ? INDEX_HEAD_DIM : rowBytes("bf16");
    for (let i = 0; i < locs.length; i++) {
      const a = storeAddress(locs[i]!, this.dtype, this.pageTokens);
      if (a.page >= this.pages) throw new RangeError(`loc ${locs[i]} is on page ${a.page}, past the pool's ${this.pages} pages`);
      buf.set(k.subarray(i * rb, (i + 1) * rb), a.k);
      if (a.scale !== null) {
        if (scales === undefined) throw new Error("an fp8 index-K store needs one scale per token");
        view.setFloat32(a.scale, scales[i]!, true);
      }
    }
  }

  /** `GetK`: token t reads page `pageTable[t // 64]`, offset `t % 64`; output (seqLen, row) bytes. */
  getK(layer: number, pageTable: ArrayLike<number>, seqLen: number): Uint8Array {
    const buf = this.layer(layer);
    const rb = this.dtype === "fp8" ? INDEX_HEAD_DIM : rowBytes("bf16");
    const out = new Uint8Array(seqLen * rb);
    for (let t = 0; t < seqLen; t++) {
      const src = this.tokenPage(pageTable, t) * this.pageBytes + (t % this.pageTokens) * rb;
      out.set(buf.subarray(src, src + rb), t * rb);
    }
    return out;
  }

  /** `GetS`: (seqLen, 4) bytes from `page*8448 + 64*128 + off*4`. fp8 only. */
  getS(layer: number, pageTable: ArrayLike<number>, seqLen: number): Uint8Array {
    if (this.dtype !== "fp8") throw new Error("a bf16 index-K pool has no scales");
    const buf = this.layer(layer);
    const out = new Uint8Array(seqLen * 4);
    for (let t = 0; t < seqLen; t++) {
      const src = this.tokenPage(pageTable, t) * this.pageBytes + this.pageTokens * INDEX_HEAD_DIM + (t % this.pageTokens) * 4;
      out.set(buf.subarray(src, src + 4), t * 4);
    }
    return out;
  }

  /** `GetKAndS`: both gathers (the fused kernel). */
  getKAndS(layer: number, pageTable: ArrayLike<number>, seqLen: number): { k: Uint8Array; s: Uint8Array } {
    return { k: this.getK(layer, pageTable, seqLen), s: this.getS(layer, pageTable, seqLen) };
  }

  /** One page row of one layer (a view, not a copy). */
  page(layer: number, page: number): Uint8Array {
    return this.layer(layer).subarray(page * this.pageBytes, (page + 1) * this.pageBytes);
  }

  pageChecksum(layer: number, page: number, algo: ChecksumAlgo): string {
    return pageChecksum(this.page(layer, page), algo);
  }

  private tokenPage(pageTable: ArrayLike<number>, t: number): number {
    const p = pageTable[Math.floor(t / this.pageTokens)];
    if (p === undefined || p >= this.pages) throw new RangeError(`token ${t}: page table entry ${p} outside the pool`);
    return p;
  }
}
