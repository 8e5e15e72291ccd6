// FP8 E4M3FN (1 sign, 4 exponent bits with bias 7, 3 mantissa bits, no
// infinities, NaN = S.1111.111) and the index-K per-row quantization
// (docs/hicache-indexk.md §2.1: 128 fp8 values + one fp32 scale per row).

/** Largest finite E4M3FN magnitude: 1.75 × 2^8. */
export const FP8_MAX = 448;
export const FP8_NAN = 0x7f;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Round half to even for a non-negative double that holds its value exactly. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * fp32 → E4M3FN byte: round to nearest even; finite values (and infinities)
 * beyond ±448 saturate to ±448 (0x7E / 0xFE), as the CUDA SATFINITE conversion
 * does; NaN → 0x7F. [inference] PyTorch's plain `.to(float8_e4m3fn)` maps
 * |x| ≥ 480 to NaN instead; the indexer's values are already scaled into
 * ±448, so the two agree on every value a correct store writes.
 */
export function fp8Encode(value: number): number {
  f32[0] = value;
  const bits = u32[0]!;
  const sign = (bits >>> 24) & 0x80;
  const absBits = bits & 0x7fffffff;
  if (absBits > 0x7f800000) return FP8_NAN;
  if (absBits === 0x7f800000) return sign | 0x7e;
  const exp = (absBits >>> 23) - 127;
  if (exp < -6) {
    // Subnormal range: multiples of 2^-9; 8 × 2^-9 rounds up into 0x08, the smallest normal.
    f32[0] = value < 0 ? -value : value;
    const q = roundHalfEven(f32[0]! * 512);
    return sign | q;
  }
  let e = exp;
  let m = (absBits >>> 20) & 7;
  const rest = absBits & 0xfffff;
  if (rest > 0x80000 || (rest === 0x80000 && (m & 1) === 1)) {
    m++;
    if (m === 8) {
      m = 0;
      e++;
    }
  }
  if (e > 8 || (e === 8 && m === 7)) return sign | 0x7e;
  return sign | ((e + 7) << 3) | m;
}

export function fp8Decode(byte: number): number {
  const sign = byte & 0x80 ? -1 : 1;
  const e = (byte >>> 3) & 0xf;
  const m = byte & 7;
  if (e === 15 && m === 7) return NaN;
  if (e === 0) return sign * m * 2 ** -9;
  return sign * (1 + m / 8) * 2 ** (e - 7);
}

/**
 * [unverified] The reference fixes the row format (128 fp8 + one fp32 scale)
 * but not the scale formula. This follows the usual per-block recipe: scale =
 * amax / 448 in fp32 (amax floored at 1e-4 so an all-zero row gets a finite
 * scale), each value stored as fp8(x / scale).
 */
export const SCALE_FLOOR = 1e-4;

export interface QuantizedRow {
  bytes: Uint8Array;
  scale: number;
}

export function quantizeRow(values: ArrayLike<number>, out: Uint8Array = new Uint8Array(values.length)): QuantizedRow {
  let amax = 0;
  for (let i = 0; i < values.length; i++) {
    const a = Math.abs(values[i]!);
    if (a > amax) amax = a;
  }
  const scale = Math.fround(Math.max(Math.fround(amax), SCALE_FLOOR) / FP8_MAX);
  for (let i = 0; i < values.length; i++) out[i] = fp8Encode(Math.fround(values[i]! / scale));
  return { bytes: out, scale };
}

export function dequantizeRow(bytes: ArrayLike<number>, scale: number, out = new Float32Array(bytes.length)): Float32Array {
  for (let i = 0; i < bytes.length; i++) out[i] = fp8Decode(bytes[i]!) * scale;
  return out;
}
