// One record of a page-dump index (docs/evidence.md §4a): which page of which
// room, on which side, and where its raw bytes lie. The index is JSONL; the
// bytes are in a `.bin`, `.npy` or `.safetensors` file beside it.
//
//   {"ts": 1764421512.5, "host": "d0", "role": "decode", "tp": 0, "side": "decode_recv",
//    "room": "8972542885242963296", "buffer": "index_k", "layer": 0, "page": 17, "pos": 0,
//    "dtype": "fp8", "layout": "data_then_scales", "file": "pages-tp0.bin", "offset": 0,
//    "length": 8448, "algo": "crc32", "checksum": "9a0c33e1"}
//
// `page` is the page index in the dumping side's own pool, `pos` the page's
// position in the room's sequence (as in checksum dumps); `offset` counts from
// the start of a `.bin` file, from the start of the array data of a `.npy`,
// and from the start of the named `tensor` (or of the data section) of a
// `.safetensors` file.

import { z } from "zod";
import type { IndexKDtype } from "../../../domain/vocabulary.js";


export const PAGE_SIDES = ["prefill_store", "decode_recv", "decode_read"] as const;
export type PageSide = (typeof PAGE_SIDES)[number];

/**
 * The page's byte layout (docs/hicache-indexk.md §2.1): fp8 pages hold all 64
 * rows' data, then all 64 fp32 scales (8,448 B); bf16 pages 64 rows of 256 B
 * (16,384 B). A dump states it when it differs from its dtype's own.
 */
export const PAGE_LAYOUTS = ["data_then_scales", "rows"] as const;
export type PageLayout = (typeof PAGE_LAYOUTS)[number];

export function layoutOf(dtype: IndexKDtype): PageLayout {
  return dtype === "fp8" ? "data_then_scales" : "rows";
}

const nonNegativeInt = z.coerce.number().int().nonnegative();

/** The fields an index record must carry, with their types; other fields are kept as they are. */
export const pageDumpRecordSchema = z.object({
  side: z.enum(PAGE_SIDES),
  buffer: z.string().min(1),
  layer: nonNegativeInt,
  page: nonNegativeInt,
  pos: nonNegativeInt,
  dtype: z.enum(["fp8", "bf16"]),
  layout: z.enum(PAGE_LAYOUTS).optional(),
  file: z.string().min(1),
  offset: nonNegativeInt,
  length: z.coerce.number().int().positive(),
  tensor: z.string().min(1).optional(),
  algo: z.enum(["crc32", "xxh64"]).optional(),
  checksum: z.string().regex(/^(0x)?[0-9a-fA-F]+$/).optional(),
});
export type PageDumpFields = z.infer<typeof pageDumpRecordSchema>;

/** An index record's fields as the `page.dump` event keeps them in attrs. */
export interface PageDumpAttrs {
  side: PageSide;
  buffer: string;
  pos: number;
  dtype: IndexKDtype;
  layout: PageLayout;
  file: string;
  offset: number;
  length: number;
  tensor?: string;
  algo?: "crc32" | "xxh64";
  checksum?: string;
}

export function pageDumpAttrs(f: PageDumpFields): PageDumpAttrs {
  return {
    side: f.side,
    buffer: f.buffer,
    pos: f.pos,
    dtype: f.dtype,
    layout: f.layout ?? layoutOf(f.dtype),
    file: f.file,
    offset: f.offset,
    length: f.length,
    ...(f.tensor !== undefined && { tensor: f.tensor }),
    ...checksumOf(f),
  };
}

/** A checksum without `algo` is read by its width: 8 hex digits crc32, 16 xxh64 (checksum.ts). */
function checksumOf(f: PageDumpFields): Pick<PageDumpAttrs, "algo" | "checksum"> {
  if (f.checksum === undefined) return {};
  const checksum = f.checksum.toLowerCase().replace(/^0x/, "");
  const algo = f.algo ?? (checksum.length <= 8 ? "crc32" : "xxh64");
  return { algo, checksum };
}
