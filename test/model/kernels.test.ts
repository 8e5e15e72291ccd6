// The index-K kernels and their latent risks against the reference's worked
// facts (docs/hicache-indexk.md §2.1–§2.4): addressing, fp8 e4m3fn,
// checksums, sizing, the int32 logits address and generic-send addressing.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  IndexKPool,
  checkPoolSizing,
  dequantizeRow,
  fp8Decode,
  fp8Encode,
  genericSendBlocks,
  groupConcurrentContiguous,
  isChecksumAlgo,
  logitsAddressCheck,
  misaddressedBlocks,
  normalizeHash,
  pageBytes,
  pageChecksum,
  poolPages,
  quantizeRow,
  rowBytes,
  storeAddress,
} from "../../analyzer/model/index.js";

test("store addressing: loc 130 is page 2, offset 2; K at 2*8448+256, scale at 2*8448+8192+8", () => {
  assert.deepEqual(storeAddress(130), { page: 2, off: 2, k: 2 * 8448 + 256, scale: 2 * 8448 + 8192 + 8 });
  assert.deepEqual(storeAddress(63), { page: 0, off: 63, k: 63 * 128, scale: 8192 + 63 * 4 });
  assert.deepEqual(storeAddress(130, "bf16"), { page: 2, off: 2, k: 2 * 16384 + 2 * 256, scale: null });
  assert.equal(rowBytes("fp8"), 132);
  assert.equal(rowBytes("bf16"), 256);
  assert.equal(pageBytes("fp8"), 8448);
  assert.equal(pageBytes("bf16"), 16384);
  // (index_buf_size + page_size + 1) // page_size
  assert.equal(poolPages(1000), Math.floor(1065 / 64));
});

test("fp8 e4m3fn encodes the reference values, rounds to nearest even and saturates at 448", () => {
  const cases: [number, number][] = [
    [1.0, 0x38],
    [448, 0x7e],
    [-448, 0xfe],
    [449, 0x7e],
    [1e6, 0x7e],
    [Infinity, 0x7e],
    [-Infinity, 0xfe],
    [-2.0, 0xc0],
    [0.5, 0x30],
    [2 ** -9, 0x01],
    [7 * 2 ** -9, 0x07],
    [2 ** -6, 0x08],
    [0, 0x00],
    [-0, 0x80],
    // 1 + 1/16 sits halfway between 1.0 (m=0) and 1.125 (m=1): ties go to the even mantissa.
    [1.0625, 0x38],
    // 1 + 3/16 sits halfway between 1.125 (m=1) and 1.25 (m=2): to even, m=2.
    [1.1875, 0x3a],
    // Half the smallest subnormal ties to 0; 1.5 × 2^-9 ties up to 2 × 2^-9.
    [2 ** -10, 0x00],
    [3 * 2 ** -10, 0x02],
    [1.5, 0x3c],
  ];
  for (const [v, byte] of cases) assert.equal(fp8Encode(v), byte, `fp8(${v})`);
  assert.equal(fp8Encode(NaN), 0x7f);
  assert.ok(Number.isNaN(fp8Decode(0x7f)));
  assert.ok(Number.isNaN(fp8Decode(0xff)));
  assert.equal(fp8Decode(0x7e), 448);
  assert.equal(fp8Decode(0x01), 2 ** -9);
  assert.equal(fp8Decode(0xc0), -2);
  for (let b = 0; b < 256; b++) {
    if ((b & 0x7f) === 0x7f) continue;
    assert.equal(fp8Encode(fp8Decode(b)), b === 0x80 ? 0x80 : b, `round trip of byte ${b}`);
  }
});

test("per-row quantization: scale = amax/448, values round-trip through the row", () => {
  const row = new Float32Array(128);
  row[0] = 896;
  row[1] = 3;
  row[2] = -1;
  row[3] = 0.25;
  const q = quantizeRow(row);
  assert.equal(q.scale, 2);
  assert.equal(q.bytes[0], 0x7e); // 896/2 = 448
  assert.equal(q.bytes[1], 0x3c); // 1.5
  assert.equal(q.bytes[2], 0xb0); // -0.5
  assert.equal(q.bytes[3], 0x20); // 0.125 = 2^-3
  assert.deepEqual([...dequantizeRow(q.bytes, q.scale).slice(0, 4)], [896, 3, -1, 0.25]);
});

