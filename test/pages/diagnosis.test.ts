// The byte-level diagnosis on hand-made page pairs (issue 15): each page is
// built from explicit row values with the kernels' own addressing (the store
// kernel IndexKPool.store, quantizeRow, the transfer's genericSendBlocks),
// never with the diagnosis code; for each mechanism a pair it must name and a
// pair it must not.

import { test } from "node:test";
import assert from "node:assert/strict";
import { bf16Decode, bf16Encode } from "../../analyzer/model/bf16.js";
import { pageChecksum } from "../../analyzer/model/checksum.js";
import { fp8Encode, quantizeRow } from "../../analyzer/model/fp8.js";
import { IndexKPool } from "../../analyzer/model/indexK.js";
import { genericSendBlocks } from "../../analyzer/model/sizing.js";
import { replayPages, type DumpedPage } from "../../analyzer/pages/pairs.js";

const OLD = "8972542885242963296";
const NEW = "7301152698145511823";

/** Row r, column i of a room's index-K: a small fp8-exact value (multiples of 0.25 in ±4), distinct per seed. */
function value(seed: number, r: number, i: number): number {
  return (((r * 7 + i * 3 + seed * 5) % 33) - 16) * 0.25;
}

function scaleOf(seed: number, r: number): number {
  return Math.fround(0.001 * (seed + 1) * (r + 1));
}

/** An fp8 page of 64 rows: rows [from, to) of `seed`'s values stored by SetKAndS at locs page*64 + r. */
function storeFp8(pool: IndexKPool, page: number, seed: number, from = 0, to = 64, scaleSeed = seed): void {
  const n = to - from;
  const k = new Uint8Array(n * 128);
  const scales: number[] = [];
  for (let r = from; r < to; r++) {
    for (let i = 0; i < 128; i++) k[(r - from) * 128 + i] = fp8Encode(value(seed, r, i));
    scales.push(scaleOf(scaleSeed, r));
  }
  pool.store(0, Array.from({ length: n }, (_, j) => page * 64 + from + j), k, scales);
}

function fp8Page(seed: number): Uint8Array {
  const pool = new IndexKPool("fp8", 1);
  storeFp8(pool, 0, seed);
  return pool.page(0, 0).slice();
}

function bf16Page(seed: number): Uint8Array {
  const pool = new IndexKPool("bf16", 1);
  const k = new Uint8Array(64 * 256);
  const view = new DataView(k.buffer);
  for (let r = 0; r < 64; r++) for (let i = 0; i < 128; i++) view.setUint16(r * 256 + i * 2, bf16Encode(value(seed, r, i) * 1.37), true);
  pool.store(0, Array.from({ length: 64 }, (_, r) => r), k);
  return pool.page(0, 0).slice();
}

/** The fp8 page a requantizing store writes from a bf16 page's rows; `headroom` < 448 picks another scale than quantizeRow's. */
function quantizedFrom(bf16: Uint8Array, headroom?: number): Uint8Array {
  const pool = new IndexKPool("fp8", 1);
  const view = new DataView(bf16.buffer, bf16.byteOffset);
  const k = new Uint8Array(64 * 128);
  const scales: number[] = [];
  for (let r = 0; r < 64; r++) {
    const row = Array.from({ length: 128 }, (_, i) => bf16Decode(view.getUint16(r * 256 + i * 2, true)));
    if (headroom === undefined) {
      scales.push(quantizeRow(row, k.subarray(r * 128, (r + 1) * 128)).scale);
      continue;
    }
    const scale = Math.fround(Math.max(...row.map(Math.abs)) / headroom);
    row.forEach((x, i) => (k[r * 128 + i] = fp8Encode(x / scale)));
    scales.push(scale);
  }
  pool.store(0, Array.from({ length: 64 }, (_, r) => r), k, scales);
  return pool.page(0, 0).slice();
}

let seq = 0;
function dumped(room: string, side: string, page: number, pos: number, bytes: Uint8Array, dtype: "fp8" | "bf16" = "fp8"): DumpedPage<string> {
  seq++;
  return { seq, room, side, buffer: "index_k", layer: 0, page, pos, dtype, pool: side === "prefill_store" ? "p0|prefill/tp0" : "d0|decode/tp0", bytes, ref: `${room}/${side}/${pos}` };
}

