// The one byte codec of the store: event blocks and text slices are
// compressed with Zstandard (zstd-napi). Chosen by measurement on this data
// against lz4 and zlib's deflate (bench/store.bench.ts prints the figures):
// zstd at a low level compresses the events and log text two to three times
// better than lz4 at a decode speed the replay does not notice.

import { compress as zstdCompress, decompress as zstdDecompress } from "zstd-napi";

/** Level 3 (zstd's default): higher levels cost ingest time for a few percent of size. */
const LEVEL = 3;

export function compress(data: Uint8Array): Uint8Array {
  return zstdCompress(data, { compressionLevel: LEVEL });
}

export function decompress(data: Uint8Array): Uint8Array {
  return zstdDecompress(data);
}
