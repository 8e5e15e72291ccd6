// Which mechanism put these bytes in a decode page that differs from what
// prefill stored for the same (room, layer, pos)? Each mechanism the incidents
// know is a hypothesis tested against the bytes; the first that reproduces
// them exactly is the diagnosis, else none does (issue 15):
//   quantization  the values are prefill's bf16 rows requantized to fp8
//                 (precision, not corruption);
//   stale         the bytes equal another room's page, a previous owner's first;
//   scale-only    the fp8 data rows are right, the scale region is not;
//   torn          a prefix of rows (or of bytes) is the room's, the rest a
//                 previous owner's or never written (zeros);
//   layout        prefill's page in its dtype's layout laid into a page of the
//                 other dtype (8,448 vs 16,384 B: scales where data should be),
//                 or, both sides fp8, prefill's rows laid token after token
//                 (132 B: data then scale, the bf16 page's row layout);
//   item-length   the transfer addressed the destination with the sender's
//                 item length (132 vs 256 B/token rows: docs/hicache-indexk.md §2.4,
//                 `_send_kvcache_generic` uses the sender's item_len for both sides),
//                 or with the main KV's (one page of the KV buffer, §2.4 kv_item_lens).
// Pure: pages in, a verdict out.

import { FP8_MAX } from "../model/fp8.js";
import { INDEX_HEAD_DIM, INDEX_K_PAGE_TOKENS, pageBytes, rowBytes, storeAddress } from "../model/indexK.js";
import { genericSendBlocks } from "../model/sizing.js";
import { requantizedPage } from "./requantize.js";
import { bytesEqual, decodeRow, differingRows, hasPageSize, rangesEqual, rowRanges, type ByteRange, type PageImage } from "./pageImage.js";

export const MECHANISMS = ["quantization", "stale", "scale-only", "torn", "layout", "item-length"] as const;
export type Mechanism = (typeof MECHANISMS)[number];

/** A page of another room (or of nobody: zeros) the decode page may hold. */
export interface OtherPage extends PageImage {
  room: string | null;
  /** Where it comes from, for the explanation: "decode page 17 before", "prefill pos 2". */
  label: string;
  /** Its room owned the decode page before this room. */
  previousOwner: boolean;
}

/** Prefill's page of the room at `pos`, and the decode page that pos was given. */
export interface RoomPage extends PageImage {
  pos: number;
  /** Its page in prefill's pool, and the decode page its pos was given. */
  page: number;
  decodePage: number | undefined;
}

export interface PageCase {
  room: string;
  decode: PageImage & { page: number; pos: number };
  prefill: PageImage;
  /** Candidates for what the page held before: previous owners first. */
  others: readonly OtherPage[];
  /** The room's prefill pages (every dumped pos of this layer), for the transfer's addressing. */
  roomPages: readonly RoomPage[];
  /** Every dumped prefill page of the sending pool (this buffer and layer, any room), by pool page: what a misaddressed block reads. */
  senderPages?: ReadonlyMap<number, { bytes: Uint8Array; pos: number; room: string }>;
  /**
   * Item lengths of the room's main KV: the length of a dumped page of its
   * other buffer (one KV page, kv_item_lens = kv_buffer[i][0].nbytes ×
   * page_size: docs/hicache-indexk.md §2.4).
   */
  mainKvItemLens?: readonly number[];
}

export interface Diagnosis {
  mechanism: Mechanism | "none";
  /** False for quantization: the difference is precision, not corruption. */
  corruption: boolean;
  /** One sentence on what reproduces the bytes. */
  detail: string;
  /** Byte ranges of the decode page the diagnosis is about (the differing or the old part). */
  ranges: ByteRange[];
  /** Token rows that differ from prefill's. */
  rows: number[];
  /** The room whose data the page holds, for stale and torn. */
  sourceRoom?: string | null;
  /** The first row (or byte) that is not the room's, for torn. */
  tornAt?: { row: number; byte: number };
  /** Other mechanisms that reproduce the bytes as exactly. */
  alsoReproducedBy: Mechanism[];
}

type Test = (c: PageCase) => Omit<Diagnosis, "rows" | "alsoReproducedBy" | "corruption"> | undefined;

const TESTS: Record<Mechanism, Test> = {
  quantization: quantization,
  stale: stale,
  "scale-only": scaleOnly,
  torn: torn,
  layout: layout,
  "item-length": itemLength,
};

