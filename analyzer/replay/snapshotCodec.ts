// The byte form of a model snapshot. A snapshot (analyzer/model/snapshot.ts)
// is a tree of plain arrays of numbers and strings; an incident wedged with
// tens of thousands of live rooms holds millions of values in it, and v8's
// structured clone, value by value, would take most of a cold replay's time;
// so the tree is written as flat columns instead — a tag per value; an int32 for
// integers, lengths and string indexes; a float64 for other numbers (times in
// µs); the distinct strings — which encode and decode as typed-array passes,
// then compressed. A Float64Array in the tree (the model's room columns) is
// written into the float column as it is and read back as a view of it, with
// no value per number. The columns are reused from one snapshot to the next.
// The float column is stored as the difference of each value from the one
// before it (floatDeltas): the room columns hold seqs and times that climb
// room by room and repeat across a room's ranks, so their differences are
// small repeated numbers that compress far better than the values' own bytes.

import { Interner } from "../../store/blocks/interner.js";
import { compress, decompress } from "../../store/codec.js";

const T_INT = 0;
const T_STRING = 1;
const T_NULL = 2;
const T_TRUE = 3;
const T_FALSE = 4;
const T_ARRAY = 5;
const T_UNDEFINED = 6;
const T_MAP = 7;
const T_OBJECT = 8;
const T_BIGINT = 9;
const T_FLOAT = 10;
const T_FLOAT64_ARRAY = 11;

/** zstd level 1: a snapshot of a large live state is megabytes, and a cold replay writes many. */
const LEVEL = 1;

class Columns {
  tags = new Uint8Array(1 << 16);
  ints = new Int32Array(1 << 16);
  floats = new Float64Array(1 << 10);
  n = 0;
  nf = 0;
  readonly strings = new Interner();

  reset(): void {
    this.n = 0;
    this.nf = 0;
    this.strings.reset();
  }

  /** A value whose payload is an int32 (an integer, a length, a string's index). */
  push(tag: number, v: number): void {
    if (this.n === this.tags.length) this.grow();
    this.tags[this.n] = tag;
    this.ints[this.n++] = v;
  }

  number(v: number): void {
    if ((v | 0) === v && !Object.is(v, -0)) return this.push(T_INT, v);
    this.roomForFloats(1);
    this.floats[this.nf++] = v;
    this.push(T_FLOAT, 0);
  }

  float64Array(a: Float64Array): void {
    this.roomForFloats(a.length);
    this.floats.set(a, this.nf);
    this.nf += a.length;
    this.push(T_FLOAT64_ARRAY, a.length);
  }

  private roomForFloats(n: number): void {
    if (this.nf + n <= this.floats.length) return;
    let size = this.floats.length * 2;
    while (size < this.nf + n) size *= 2;
    const floats = new Float64Array(size);
    floats.set(this.floats.subarray(0, this.nf));
    this.floats = floats;
  }

  string(s: string): number {
    return this.strings.id(s);
  }

  private grow(): void {
    const tags = new Uint8Array(this.tags.length * 2);
    tags.set(this.tags);
    const ints = new Int32Array(this.ints.length * 2);
    ints.set(this.ints);
    this.tags = tags;
    this.ints = ints;
  }
}

/** One set of columns for every snapshot this process writes (a replay writes them one at a time). */
const scratch = new Columns();

function write(c: Columns, v: unknown): void {
  switch (typeof v) {
    case "number":
      return c.number(v);
    case "string":
      return c.push(T_STRING, c.string(v));
    case "boolean":
      return c.push(v ? T_TRUE : T_FALSE, 0);
    case "undefined":
      return c.push(T_UNDEFINED, 0);
    case "bigint":
      return c.push(T_BIGINT, c.string(v.toString()));
  }
  if (v === null) return c.push(T_NULL, 0);
  if (Array.isArray(v)) {
    c.push(T_ARRAY, v.length);
    for (let i = 0; i < v.length; i++) {
      // Most values are numbers in arrays: skip the dispatch for them.
      const x: unknown = v[i];
      if (typeof x === "number") c.number(x);
      else write(c, x);
    }
    return;
  }
  if (v instanceof Float64Array) return c.float64Array(v);
  if (v instanceof Map) {
    c.push(T_MAP, v.size);
    for (const [k, x] of v) (write(c, k), write(c, x));
    return;
  }
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const keys = Object.keys(v);
    c.push(T_OBJECT, keys.length);
    for (const k of keys) (c.push(T_STRING, c.string(k)), write(c, (v as Record<string, unknown>)[k]));
    return;
  }
  throw new Error(`snapshot: cannot encode a ${Object.prototype.toString.call(v)}`);
}

