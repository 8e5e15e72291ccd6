// A bf16 index-K page requantized to fp8 by the kernels themselves: each row
// through quantizeRow (fp8.ts), the page written by the store kernel's
// addressing (IndexKPool.store: data, then scales). What a decode page holds
// when the bytes differ from prefill's bf16 only by precision.

import { bf16Decode } from "../model/bf16.js";
import { quantizeRow } from "../model/fp8.js";
import { INDEX_HEAD_DIM, INDEX_K_PAGE_TOKENS, IndexKPool, storeAddress } from "../model/indexK.js";

const LOCS = Array.from({ length: INDEX_K_PAGE_TOKENS }, (_, i) => i);

export function requantizedPage(bf16Page: Uint8Array): Uint8Array {
  const view = new DataView(bf16Page.buffer, bf16Page.byteOffset, bf16Page.byteLength);
  const k = new Uint8Array(INDEX_K_PAGE_TOKENS * INDEX_HEAD_DIM);
  const scales = new Float32Array(INDEX_K_PAGE_TOKENS);
  const values = new Float32Array(INDEX_HEAD_DIM);
  for (let r = 0; r < INDEX_K_PAGE_TOKENS; r++) {
    const at = storeAddress(r, "bf16").k;
    for (let i = 0; i < INDEX_HEAD_DIM; i++) values[i] = bf16Decode(view.getUint16(at + i * 2, true));
    scales[r] = quantizeRow(values, k.subarray(r * INDEX_HEAD_DIM, (r + 1) * INDEX_HEAD_DIM)).scale;
  }
  const pool = new IndexKPool("fp8", 1);
  pool.store(0, LOCS, k, scales);
  return pool.page(0, 0);
}