/** The old room had decode page 40 first; the new room's pos 0 is decode page 40 next. */
function replayOf(decodeBytes: Uint8Array, extra: DumpedPage<string>[] = [], dtype: "fp8" | "bf16" = "fp8", prefillBytes = fp8Page(2), prefillDtype: "fp8" | "bf16" = "fp8") {
  const pages = [
    dumped(OLD, "prefill_store", 3, 0, fp8Page(1)),
    dumped(OLD, "decode_recv", 40, 0, fp8Page(1)),
    dumped(NEW, "prefill_store", 7, 0, prefillBytes, prefillDtype),
    ...extra,
    dumped(NEW, "decode_read", 40, 0, decodeBytes, dtype),
  ];
  const r = replayPages(pages);
  return r.pairs.find((p) => p.decode.room === NEW)!.diagnosis;
}

test("equal pages have no diagnosis; the old room's own pair matches", () => {
  const pages = [dumped(OLD, "prefill_store", 3, 0, fp8Page(1)), dumped(OLD, "decode_recv", 40, 0, fp8Page(1))];
  const r = replayPages(pages);
  assert.equal(r.pairs.length, 1);
  assert.equal(r.pairs[0]!.diagnosis, undefined);
});

test("stale: the decode page is the previous owner's page byte for byte; one byte off, it is not", () => {
  const d = replayOf(fp8Page(1))!;
  assert.equal(d.mechanism, "stale");
  assert.equal(d.sourceRoom, OLD);
  assert.ok(d.corruption);
  assert.match(d.detail, /previous owner of decode page 40/);
  const almost = fp8Page(1);
  almost[8447] ^= 1;
  assert.equal(replayOf(almost)!.mechanism, "none");
});

test("torn at row 37: rows 0..36 the new room's, 37..63 the old owner's; with rows of an unseen room, nothing", () => {
  const pool = new IndexKPool("fp8", 1);
  storeFp8(pool, 0, 2, 0, 37);
  storeFp8(pool, 0, 1, 37, 64);
  const d = replayOf(pool.page(0, 0).slice())!;
  assert.equal(d.mechanism, "torn");
  assert.deepEqual(d.tornAt, { row: 37, byte: 37 * 128 });
  assert.equal(d.sourceRoom, OLD);
  assert.deepEqual(d.rows, Array.from({ length: 27 }, (_, i) => 37 + i));
  assert.deepEqual(d.ranges, [{ start: 37 * 128, end: 8192 }, { start: 8192 + 37 * 4, end: 8448 }]);

  const foreign = new IndexKPool("fp8", 1);
  storeFp8(foreign, 0, 2, 0, 37);
  storeFp8(foreign, 0, 9, 37, 64);
  assert.equal(replayOf(foreign.page(0, 0).slice())!.mechanism, "none");
});

test("torn into never-written rows: the rest of the page is zeros", () => {
  const pool = new IndexKPool("fp8", 1);
  storeFp8(pool, 0, 2, 0, 12);
  const d = replayOf(pool.page(0, 0).slice())!;
  assert.equal(d.mechanism, "torn");
  assert.equal(d.tornAt!.row, 12);
  assert.equal(d.sourceRoom, null);
  assert.match(d.detail, /never written/);
});

test("torn at a byte: a transfer cut 5,000 bytes into the page leaves the old owner's bytes after it", () => {
  const page = fp8Page(1);
  page.set(fp8Page(2).subarray(0, 5000), 0);
  const d = replayOf(page)!;
  assert.equal(d.mechanism, "torn");
  assert.deepEqual(d.tornAt, { row: Math.floor(5000 / 128), byte: 5000 });
});

test("scale-only: data rows the new room's, the scale region the old owner's; data off too, not scale-only", () => {
  const pool = new IndexKPool("fp8", 1);
  storeFp8(pool, 0, 2, 0, 64, 1);
  const d = replayOf(pool.page(0, 0).slice())!;
  assert.equal(d.mechanism, "scale-only");
  assert.equal(d.sourceRoom, OLD);
  assert.deepEqual(d.ranges, [{ start: 8192, end: 8448 }]);
  const both = new IndexKPool("fp8", 1);
  storeFp8(both, 0, 3, 0, 64, 1);
  assert.notEqual(replayOf(both.page(0, 0).slice())!.mechanism, "scale-only");
});

