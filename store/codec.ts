// The one byte codec of the store: event blocks and text slices are
// compressed with Zstandard (zstd-napi), which on the event blocks and log
// text compresses as small as deflate at its default level, many times
// faster (bench/storeCodecs.ts compares them; figures in bench/RESULTS.md).

import { compress as zstdCompress, decompress as zstdDecompress } from "zstd-napi";
import zstdBinding from "zstd-napi/binding.js";

/** Level 3 (zstd's default): higher levels cost ingest time for a few percent of size. */
const LEVEL = 3;

export function compress(data: Uint8Array, level = LEVEL): Uint8Array {
  return zstdCompress(data, { compressionLevel: level });
}

export function decompress(data: Uint8Array): Uint8Array {
  return zstdDecompress(data);
}

/**
 * Decompresses one buffer after another into a buffer of its own, grown as
 * needed: each result is valid until the next call. A replay decompresses
 * every event block (~220 KB each); a fresh buffer per block costs
 * decompression time and leaves the garbage collector that much external
 * memory.
 */
export class ReusedDecompression {
  private readonly dctx = new zstdBinding.DCtx();
  private buffer = new Uint8Array(0);

  decompress(data: Uint8Array): Uint8Array {
    const size = zstdBinding.getFrameContentSize(data);
    // A frame without its size, or more than one frame: the general path.
    if (size === null || zstdBinding.findFrameCompressedSize(data) !== data.byteLength) return decompress(data);
    if (size > this.buffer.byteLength) this.buffer = new Uint8Array(Math.ceil(size * 1.25));
    const out = this.buffer.subarray(0, size);
    const written = this.dctx.decompress(out, data);
    if (written !== size) throw new Error(`zstd frame of ${size} bytes decompressed to ${written}`);
    return out;
  }
}
