// A compressed file's content as a stream: gzip (node:zlib), zstd
// (zstd-napi, the store's own codec) and xz (xz-decompress: XZ Embedded built
// to WebAssembly, streaming, no native code). Each is unpacked whole into the
// ingest's temporary folder and then read as what it holds (ingest/inputs/
// inputs.ts); a cut or corrupt stream fails the pipeline with the codec's error.

import { createReadStream, createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";
import xz from "xz-decompress";
import { DecompressStream } from "zstd-napi";
import type { Compression } from "./archive.js";

/** The name's compression suffix, which its identity (host, role, rotation) is read without. */
export const COMPRESSED_SUFFIX: Record<Compression, RegExp> = { gzip: /\.gz$/i, zstd: /\.zst$/i, xz: /\.xz$/i };

/** Writes the file's unpacked content to `out`; rejects with the codec's error when the stream is cut or corrupt. */
export async function unpackTo(file: string, kind: Compression, out: string): Promise<void> {
  const packed = createReadStream(file);
  const written = createWriteStream(out);
  if (kind === "gzip") return pipeline(packed, createGunzip(), written);
  if (kind === "zstd") return pipeline(packed, new DecompressStream(), written);
  const web = Readable.toWeb(packed) as unknown as ReadableStream<Uint8Array>;
  return pipeline(Readable.fromWeb(new xz.XzReadableStream(web) as unknown as WebReadableStream<Uint8Array>), written);
}