/** Undefined when the decode page equals prefill's. */
export function diagnose(c: PageCase): Diagnosis | undefined {
  if (c.decode.dtype === c.prefill.dtype && bytesEqual(c.decode.bytes, c.prefill.bytes)) return undefined;
  const rows = c.decode.dtype === c.prefill.dtype && hasPageSize(c.decode) && hasPageSize(c.prefill) ? differingRows(c.decode, c.prefill) : allRows();
  let found: Diagnosis | undefined;
  for (const m of MECHANISMS) {
    const hit = TESTS[m](c);
    if (!hit) continue;
    if (found) found.alsoReproducedBy.push(m);
    else found = { ...hit, corruption: m !== "quantization", rows, alsoReproducedBy: [] };
  }
  return (
    found ?? {
      mechanism: "none",
      corruption: true,
      detail: "no known mechanism reproduces these bytes (not another room's page, not a torn prefix, not another layout or item length, not a requantization)",
      ranges: [{ start: 0, end: c.decode.bytes.length }],
      rows,
      alsoReproducedBy: [],
    }
  );
}

function allRows(): number[] {
  return Array.from({ length: INDEX_K_PAGE_TOKENS }, (_, i) => i);
}

/** fp8 values within half an e4m3 step of the bf16 source (3 mantissa bits: 2^-4 relative; subnormals 2^-10 × scale). */
function quantization(c: PageCase): ReturnType<Test> {
  const { decode, prefill } = c;
  if (decode.dtype !== "fp8" || prefill.dtype !== "bf16" || !hasPageSize(decode) || !hasPageSize(prefill)) return undefined;
  const exact = bytesEqual(decode.bytes, requantizedPage(prefill.bytes));
  if (!exact) {
    const d = new Float32Array(INDEX_HEAD_DIM);
    const s = new Float32Array(INDEX_HEAD_DIM);
    for (let r = 0; r < INDEX_K_PAGE_TOKENS; r++) {
      decodeRow(decode, r, d);
      decodeRow(prefill, r, s);
      let amax = 0;
      for (const v of s) amax = Math.max(amax, Math.abs(v));
      const scale = amax / FP8_MAX;
      for (let i = 0; i < INDEX_HEAD_DIM; i++) if (!(Math.abs(d[i]! - s[i]!) <= Math.abs(s[i]!) / 16 + scale / 1024 + 1e-30)) return undefined;
    }
  }
  return {
    mechanism: "quantization",
    detail: exact
      ? "the fp8 page is prefill's bf16 rows requantized (amax/448 per row, round to nearest even) byte for byte"
      : "every fp8 value, times its row's scale, is within half an e4m3 step of prefill's bf16 value: requantization, not corruption",
    ranges: [],
  };
}

function stale(c: PageCase): ReturnType<Test> {
  const hit = c.others.find((o) => o.room !== null && o.room !== c.room && o.dtype === c.decode.dtype && bytesEqual(c.decode.bytes, o.bytes));
  if (!hit) return undefined;
  return {
    mechanism: "stale",
    detail: `the page is byte for byte room ${hit.room}'s (${hit.label})${hit.previousOwner ? `, a previous owner of decode page ${c.decode.page}` : ""}`,
    ranges: [{ start: 0, end: c.decode.bytes.length }],
    sourceRoom: hit.room,
  };
}

const FP8_DATA = INDEX_K_PAGE_TOKENS * INDEX_HEAD_DIM;

function scaleOnly(c: PageCase): ReturnType<Test> {
  const { decode, prefill } = c;
  if (decode.dtype !== "fp8" || prefill.dtype !== "fp8" || !hasPageSize(decode) || !hasPageSize(prefill)) return undefined;
  if (!bytesEqual(decode.bytes, prefill.bytes, 0, FP8_DATA)) return undefined;
  const from = c.others.find((o) => o.dtype === "fp8" && hasPageSize(o) && bytesEqual(decode.bytes, o.bytes, FP8_DATA, pageBytes("fp8")));
  const whose = from ? `: they are ${from.room === null ? "never written (zeros)" : `room ${from.room}'s (${from.label})`}` : ", and match no page known";
  return {
    mechanism: "scale-only",
    detail: `the 64 data rows (bytes 0..${FP8_DATA}) are prefill's; the scale region (bytes ${FP8_DATA}..${pageBytes("fp8")}) is not${whose}`,
    ranges: [{ start: FP8_DATA, end: pageBytes("fp8") }],
    ...(from && { sourceRoom: from.room }),
  };
}

