// Latent risks of the index-K path that configuration alone reveals: pool
// sizing hardcoded to FP8 (docs/hicache-indexk.md §2.3), the int32
// indexer-logits address (DESIGN.md seed 7), and `_send_kvcache_generic`
// addressing with one item_len (§2.4).

import type { IndexKDtype } from "../../domain/vocabulary.js";
import { INDEX_K_PAGE_TOKENS, pageBytes, rowBytes } from "./indexK.js";

export interface SizingInput {
  dtype: IndexKDtype;
  pageTokens?: number;
  /** Bytes/token/layer the device pool was sized with (the profiler's `indexer_size_per_token`). */
  configuredBytesPerToken?: number;
  /** `NSATokenToKVPoolHost.indexer_page_stride_size`. */
  hostPageStride?: number;
  layers?: number;
  tokens?: number;
}

export interface SizingMismatch {
  kind: "bytes-per-token" | "host-page-stride";
  required: number;
  configured: number;
  /** bytes-per-token: bytes the profiler did not count, when layers and tokens are known. */
  overCommitBytes?: number;
  message: string;
}

/**
 * Required vs configured: the profiler and the host pool hardcode 132 B/token
 * (fp8); a bf16 buffer needs 256, so 124 B/token/layer go uncounted and the
 * host stride 8,448 no longer matches the device page 16,384 ([inference] in
 * the reference: headroom loss or partial-row host copies).
 */
export function checkPoolSizing(input: SizingInput): SizingMismatch[] {
  const out: SizingMismatch[] = [];
  const pageTokens = input.pageTokens ?? INDEX_K_PAGE_TOKENS;
  const required = rowBytes(input.dtype);
  const conf = input.configuredBytesPerToken;
  if (conf !== undefined && conf !== required) {
    const m: SizingMismatch = {
      kind: "bytes-per-token",
      required,
      configured: conf,
      message: `index-K pool sized at ${conf} B/token/layer but a ${input.dtype} row needs ${required}`,
    };
    if (input.layers !== undefined && input.tokens !== undefined) {
      m.overCommitBytes = (required - conf) * input.layers * input.tokens;
      m.message += ` (${m.overCommitBytes} bytes over ${input.layers} layers × ${input.tokens} tokens)`;
    }
    out.push(m);
  }
  const device = pageBytes(input.dtype, pageTokens);
  if (input.hostPageStride !== undefined && input.hostPageStride !== device) {
    out.push({
      kind: "host-page-stride",
      required: device,
      configured: input.hostPageStride,
      message: `host index-K page stride ${input.hostPageStride} B vs device page ${device} B (${input.dtype}, ${pageTokens} tokens)`,
    });
  }
  return out;
}

export const INT32_MAX = 2 ** 31 - 1;

/**
 * [inference] The reference names the risk (int32 `b * max_seq_len + t`
 * above ~1M context) without the row bound; 2,048 rows is the bound at which
 * "~1M" (2^31 / 2,048 = 1,048,576) overflows, used when the run states none.
 */
export const DEFAULT_LOGIT_ROWS = 2048;

export interface AddressCheck {
  maxAddress: number;
  overflows: boolean;
  /** What an int32 holds for the largest address (wrapped). */
  wrapped: number;
  /** The smallest max_seq_len that overflows at this row count. */
  firstOverflowingSeqLen: number;
}

/** The largest indexer-logits address `(rows-1) * maxSeqLen + (maxSeqLen-1)` against int32. */
export function logitsAddressCheck(rows: number, maxSeqLen: number): AddressCheck {
  const maxAddress = rows * maxSeqLen - 1;
  return {
    maxAddress,
    overflows: maxAddress > INT32_MAX,
    wrapped: maxAddress | 0,
    firstOverflowingSeqLen: Math.floor((INT32_MAX + 1) / rows) + 1,
  };
}

/**
 * `group_concurrent_contiguous(src, dst)`: split the index pairs into runs
 * where both sides advance by one.
 */
export function groupConcurrentContiguous(src: readonly number[], dst: readonly number[]): [number[][], number[][]] {
  if (src.length !== dst.length) throw new Error(`index lists differ in length: ${src.length} vs ${dst.length}`);
  const s: number[][] = [];
  const d: number[][] = [];
  for (let i = 0; i < src.length; i++) {
    const cont = i > 0 && src[i] === src[i - 1]! + 1 && dst[i] === dst[i - 1]! + 1;
    if (cont) {
      s[s.length - 1]!.push(src[i]!);
      d[d.length - 1]!.push(dst[i]!);
    } else {
      s.push([src[i]!]);
      d.push([dst[i]!]);
    }
  }
  return [s, d];
}

export interface TransferBlock {
  src: number;
  dst: number;
  len: number;
}

/**
 * `_send_kvcache_generic` blocks: (src_ptr + s*item_len, dst_ptr + d*item_len,
 * run*item_len) with the sender's one item_len on both sides.
 */
export function genericSendBlocks(
  srcPtr: number,
  dstPtr: number,
  itemLen: number,
  srcIdx: readonly number[],
  dstIdx: readonly number[],
): TransferBlock[] {
  const [s, d] = groupConcurrentContiguous(srcIdx, dstIdx);
  return s.map((run, i) => ({ src: srcPtr + run[0]! * itemLen, dst: dstPtr + d[i]![0]! * itemLen, len: run.length * itemLen }));
}

/**
 * [inference] (§2.4): the destination offset uses the sender's item_len, so
 * when prefill and decode rows differ (132 vs 256 B/token × 64) every block
 * after index 0 lands at the wrong place. Returns the blocks whose address or
 * length differs from what the receiver's row size requires.
 */
export function misaddressedBlocks(
  srcItemLen: number,
  dstItemLen: number,
  srcIdx: readonly number[],
  dstIdx: readonly number[],
): { sent: TransferBlock; expected: TransferBlock }[] {
  const sent = genericSendBlocks(0, 0, srcItemLen, srcIdx, dstIdx);
  const out: { sent: TransferBlock; expected: TransferBlock }[] = [];
  const [, d] = groupConcurrentContiguous(srcIdx, dstIdx);
  sent.forEach((b, i) => {
    const expected = { src: b.src, dst: d[i]![0]! * dstItemLen, len: d[i]!.length * dstItemLen };
    if (expected.dst !== b.dst || expected.len !== b.len) out.push({ sent: b, expected });
  });
  return out;
}
