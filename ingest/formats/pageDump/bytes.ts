// The raw bytes a page-dump index points to (./record.ts), in the three forms
// PyTorch users write them (docs/evidence.md §4a):
//   .bin          `tensor.cpu().numpy().tofile(f)`: the bytes alone;
//   .npy          `numpy.save`: a header, then the array data (read by npyjs);
//   .safetensors  an 8-byte little-endian header length, a JSON header naming
//                 each tensor's `data_offsets` within the data section, then
//                 the data (the format's own specification; no npm reader of it
//                 is kept up, and the header is all this needs).
// Each file is told by its first bytes, not its name.

import { readFileSync } from "node:fs";
import { parse as parseNpy } from "npyjs";
import { z } from "zod";

export type DumpFileKind = "bin" | "npy" | "safetensors";

/** A dump file read whole, with where its page data lies. */
export interface DumpFile {
  kind: DumpFileKind;
  bytes: Uint8Array;
  /** Where offsets count from: the array data of a .npy, the data section of a .safetensors. */
  dataStart: number;
  /** safetensors: each tensor's [start, end) in the file. */
  tensors: Map<string, { start: number; end: number }>;
}

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

const safetensorsHeaderSchema = z.record(
  z.string(),
  z.union([z.object({ dtype: z.string(), shape: z.array(z.number()), data_offsets: z.tuple([z.number().int(), z.number().int()]) }), z.record(z.string(), z.string())]),
);

export function dumpFileKind(bytes: Uint8Array): DumpFileKind {
  if (NPY_MAGIC.every((b, i) => bytes[i] === b)) return "npy";
  if (bytes.length >= 9 && bytes[8] === 0x7b /* { */) {
    const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
    if (n > 1 && 8 + n <= bytes.length) return "safetensors";
  }
  return "bin";
}

/** Reads a dump file; throws with the file's name when its header is not what its first bytes promise. */
export function openDumpFile(path: string): DumpFile {
  const bytes = new Uint8Array(readFileSync(path));
  const kind = dumpFileKind(bytes);
  if (kind === "npy") return { kind, bytes, dataStart: npyDataStart(path, bytes), tensors: new Map() };
  if (kind === "safetensors") return safetensorsFile(path, bytes);
  return { kind, bytes, dataStart: 0, tensors: new Map() };
}

function npyDataStart(path: string, bytes: Uint8Array): number {
  let array;
  try {
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    array = parseNpy(copy, { convertFloat16: false });
  } catch (e) {
    throw new Error(`${path}: not a readable .npy (${(e as Error).message}); save pages as uint8 (tensor.view(torch.uint8))`);
  }
  if (!ArrayBuffer.isView(array.data)) throw new Error(`${path}: a .npy of ${array.dtype} holds no page bytes; save pages as uint8`);
  if (array.fortranOrder) throw new Error(`${path}: a Fortran-order .npy; save pages in C order (numpy.ascontiguousarray)`);
  return array.data.byteOffset;
}

function safetensorsFile(path: string, bytes: Uint8Array): DumpFile {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  let header;
  try {
    header = safetensorsHeaderSchema.parse(JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))));
  } catch (e) {
    throw new Error(`${path}: safetensors header (bytes 8..${8 + n}) is not valid: ${(e as Error).message}`);
  }
  const dataStart = 8 + n;
  const tensors = new Map<string, { start: number; end: number }>();
  for (const [name, t] of Object.entries(header)) {
    if (name === "__metadata__" || !("data_offsets" in t)) continue;
    const offsets = t.data_offsets as [number, number];
    tensors.set(name, { start: dataStart + offsets[0], end: dataStart + offsets[1] });
  }
  return { kind: "safetensors", bytes, dataStart, tensors };
}

export interface PageLocation {
  offset: number;
  length: number;
  tensor?: string;
}

/** One page's bytes (a view), or why they cannot be read: the message names the file and the offset. */
export function readPage(file: DumpFile, name: string, at: PageLocation): Uint8Array | string {
  let start = file.dataStart;
  let end = file.bytes.length;
  if (at.tensor !== undefined) {
    const t = file.tensors.get(at.tensor);
    if (!t) return `${name}: no tensor ${JSON.stringify(at.tensor)} in its safetensors header`;
    start = t.start;
    end = Math.min(t.end, end);
  }
  const from = start + at.offset;
  const to = from + at.length;
  if (to > end) {
    const have = Math.max(0, end - from);
    return `${name}: the page at offset ${at.offset} (${at.length} B) is cut: the ${at.tensor !== undefined ? `tensor ${at.tensor}` : "file"} ends ${have} B into it`;
  }
  return file.bytes.subarray(from, to);
}