/** Rows [0, k) the room's and rows [k, 64) another page's (per token: data and scale), or bytes [0, b) and [b, end). */
function torn(c: PageCase): ReturnType<Test> {
  const { decode, prefill } = c;
  if (decode.dtype !== prefill.dtype || !hasPageSize(decode) || !hasPageSize(prefill)) return undefined;
  let k = 0;
  while (k < INDEX_K_PAGE_TOKENS && rangesEqual(decode.bytes, prefill.bytes, rowRanges(k, decode.dtype))) k++;
  let b = 0;
  while (b < decode.bytes.length && decode.bytes[b] === prefill.bytes[b]) b++;
  for (const o of c.others) {
    if (o.dtype !== decode.dtype || !hasPageSize(o)) continue;
    const whose = o.room === null ? "never written (zeros)" : `room ${o.room}'s (${o.label})`;
    if (k > 0 && rowsFrom(decode, o, k)) {
      return {
        mechanism: "torn",
        detail: `torn at row ${k}: rows 0..${k - 1} are the room's, rows ${k}..63 are ${whose}`,
        ranges: rowsRanges(k, decode.dtype),
        sourceRoom: o.room,
        tornAt: { row: k, byte: storeAddress(k, decode.dtype).k },
      };
    }
    if (b > 0 && bytesEqual(decode.bytes, o.bytes, b)) {
      const row = b < FP8_DATA || decode.dtype === "bf16" ? Math.floor(b / (decode.dtype === "fp8" ? INDEX_HEAD_DIM : INDEX_HEAD_DIM * 2)) : Math.floor((b - FP8_DATA) / 4);
      return {
        mechanism: "torn",
        detail: `torn at byte ${b} (row ${row}${decode.dtype === "fp8" && b >= FP8_DATA ? "'s scale" : ""}): bytes 0..${b} are the room's, bytes ${b}..${decode.bytes.length} are ${whose}`,
        ranges: [{ start: b, end: decode.bytes.length }],
        sourceRoom: o.room,
        tornAt: { row, byte: b },
      };
    }
  }
  return undefined;
}

function rowsFrom(p: PageImage, o: PageImage, k: number): boolean {
  for (let r = k; r < INDEX_K_PAGE_TOKENS; r++) if (!rangesEqual(p.bytes, o.bytes, rowRanges(r, p.dtype))) return false;
  return true;
}

function rowsRanges(k: number, dtype: PageImage["dtype"]): ByteRange[] {
  const first = storeAddress(k, dtype);
  const end = pageBytes(dtype);
  if (first.scale === null) return [{ start: first.k, end }];
  return [{ start: first.k, end: FP8_DATA }, { start: first.scale, end }];
}

/**
 * Prefill's page (its dtype's size and layout) at the start of a decode page
 * of the other dtype; or, both sides fp8, prefill's rows laid out one token
 * after another as the bf16 page lays its rows (token r's 128 data bytes,
 * then its 4-byte scale, at r × 132) instead of the store kernel's all data,
 * then all scales (docs/hicache-indexk.md §2.1, §2.2).
 */
function layout(c: PageCase): ReturnType<Test> {
  const { decode, prefill } = c;
  if (!hasPageSize(decode) || !hasPageSize(prefill)) return undefined;
  if (decode.dtype === prefill.dtype) return decode.dtype === "fp8" ? tokenRowLayout(decode.bytes, prefill.bytes) : undefined;
  const n = Math.min(decode.bytes.length, prefill.bytes.length);
  if (!bytesEqual(decode.bytes, prefill.bytes, 0, n)) return undefined;
  const what =
    prefill.dtype === "fp8"
      ? `prefill's fp8 page (all data, then scales at bytes ${FP8_DATA}..${n}) fills the first ${n} B of a ${decode.bytes.length}-B bf16 page: bf16 row 32 begins with fp8 scales`
      : `the first ${n} B of prefill's bf16 page fill the ${n}-B fp8 page: bytes ${FP8_DATA}..${n}, the scale region, hold bf16 row 32's values`;
  return { mechanism: "layout", detail: what, ranges: [{ start: FP8_DATA, end: n }] };
}