test("layout: prefill's 8,448-B fp8 page at the start of a 16,384-B bf16 page; a bf16 page of other bytes is not", () => {
  const bf16 = new Uint8Array(16384);
  bf16.set(fp8Page(2), 0);
  const d = replayOf(bf16, [], "bf16")!;
  assert.equal(d.mechanism, "layout");
  assert.match(d.detail, /bf16 row 32 begins with fp8 scales/);
  assert.equal(replayOf(bf16Page(2), [], "bf16")!.mechanism, "none");
});

/** An fp8 page with `seed`'s rows laid token after token: row r's 128 fp8 bytes at r × 132, its fp32 scale right after them. */
function tokenRowsFp8(seed: number, scaleSeed = seed): Uint8Array {
  const page = new Uint8Array(8448);
  const view = new DataView(page.buffer);
  for (let r = 0; r < 64; r++) {
    for (let i = 0; i < 128; i++) page[r * 132 + i] = fp8Encode(value(seed, r, i));
    view.setFloat32(r * 132 + 128, scaleOf(scaleSeed, r), true);
  }
  return page;
}

test("layout, both sides fp8: prefill's rows laid token after token (132 B, data then scale); another room's rows or other scales so laid are not", () => {
  const d = replayOf(tokenRowsFp8(2))!;
  assert.equal(d.mechanism, "layout");
  assert.ok(d.corruption);
  assert.match(d.detail, /both sides are fp8.*token after token.*bytes 128\.\.132 hold row 0's scale where row 1's data should be/);
  assert.deepEqual(d.ranges, [{ start: 128, end: 8448 }]);
  assert.notEqual(replayOf(tokenRowsFp8(9))!.mechanism, "layout");
  assert.notEqual(replayOf(tokenRowsFp8(2, 3))!.mechanism, "layout");
  // The store kernel's own layout of the same rows is prefill's page: no diagnosis at all.
  assert.equal(replayOf(fp8Page(2)), undefined);
});

test("item-length: prefill's fp8 pages 5 and 6 sent with an 8,448-B item length into decode's bf16 pages 1 and 2", () => {
  const sender = new IndexKPool("fp8", 8);
  storeFp8(sender, 5, 2);
  storeFp8(sender, 6, 4);
  const receiver = new Uint8Array(4 * 16384);
  const src = sender.layer(0);
  for (const b of genericSendBlocks(0, 0, 8448, [5, 6], [1, 2])) receiver.set(src.subarray(b.src, b.src + b.len), b.dst);
  const pages = [
    dumped(NEW, "prefill_store", 5, 0, sender.page(0, 5).slice()),
    dumped(NEW, "prefill_store", 6, 1, sender.page(0, 6).slice()),
    dumped(NEW, "decode_recv", 1, 0, receiver.slice(16384, 32768), "bf16"),
    dumped(NEW, "decode_recv", 2, 1, receiver.slice(32768, 49152), "bf16"),
  ];
  const r = replayPages(pages);
  const first = r.pairs.find((p) => p.decode.pos === 0)!.diagnosis!;
  assert.equal(first.mechanism, "item-length");
  // Pos 0 lands at [8448, 16896), pos 1 at [16896, 25344); decode page 1 is [16384, 32768).
  assert.deepEqual(first.ranges, [{ start: 0, end: 512 }, { start: 512, end: 8960 }]);
  assert.match(first.detail, /bytes 0\.\.512 are prefill pos 0's bytes 7936\.\.8448; bytes 512\.\.8960 are prefill pos 1's bytes 0\.\.8448/);
  // Page 2 holds no sender byte at its right place: [32768, 49152) ∩ [16896, 25344) is empty, so nothing reproduces it.
  assert.equal(r.pairs.find((p) => p.decode.pos === 1)!.diagnosis!.mechanism, "none");
});

