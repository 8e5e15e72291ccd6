// Page checksums as the instrumented runs dump them (DESIGN.md "Checksum
// dumps"): the algorithm named by the dump's `algo`, lowercase hex.

import CRC32 from "crc-32";
import { xxh64 } from "@node-rs/xxhash";

export type ChecksumAlgo = "crc32" | "xxh64";

export function isChecksumAlgo(algo: string): algo is ChecksumAlgo {
  return algo === "crc32" || algo === "xxh64";
}

/** crc32 (IEEE, as zlib) → 8 hex digits; xxh64 (seed 0) → 16 hex digits. */
export function pageChecksum(bytes: Uint8Array, algo: ChecksumAlgo): string {
  if (algo === "crc32") return (CRC32.buf(bytes) >>> 0).toString(16).padStart(8, "0");
  return xxh64(bytes).toString(16).padStart(16, "0");
}

/** Dumps may print hashes with a 0x prefix or in upper case; compare them in this form. */
export function normalizeHash(hash: string): string {
  const h = hash.trim().toLowerCase();
  return h.startsWith("0x") ? h.slice(2) : h;
}