/** A model snapshot as compressed bytes: [n, floats, string bytes] u32, tags, ints, float deltas, their verbatim bits, strings (JSON). */
export function encodeSnapshot(state: unknown): Buffer {
  const c = scratch;
  c.reset();
  write(c, state);
  const strings = Buffer.from(JSON.stringify(c.strings.list), "utf8");
  const tagBytes = pad8(c.n);
  const intBytes = pad8(c.n * 4);
  const verbatimBytes = pad8(Math.ceil(c.nf / 8));
  // Not from the shared pool: the float deltas are written through a Float64Array view, which needs the buffer 8-aligned.
  const out = Buffer.allocUnsafeSlow(16 + tagBytes + intBytes + c.nf * 8 + verbatimBytes + strings.byteLength);
  // Padding is zeroed: unset, it held whatever memory the buffer reused, so equal states stored unequal bytes.
  out.fill(0, 0, 16);
  out.fill(0, 16 + c.n, 16 + tagBytes);
  out.fill(0, 16 + tagBytes + c.n * 4, 16 + tagBytes + intBytes);
  out.writeUInt32LE(c.n, 0);
  out.writeUInt32LE(c.nf, 4);
  out.writeUInt32LE(strings.byteLength, 8);
  let at = 16;
  out.set(c.tags.subarray(0, c.n), at);
  out.set(new Uint8Array(c.ints.buffer, 0, c.n * 4), (at += tagBytes));
  at += intBytes;
  const verbatim = new Uint8Array(out.buffer, out.byteOffset + at + c.nf * 8, verbatimBytes).fill(0);
  floatDeltas(c.floats, c.nf, new Float64Array(out.buffer, out.byteOffset + at, c.nf), verbatim);
  strings.copy(out, (at += c.nf * 8 + verbatimBytes));
  const packed = compress(out, LEVEL);
  return Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
}

function pad8(n: number): number {
  return n + ((8 - (n % 8)) % 8);
}

/**
 * `deltas[i]` is `values[i] - values[i - 1]` (the value before the first is
 * 0) wherever adding the previous value back gives `values[i]` exactly; where
 * it does not (a -0, a fraction the subtraction rounds, a value after an
 * infinity or a NaN) the value is kept as it is and its bit in `verbatim` set.
 */
function floatDeltas(values: Float64Array, n: number, deltas: Float64Array, verbatim: Uint8Array): void {
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const d = v - previous;
    if (Object.is(d + previous, v)) deltas[i] = d;
    else {
      deltas[i] = v;
      verbatim[i >> 3]! |= 1 << (i & 7);
    }
    previous = v;
  }
}

/** Undoes floatDeltas in place. */
function undoFloatDeltas(floats: Float64Array, verbatim: Uint8Array): void {
  let previous = 0;
  for (let i = 0; i < floats.length; i++) {
    const d = floats[i]!;
    const v = (verbatim[i >> 3]! >> (i & 7)) & 1 ? d : d + previous;
    floats[i] = v;
    previous = v;
  }
}

class Reader {
  at = 0;
  atFloat = 0;
  constructor(
    readonly tags: Uint8Array,
    readonly ints: Int32Array,
    readonly floats: Float64Array,
    readonly strings: string[],
  ) {}

  value(): unknown {
    const i = this.at++;
    const v = this.ints[i]!;
    switch (this.tags[i]) {
      case T_INT:
        return v;
      case T_FLOAT:
        return this.floats[this.atFloat++];
      case T_STRING:
        return this.strings[v];
      case T_NULL:
        return null;
      case T_TRUE:
        return true;
      case T_FALSE:
        return false;
      case T_UNDEFINED:
        return undefined;
      case T_BIGINT:
        return BigInt(this.strings[v]!);
      case T_FLOAT64_ARRAY: {
        const a = this.floats.subarray(this.atFloat, this.atFloat + v);
        this.atFloat += v;
        return a;
      }
      case T_ARRAY: {
        const a = new Array<unknown>(v);
        for (let k = 0; k < v; k++) a[k] = this.value();
        return a;
      }
      case T_MAP: {
        const m = new Map<unknown, unknown>();
        for (let k = 0; k < v; k++) m.set(this.value(), this.value());
        return m;
      }
      case T_OBJECT: {
        const o: Record<string, unknown> = {};
        for (let k = 0; k < v; k++) o[this.value() as string] = this.value();
        return o;
      }
      default:
        throw new Error(`snapshot: unknown value tag ${this.tags[i]} at ${i}`);
    }
  }
}

/** The snapshot encodeSnapshot wrote. */
export function decodeSnapshot(blob: Uint8Array): unknown {
  const raw = decompress(blob);
  // Typed-array views need their alignment: copy when the decompressed bytes lack it.
  const buf = raw.byteOffset % 8 === 0 ? raw : new Uint8Array(raw);
  const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const n = view.readUInt32LE(0);
  const nf = view.readUInt32LE(4);
  const stringBytes = view.readUInt32LE(8);
  let at = buf.byteOffset + 16;
  const tags = new Uint8Array(buf.buffer, at, n);
  const ints = new Int32Array(buf.buffer, (at += pad8(n)), n);
  const floats = new Float64Array(buf.buffer, (at += pad8(n * 4)), nf);
  const verbatimBytes = pad8(Math.ceil(nf / 8));
  undoFloatDeltas(floats, new Uint8Array(buf.buffer, (at += nf * 8), verbatimBytes));
  at += verbatimBytes - buf.byteOffset;
  const strings = JSON.parse(view.toString("utf8", at, at + stringBytes)) as string[];
  return new Reader(tags, ints, floats, strings).value();
}