/** Both fp8: the decode page is prefill's rows token after token (132 B each: data, then scale). */
function tokenRowLayout(decode: Uint8Array, prefill: Uint8Array): ReturnType<Test> {
  const row = rowBytes("fp8");
  for (let r = 0; r < INDEX_K_PAGE_TOKENS; r++) {
    const a = storeAddress(r, "fp8");
    const at = r * row;
    if (!bytesEqual(decode.subarray(at, at + INDEX_HEAD_DIM), prefill.subarray(a.k, a.k + INDEX_HEAD_DIM))) return undefined;
    if (!bytesEqual(decode.subarray(at + INDEX_HEAD_DIM, at + row), prefill.subarray(a.scale!, a.scale! + 4))) return undefined;
  }
  return {
    mechanism: "layout",
    detail:
      `both sides are fp8, but the decode page holds prefill's 64 rows token after token (row r's 128 data bytes, then its 4-byte scale, at r × ${row}: ` +
      `the row layout of a bf16 page) instead of the store kernel's all data (bytes 0..${FP8_DATA}), then all scales: bytes ${INDEX_HEAD_DIM}..${row} hold row 0's scale where row 1's data should be`,
    ranges: [{ start: INDEX_HEAD_DIM, end: pageBytes("fp8") }],
  };
}

/**
 * The transfer's blocks as `_send_kvcache_generic` forms them (sizing.ts
 * genericSendBlocks: src and dst offsets both index × one item length),
 * copied from the sender's index-K buffer into the receiver's, whose pages are
 * its own size: the decode page is then a splice of prefill pages at shifted
 * offsets. The item length is the sender's index-K page (8,448 vs 16,384 B
 * when the dtypes differ) or the main KV's (the state buffer addressed with
 * the KV buffer's item_len). Every byte a block puts in the decode page must
 * come from a dumped prefill page and match; at least one must.
 */
function itemLength(c: PageCase): ReturnType<Test> {
  const recv = c.decode.bytes.length;
  const sent = c.roomPages.filter((p) => p.decodePage !== undefined).sort((a, b) => a.page - b.page);
  if (sent.length === 0) return undefined;
  const send = sent[0]!.bytes.length;
  const candidates: [number, string][] = [];
  if (send !== recv) candidates.push([send, `prefill's ${send}-B item length`]);
  for (const kv of new Set(c.mainKvItemLens ?? [])) {
    if (kv !== send && kv !== recv) candidates.push([kv, `the main KV's ${kv}-B item length (one page of the KV buffer, docs/hicache-indexk.md §2.4)`]);
  }
  for (const [itemLen, what] of candidates) {
    const hit = splice(c, sent.filter((p) => p.bytes.length === send), send, itemLen);
    if (hit) {
      return {
        mechanism: "item-length",
        detail: `the transfer addressed decode's ${recv}-B pages with ${what} (dst = page × ${itemLen}): ${hit.pieces.join("; ")}`,
        ranges: hit.ranges,
      };
    }
  }
  return undefined;
}

/** The decode page as the blocks of item length `itemLen` leave it, checked against the dumped sender pages. */
function splice(c: PageCase, sent: readonly RoomPage[], send: number, itemLen: number): { pieces: string[]; ranges: ByteRange[] } | undefined {
  const recv = c.decode.bytes.length;
  const senderPage = new Map<number, { bytes: Uint8Array; pos: number; room: string }>(c.senderPages ?? []);
  for (const p of sent) senderPage.set(p.page, { bytes: p.bytes, pos: p.pos, room: c.room });
  const base = c.decode.page * recv;
  const pieces: string[] = [];
  const ranges: ByteRange[] = [];
  for (const b of genericSendBlocks(0, 0, itemLen, sent.map((p) => p.page), sent.map((p) => p.decodePage!))) {
    for (let at = Math.max(b.dst, base); at < Math.min(b.dst + b.len, base + recv); ) {
      const srcAt = b.src + (at - b.dst);
      const page = senderPage.get(Math.floor(srcAt / send));
      if (!page || page.bytes.length !== send) return undefined;
      const end = Math.min(b.dst + b.len, base + recv, at + (send - (srcAt % send)));
      const src = page.bytes.subarray(srcAt % send, srcAt % send + (end - at));
      if (Buffer.compare(src, c.decode.bytes.subarray(at - base, end - base)) !== 0) return undefined;
      ranges.push({ start: at - base, end: end - base });
      const from = `${srcAt % send}..${srcAt % send + (end - at)}`;
      const source = page.room === c.room ? `prefill pos ${page.pos}'s bytes ${from}` : `bytes ${from} of room ${page.room}'s prefill page ${Math.floor(srcAt / send)} (pos ${page.pos})`;
      pieces.push(`bytes ${at - base}..${end - base} are ${source}`);
      at = end;
    }
  }
  return ranges.length === 0 ? undefined : { pieces, ranges };
}