test("item-length, the main KV's: index-K sent with the KV buffer's 73,728-B item length (MLA 576 bf16 × 2 B × 64 tokens) reads prefill's pages 8 and 9 into decode page 0", () => {
  // Both sides fp8. The room's pos 0 is prefill page 1 and decode page 0; the state blocks use the KV's item length,
  // so decode bytes [0, 73728) are prefill's index-K bytes [73728, 147456): decode page 0 holds page 8 from byte 6144 on, then page 9.
  const KV_ITEM = (512 + 64) * 2 * 64;
  const sender = new IndexKPool("fp8", 20);
  storeFp8(sender, 1, 2);
  storeFp8(sender, 8, 6);
  storeFp8(sender, 9, 7);
  const receiver = new Uint8Array(20 * 8448);
  const src = sender.layer(0);
  for (const b of genericSendBlocks(0, 0, KV_ITEM, [1], [0])) receiver.set(src.subarray(b.src, b.src + b.len), b.dst);
  const OTHER = "6917529027641081857";
  const kvPage = { ...dumped(NEW, "prefill_store", 1, 0, new Uint8Array(KV_ITEM), "bf16"), buffer: "kv" };
  const pages = (page9: Uint8Array, withKv = true) => [
    dumped(NEW, "prefill_store", 1, 0, sender.page(0, 1).slice()),
    dumped(OTHER, "prefill_store", 8, 0, sender.page(0, 8).slice()),
    dumped(OTHER, "prefill_store", 9, 1, page9),
    ...(withKv ? [kvPage] : []),
    dumped(NEW, "decode_recv", 0, 0, receiver.slice(0, 8448)),
  ];
  const diagnosisOf = (list: DumpedPage<string>[]) => replayPages(list).pairs.find((p) => p.decode.room === NEW && p.decode.buffer === "index_k")!.diagnosis!;
  const d = diagnosisOf(pages(sender.page(0, 9).slice()));
  assert.equal(d.mechanism, "item-length");
  assert.deepEqual(d.ranges, [{ start: 0, end: 2304 }, { start: 2304, end: 8448 }]);
  assert.match(d.detail, /with the main KV's 73728-B item length .*: bytes 0\.\.2304 are bytes 6144\.\.8448 of room 6917529027641081857's prefill page 8 \(pos 0\); bytes 2304\.\.8448 are bytes 0\.\.6144 of room 6917529027641081857's prefill page 9/);
  // Not named: page 9 dumped with other bytes, or no page of the main KV to tell its item length.
  assert.notEqual(diagnosisOf(pages(fp8Page(9))).mechanism, "item-length");
  assert.notEqual(diagnosisOf(pages(sender.page(0, 9).slice(), false)).mechanism, "item-length");
});

test("quantization: a bf16 page requantized to fp8 is precision, not corruption; another room's requantized page is not", () => {
  const source = bf16Page(2);
  const d = replayOf(quantizedFrom(source), [], "fp8", source, "bf16")!;
  assert.equal(d.mechanism, "quantization");
  assert.equal(d.corruption, false);
  // Another scale recipe (amax/440): not the same bytes, every value still within half an e4m3 step.
  const near = replayOf(quantizedFrom(source, 440), [], "fp8", source, "bf16")!;
  assert.equal(near.mechanism, "quantization");
  assert.match(near.detail, /within half an e4m3 step/);
  const other = replayOf(quantizedFrom(bf16Page(5)), [], "fp8", source, "bf16")!;
  assert.notEqual(other.mechanism, "quantization");
  assert.ok(other.corruption);
});

test("a dump whose checksum disagrees with its bytes is reported; one that agrees is not", () => {
  const bytes = fp8Page(1);
  const good = { ...dumped(OLD, "prefill_store", 3, 0, bytes), checksum: { algo: "crc32" as const, value: pageChecksum(bytes, "crc32") } };
  const bad = { ...dumped(OLD, "decode_recv", 40, 0, bytes), checksum: { algo: "xxh64" as const, value: "0123456789abcdef" } };
  const r = replayPages([good, bad]);
  assert.equal(r.disagreements.length, 1);
  assert.equal(r.disagreements[0]!.page, bad);
  assert.equal(r.disagreements[0]!.recomputed, pageChecksum(bytes, "xxh64"));
});

test("bf16: 1.0 is 0x3f80, ties round to even, the decode is the upper half of an fp32", () => {
  assert.equal(bf16Encode(1.0), 0x3f80);
  assert.equal(bf16Encode(-2.0), 0xc000);
  // 1 + 2^-8 is halfway between 1.0 and 1 + 2^-7: to even (1.0); 1 + 3·2^-8 goes up to 1 + 2^-6.
  assert.equal(bf16Encode(1 + 2 ** -8), 0x3f80);
  assert.equal(bf16Encode(1 + 3 * 2 ** -8), 0x3f82);
  assert.equal(bf16Decode(0x3f80), 1);
  assert.equal(bf16Decode(0x4049), 3.140625);
  assert.ok(Number.isNaN(bf16Decode(bf16Encode(NaN))));
});
