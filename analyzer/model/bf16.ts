// bfloat16: the upper 16 bits of an fp32 (1 sign, 8 exponent, 7 mantissa
// bits), as torch.bfloat16 stores it, little-endian. The bf16 index-K rows
// (docs/hicache-indexk.md §2.1) are 128 such values.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function bf16Decode(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}

/** fp32 → bf16 bits, rounding to nearest even as torch's conversion does; NaN stays a quiet NaN. */
export function bf16Encode(value: number): number {
  f32[0] = value;
  const bits = u32[0]!;
  if ((bits & 0x7fffffff) > 0x7f800000) return ((bits >>> 16) | 0x40) & 0xffff;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}
