// Index-K row and page sizes per dtype (hicache-indexk-scheduler.md §2.1):
// fp8 rows are 128 B of e4m3 data plus a 4 B fp32 scale (132 B/token), bf16
// rows are 256 B with no scale; a page holds 64 tokens on CUDA.

export const INDEX_K_ROW_BYTES: Readonly<Record<string, number>> = { fp8: 132, bf16: 256 };
export const DEFAULT_INDEX_K_PAGE_TOKENS = 64;

export function indexKRowBytes(dtype: string | undefined): number | undefined {
  return dtype === undefined ? undefined : INDEX_K_ROW_BYTES[dtype];
}
