// A small excerpt of two pages for a finding or a terminal: one row's first
// bytes in hex and first values decoded (fp8 × scale, bf16), both sides.

import { storeAddress } from "../model/indexK.js";
import { decodeRow, hasPageSize, hex, rowScale, type PageImage } from "./pageImage.js";

const HEX_BYTES = 16;
const VALUES = 4;

export function rowExcerpt(p: PageImage, row: number): string {
  if (!hasPageSize(p)) return `${p.bytes.length} B (not a ${p.dtype} page): ${hex(p.bytes, 0, HEX_BYTES)}`;
  const a = storeAddress(row, p.dtype);
  const values = Array.from(decodeRow(p, row).subarray(0, VALUES), (v) => Number(v.toPrecision(4)));
  const scale = p.dtype === "fp8" ? ` scale ${Number(rowScale(p, row).toPrecision(6))} (bytes ${a.scale}..${a.scale! + 4}: ${hex(p.bytes, a.scale!, 4)})` : "";
  return `row ${row} bytes ${a.k}..: ${hex(p.bytes, a.k, HEX_BYTES)} … = [${values.join(", ")}, …]${scale}`;
}

/** The row both pages show first, decode and prefill side by side. */
export function pairExcerpt(decode: PageImage, prefill: PageImage, row: number): string {
  return `decode ${rowExcerpt(decode, row)}; prefill ${rowExcerpt(prefill, row)}`;
}
