// A Python pickle read as plain data, with every integer exact.
//
// pickleparser (the reader already in use, ./flightRecorder.ts) reads LONG1
// and LONG4, the opcodes pickle protocol 2+ writes for integers beyond 32
// bits, through a float (LONG1) or as an unsigned BigInt (LONG4), and
// protocol 0's text integers with parseInt: a 63-bit bootstrap_room would
// come back rounded. So the opcode stream is walked
// first (the argument layouts of CPython's Lib/pickletools.py) and each
// such integer is rewritten as a value pickleparser reads exactly: a BINFLOAT
// when it is a safe integer, else its decimal text (the project's rule for
// numbers a float would round, ./numerals.ts). Pickleparser ignores FRAME
// lengths, so the rewritten stream need not keep them.
//
// Instances of classes kvrewind does not have (SGLang's GenerateReqInput,
// ServerArgs, enums, anything of another version) become plain objects:
// their state's fields, and `__class__` ("module.Name") and, for objects
// built from constructor arguments, `__args__`. Bytes become "<N bytes>".

import { Parser as PickleParser } from "pickleparser";

type ArgLayout = { fixed: number } | { prefixed: 1 | 4 | 8 } | { lines: 1 | 2 } | "none" | "stop";

const NONE: ArgLayout = "none";
/** Opcode → how its argument is laid out (pickletools.py `opcodes`). */
const LAYOUT = new Map<number, ArgLayout>();
for (const c of "()012abde}])lNoRstuQ") LAYOUT.set(c.charCodeAt(0), NONE);
for (const op of [0x81, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x97, 0x98]) LAYOUT.set(op, NONE);
const fixed: [string | number, number][] = [["J", 4], ["K", 1], ["M", 2], ["h", 1], ["j", 4], ["q", 1], ["r", 4], ["G", 8], [0x80, 1], [0x82, 1], [0x83, 2], [0x84, 4], [0x95, 8]];
for (const [op, n] of fixed) LAYOUT.set(typeof op === "string" ? op.charCodeAt(0) : op, { fixed: n });
const prefixed: [string | number, 1 | 4 | 8][] = [["T", 4], ["U", 1], ["X", 4], ["B", 4], ["C", 1], [0x8c, 1], [0x8d, 8], [0x8e, 8], [0x96, 8], [0x8a, 1], [0x8b, 4]];
for (const [op, n] of prefixed) LAYOUT.set(typeof op === "string" ? op.charCodeAt(0) : op, { prefixed: n });
for (const c of "ILFSVPgp") LAYOUT.set(c.charCodeAt(0), { lines: 1 });
for (const c of "ci") LAYOUT.set(c.charCodeAt(0), { lines: 2 });
LAYOUT.set(".".charCodeAt(0), "stop");

const LONG1 = 0x8a;
const LONG4 = 0x8b;
const LONG = "L".charCodeAt(0);
const INT = "I".charCodeAt(0);

/** Protocol 0's `L<digits>L` / `I<digits>` beyond a double's integers (pickleparser reads them with parseInt); "01"/"00" are booleans. */
function textInteger(line: Buffer): bigint | undefined {
  const m = /^(-?\d{16,})L?$/.exec(line.toString("latin1"));
  return m ? BigInt(m[1]!) : undefined;
}

/** A little-endian two's-complement integer (pickle's LONG encoding). */
function longValue(bytes: Buffer): bigint {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[i]!);
  return bytes[bytes.length - 1]! >= 0x80 ? v - (1n << BigInt(bytes.length * 8)) : v;
}

/** The opcode pickleparser reads `v` from exactly: a double for safe integers, else a short text. */
function exactOp(v: bigint): Buffer {
  if (v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)) {
    const out = Buffer.alloc(9);
    out[0] = "G".charCodeAt(0);
    out.writeDoubleBE(Number(v), 1);
    return out;
  }
  const text = Buffer.from(v.toString(), "ascii");
  return Buffer.concat([Buffer.from([0x8c, text.length]), text]);
}