/** Bitwise CRC-32 (IEEE 802.3, reflected 0xEDB88320), written here independently of the model. */
function crc32Bitwise(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

test("page checksums: crc32 and xxh64 in lowercase hex, on known vectors and a page", () => {
  const check = new TextEncoder().encode("123456789");
  assert.equal(crc32Bitwise(check), 0xcbf43926);
  assert.equal(pageChecksum(check, "crc32"), "cbf43926");
  assert.equal(pageChecksum(new TextEncoder().encode("abc"), "xxh64"), "44bc2cf5ad770999");
  assert.equal(pageChecksum(new Uint8Array(0), "xxh64"), "ef46db3751d8e999");
  assert.equal(pageChecksum(new Uint8Array(0), "crc32"), "00000000");
  assert.equal(normalizeHash(" 0xCBF43926 "), "cbf43926", "dumps may print 0x and upper case");
  assert.equal(isChecksumAlgo("xxh64"), true);
  assert.equal(isChecksumAlgo("md5"), false);

  const pool = new IndexKPool("fp8", 4);
  const page = pool.page(0, 1);
  for (let i = 0; i < page.length; i++) page[i] = (i * 31) & 0xff;
  assert.equal(pool.pageChecksum(0, 1, "crc32"), crc32Bitwise(page).toString(16).padStart(8, "0"));
  assert.equal(pool.pageChecksum(0, 1, "crc32").length, 8);
});

test("SetKAndS then GetK/GetS through a page table read back the stored row and scale", () => {
  const pool = new IndexKPool("fp8", 4, 2);
  const k = new Uint8Array(128).map((_, i) => i + 1);
  pool.store(1, [130], k, [0.5]);
  const buf = pool.layer(1);
  assert.deepEqual([...buf.subarray(2 * 8448 + 256, 2 * 8448 + 256 + 128)], [...k]);
  // fp32 0.5 little-endian is 00 00 00 3f
  assert.deepEqual([...buf.subarray(2 * 8448 + 8192 + 8, 2 * 8448 + 8192 + 12)], [0, 0, 0, 0x3f]);
  assert.equal(pool.layer(0).some((b) => b !== 0), false, "layer 0 untouched");
  // A request whose page table is [3, 2]: token 66 is page-table entry 1 (page 2), offset 2 = loc 130.
  const { k: got, s } = pool.getKAndS(1, [3, 2], 67);
  assert.deepEqual([...got.subarray(66 * 128, 67 * 128)], [...k]);
  assert.deepEqual([...s.subarray(66 * 4)], [0, 0, 0, 0x3f]);
  assert.deepEqual([...got.subarray(0, 128)], new Array(128).fill(0));
  assert.throws(() => pool.store(0, [4 * 64], k, [1]), /past the pool/);
});

test("pool sizing: a bf16 buffer sized at 132 B/token with an 8,448 B host stride is flagged twice; fp8 is not", () => {
  const found = checkPoolSizing({ dtype: "bf16", configuredBytesPerToken: 132, hostPageStride: 8448, layers: 61, tokens: 145_000 });
  assert.deepEqual(
    found.map((m) => [m.kind, m.required, m.configured]),
    [
      ["bytes-per-token", 256, 132],
      ["host-page-stride", 16384, 8448],
    ],
  );
  // 124 B/token/layer × 61 layers × 145,000 tokens ≈ 1.1 GB (DESIGN.md seed 5)
  assert.equal(found[0]!.overCommitBytes, 1_096_780_000);
  assert.deepEqual(checkPoolSizing({ dtype: "fp8", configuredBytesPerToken: 132, hostPageStride: 8448 }), []);
});

test("int32 logits address b * max_seq_len + t: 2048 rows fit 2^20 tokens exactly, one more overflows", () => {
  const fits = logitsAddressCheck(2048, 1_048_576);
  assert.equal(fits.maxAddress, 2 ** 31 - 1);
  assert.equal(fits.overflows, false);
  const over = logitsAddressCheck(2048, 1_048_577);
  assert.equal(over.overflows, true);
  assert.equal(over.maxAddress, 2048 * 1_048_577 - 1);
  assert.equal(over.wrapped, (2048 * 1_048_577 - 1) - 2 ** 32);
  assert.equal(over.firstOverflowingSeqLen, 1_048_577);
});

test("_send_kvcache_generic blocks: the reference's (1000+3*64, 2000+7*64, 2*64) and the item_len mismatch", () => {
  assert.deepEqual(genericSendBlocks(1000, 2000, 64, [3, 4], [7, 8]), [{ src: 1000 + 3 * 64, dst: 2000 + 7 * 64, len: 2 * 64 }]);
  assert.deepEqual(groupConcurrentContiguous([0, 1, 5], [10, 11, 12]), [
    [[0, 1], [5]],
    [[10, 11], [12]],
  ]);
  const bad = misaddressedBlocks(8448, 16384, [3, 4], [7, 8]);
  assert.deepEqual(bad, [{ sent: { src: 3 * 8448, dst: 7 * 8448, len: 2 * 8448 }, expected: { src: 3 * 8448, dst: 7 * 16384, len: 2 * 16384 } }]);
  assert.deepEqual(misaddressedBlocks(8448, 8448, [3, 4], [7, 8]), []);
});
