// The codec of the store, measured (bench:store): zstd (zstd-napi) at two
// levels against what Node ships (zlib's deflate, brotli), on the event
// blocks the benchmark just wrote (decompressed back to their encoded form)
// and on a sample of real log text. Ratio = compressed / raw.

import Database from "better-sqlite3";
import { brotliCompressSync, brotliDecompressSync, constants, deflateSync, inflateSync } from "node:zlib";
import { compress as zstd, decompress as unzstd } from "zstd-napi";
import { decompress } from "../store/codec.js";

interface Codec {
  name: string;
  pack: (b: Uint8Array) => Uint8Array;
  unpack: (b: Uint8Array) => Uint8Array;
}

const CODECS: Codec[] = [
  { name: "zstd -1", pack: (b) => zstd(b, { compressionLevel: 1 }), unpack: (b) => unzstd(b) },
  { name: "zstd -3 (used)", pack: (b) => zstd(b, { compressionLevel: 3 }), unpack: (b) => unzstd(b) },
  { name: "deflate -1", pack: (b) => deflateSync(b, { level: 1 }), unpack: (b) => inflateSync(b) },
  { name: "deflate -6", pack: (b) => deflateSync(b, { level: 6 }), unpack: (b) => inflateSync(b) },
  {
    name: "brotli -3",
    pack: (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } }),
    unpack: (b) => brotliDecompressSync(b),
  },
];

const SAMPLE_LINE =
  "[2026-08-20 10:15:32.104 DP0 TP3] Decode batch, #running-req: 57, #token: 181234, token usage: 0.43, pre-allocated usage: 0.06, #prealloc-req: 3, #transfer-req: 12, #retracted-req: 0, cuda graph: True, gen throughput (token/s): 3712.55, #queue-req: 0\n";

function logSample(blocks: number): Uint8Array[] {
  return Array.from({ length: blocks }, (_, b) => {
    let s = "";
    for (let i = 0; i < 128; i++) s += SAMPLE_LINE.replace("181234", String(181234 + b * 128 + i)).replace("57,", `${(b + i) % 80},`);
    return Buffer.from(s);
  });
}

function measure(label: string, inputs: Uint8Array[]): void {
  const raw = inputs.reduce((n, b) => n + b.byteLength, 0);
  console.log(`  ${label}: ${inputs.length} blocks, ${(raw / 1e6).toFixed(1)} MB raw`);
  for (const c of CODECS) {
    let t = performance.now();
    const packed = inputs.map(c.pack);
    const packMs = performance.now() - t;
    t = performance.now();
    for (const p of packed) c.unpack(p);
    const unpackMs = performance.now() - t;
    const size = packed.reduce((n, b) => n + b.byteLength, 0);
    console.log(
      `    ${c.name.padEnd(15)} ratio ${((100 * size) / raw).toFixed(1).padStart(5)}%  compress ${(raw / 1e3 / packMs).toFixed(0).padStart(5)} MB/s  decompress ${(raw / 1e3 / unpackMs).toFixed(0).padStart(5)} MB/s`,
    );
  }
}

/** Prints each codec's ratio and speeds on the blocks of the incident at `path`. */
export function compareCodecs(path: string): void {
  const db = new Database(path, { readonly: true });
  const blocks = (db.prepare("SELECT data FROM event_block_data ORDER BY block LIMIT 200").pluck().all() as Buffer[]).map((b) => decompress(b));
  db.close();
  console.log("codec (wall, one thread):");
  measure("event blocks as encoded", blocks);
  measure("log text (batch lines)", logSample(400));
}
