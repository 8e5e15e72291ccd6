// The one byte codec of the store: event blocks and text slices are
// compressed with Zstandard (zstd-napi). Chosen by measurement:
// bench/storeCodecs.ts compares it with zlib's deflate and brotli on the
// event blocks and log text (zstd -3 as small as deflate -6, compressing
// 10-20x faster); an earlier prototype on this data found lz4's files larger.

import { compress as zstdCompress, decompress as zstdDecompress } from "zstd-napi";

/** Level 3 (zstd's default): higher levels cost ingest time for a few percent of size. */
const LEVEL = 3;

export function compress(data: Uint8Array, level = LEVEL): Uint8Array {
  return zstdCompress(data, { compressionLevel: level });
}

export function decompress(data: Uint8Array): Uint8Array {
  return zstdDecompress(data);
}
