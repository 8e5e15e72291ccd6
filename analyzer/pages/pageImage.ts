// A dumped page's bytes for people: the kernels' row addressing and decoding
// (../model/pageRows.ts), and bytes in hex. Pure.

export { bytesEqual, decodeRow, differingRows, hasPageSize, rangesEqual, rowRanges, rowScale, rowsOf, type ByteRange, type PageImage } from "../model/pageRows.js";

export function hex(bytes: Uint8Array, start: number, count: number): string {
  return Buffer.from(bytes.subarray(start, Math.min(bytes.length, start + count))).toString("hex").replace(/(..)(?!$)/g, "$1 ");
}
