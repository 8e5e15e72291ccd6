// A compressed file's content as a stream: gzip (node:zlib), zstd
// (zstd-napi, the store's own codec) and xz (xz-decompress: XZ Embedded built
// to WebAssembly, streaming, no native code). Each is unpacked whole into the
// ingest's temporary folder and then read as what it holds (ingest/inputs/
// inputs.ts); a cut or corrupt stream fails the pipeline with the codec's error.

import { createReadStream, createWriteStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";
import xz from "xz-decompress";
import { DecompressStream } from "zstd-napi";
import type { Compression } from "./archive.js";

/** The name's compression suffix, which its identity (host, role, rotation) is read without. */
export const COMPRESSED_SUFFIX: Record<Compression, RegExp> = { gzip: /\.gz$/i, zstd: /\.zst$/i, xz: /\.xz$/i };

/** A compressed file whose content passed the bytes it may unpack to. */
export class UnpackLimitError extends Error {
  constructor(readonly limitBytes: number) {
    super(`unpacks to more than ${limitBytes} bytes`);
  }
}

/**
 * Writes the file's unpacked content to `out`, at most `maxBytes` of it (a
 * decompression bomb stops there, UnpackLimitError); rejects with the codec's
 * error when the stream is cut or corrupt. Returns the bytes written.
 */
export async function unpackTo(file: string, kind: Compression, out: string, maxBytes = Infinity): Promise<number> {
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? new UnpackLimitError(maxBytes) : null, chunk);
    },
  });
  const written = createWriteStream(out);
  const packed = createReadStream(file);
  if (kind === "gzip") await pipeline(packed, createGunzip(), counted, written);
  else if (kind === "zstd") await pipeline(packed, new DecompressStream(), counted, written);
  else {
    const web = Readable.toWeb(packed) as unknown as ReadableStream<Uint8Array>;
    await pipeline(Readable.fromWeb(new xz.XzReadableStream(web) as unknown as WebReadableStream<Uint8Array>), counted, written);
  }
  return bytes;
}