function lengthAt(bytes: Buffer, at: number, width: 1 | 4 | 8): number {
  if (at + width > bytes.length) throw new Error(`pickle cut at byte ${at}`);
  if (width === 1) return bytes[at]!;
  if (width === 4) return bytes.readUInt32LE(at);
  const n = bytes.readBigUInt64LE(at);
  if (n > BigInt(bytes.length)) throw new Error(`pickle argument at byte ${at} longer than the file`);
  return Number(n);
}

/** The pickle with each integer a float would round rewritten to an exact opcode; throws on an unknown opcode or a cut stream. */
export function exactIntegers(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let copied = 0;
  let at = 0;
  while (at < bytes.length) {
    const op = bytes[at]!;
    const layout = LAYOUT.get(op);
    if (layout === undefined) throw new Error(`unknown pickle opcode 0x${op.toString(16)} at byte ${at}`);
    if (layout === "stop") return parts.length === 0 ? bytes : Buffer.concat([...parts, bytes.subarray(copied, at + 1)]);
    let next = at + 1;
    if (layout === "none") next = at + 1;
    else if ("fixed" in layout) next = at + 1 + layout.fixed;
    else if ("prefixed" in layout) next = at + 1 + layout.prefixed + lengthAt(bytes, at + 1, layout.prefixed);
    else {
      for (let line = 0; line < layout.lines; line++) {
        const nl = bytes.indexOf(0x0a, next);
        if (nl < 0) throw new Error(`pickle cut at byte ${next}`);
        next = nl + 1;
      }
    }
    if (next > bytes.length) throw new Error(`pickle cut at byte ${at}`);
    const exact = op === LONG1 || op === LONG4 ? longValue(bytes.subarray(at + 1 + (op === LONG1 ? 1 : 4), next)) : op === LONG || op === INT ? textInteger(bytes.subarray(at + 1, next - 1)) : undefined;
    if (exact !== undefined) {
      parts.push(bytes.subarray(copied, at), exactOp(exact));
      copied = next;
    }
    at = next;
  }
  throw new Error("pickle has no STOP opcode: the file is cut");
}

/** pickleparser warns on stderr for every 64-bit integer it reads; the rewritten stream has none left that matter. */
function unpickle(bytes: Buffer): unknown {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return new PickleParser().parse(exactIntegers(bytes));
  } finally {
    console.warn = warn;
  }
}

/** A JSON-ready copy: class instances as their fields with `__class__`, bytes as their size, BigInts exact. */
export function plainData(v: unknown, depth = 0): unknown {
  if (depth > 64) return "<nested too deep>";
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (v === null || typeof v !== "object") return v === undefined ? null : v;
  if (ArrayBuffer.isView(v)) return `<${v.byteLength} bytes>`;
  if (Array.isArray(v)) return v.map((x) => plainData(x, depth + 1));
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plainData(x, depth + 1)]));
  if (v instanceof Set) return [...v].map((x) => plainData(x, depth + 1));
  const out: Record<string, unknown> = {};
  const proto = Object.getPrototypeOf(v) as { __module__?: unknown; __name__?: unknown } | null;
  if (proto !== null && typeof proto.__name__ === "string") out.__class__ = `${String(proto.__module__)}.${proto.__name__}`;
  const args = (v as { args?: unknown }).args;
  if (Array.isArray(args) && args.length > 0 && !Object.prototype.propertyIsEnumerable.call(v, "args")) out.__args__ = plainData(args, depth + 1);
  for (const [k, x] of Object.entries(v)) out[k] = plainData(x, depth + 1);
  return out;
}

/** A pickle file as plain data (plainData); throws with a reason when it cannot be read. */
export function readPickle(bytes: Buffer): unknown {
  return plainData(unpickle(bytes));
}

/** PROTO 2..5 as the first opcode: a pickle CPython's default protocols write. */
export function startsLikePickle(head: Buffer): boolean {
  return head.length >= 16 && head[0] === 0x80 && head[1]! >= 2 && head[1]! <= 5;
}
