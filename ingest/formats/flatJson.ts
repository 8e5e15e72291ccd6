// The fast path for one-line JSON records (probe JSONL, checksum and page-dump
// JSONL): an object whose values are numbers, strings without escapes,
// true/false/null, or arrays of those (page ranges nest one level deeper).
// That is nearly every record an instrumented run writes; anything else
// (escapes, nested objects, bad JSON) is left to the general reader
// (numerals.ts parseJsonExact), which also says what is wrong with a bad line.
//
// The result is the one parseJsonExact gives for the same text: numbers that
// a float would round come back as their exact decimal strings, by the same
// rule (a run of 16 digits or dots, then 17+ digits, or 16+ in an integer),
// and every other numeral through Number(), which rounds a JSON numeral as
// JSON.parse does. test/formats/flatJson.test.ts holds the two side by side.

import { digitsEnd } from "./numerals.js";

/** A flat record read from `text`, or undefined when it needs the general reader. */
export function readFlatJsonObject(text: string): Record<string, unknown> | undefined {
  const r = new FlatReader(text);
  return r.object();
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
/** Array depth read here: `[[lo, hi], ...]`. */
const MAX_DEPTH = 2;

/** A value the fast path does not read: the caller falls back. */
const NOT_FLAT = Symbol("not flat");

class FlatReader {
  private i = 0;

  constructor(private readonly s: string) {}

  object(): Record<string, unknown> | undefined {
    const s = this.s;
    this.skipBlank();
    if (s.charCodeAt(this.i) !== OPEN_BRACE) return undefined;
    this.i++;
    const out: Record<string, unknown> = {};
    this.skipBlank();
    if (s.charCodeAt(this.i) === CLOSE_BRACE) {
      this.i++;
      return this.atEnd() ? out : undefined;
    }
    for (;;) {
      this.skipBlank();
      const key = this.string();
      if (key === undefined || key === "__proto__") return undefined;
      this.skipBlank();
      if (s.charCodeAt(this.i) !== COLON) return undefined;
      this.i++;
      const value = this.value(0);
      if (value === NOT_FLAT) return undefined;
      out[key] = value;
      this.skipBlank();
      const c = s.charCodeAt(this.i++);
      if (c === CLOSE_BRACE) return this.atEnd() ? out : undefined;
      if (c !== COMMA) return undefined;
    }
  }

  private atEnd(): boolean {
    this.skipBlank();
    return this.i === this.s.length;
  }

  private value(depth: number): unknown {
    this.skipBlank();
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === QUOTE) return this.string() ?? NOT_FLAT;
    if (c === OPEN_BRACKET) return depth < MAX_DEPTH ? this.array(depth + 1) : NOT_FLAT;
    if (c === 116 /* t */) return this.literal("true", true);
    if (c === 102 /* f */) return this.literal("false", false);
    if (c === 110 /* n */) return this.literal("null", null);
    return this.number();
  }

  private array(depth: number): unknown {
    const s = this.s;
    this.i++;
    const out: unknown[] = [];
    this.skipBlank();
    if (s.charCodeAt(this.i) === CLOSE_BRACKET) {
      this.i++;
      return out;
    }
    for (;;) {
      const v = this.value(depth);
      if (v === NOT_FLAT) return NOT_FLAT;
      out.push(v);
      this.skipBlank();
      const c = s.charCodeAt(this.i++);
      if (c === CLOSE_BRACKET) return out;
      if (c !== COMMA) return NOT_FLAT;
    }
  }

  private literal(word: string, value: boolean | null): unknown {
    if (!this.s.startsWith(word, this.i)) return NOT_FLAT;
    this.i += word.length;
    return value;
  }

  /** A string without escapes or control characters (JSON forbids those raw), else undefined. */
  private string(): string | undefined {
    const s = this.s;
    if (s.charCodeAt(this.i) !== QUOTE) return undefined;
    const start = this.i + 1;
    for (let j = start; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === QUOTE) {
        this.i = j + 1;
        return j - start <= MAX_CACHED_CHARS ? cachedSubstring(s, start, j) : s.substring(start, j);
      }
      if (c === BACKSLASH || c < 32) return undefined;
    }
    return undefined;
  }

  /**
   * A JSON numeral (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`): its number, or
   * its text where a float would round it (numerals.ts quoteLossyNumbers).
   */
  private number(): unknown {
    const s = this.s;
    const start = this.i;
    let j = start;
    const negative = s.charCodeAt(j) === 45; /* - */
    if (negative) j++;
    const intStart = j;
    // The digits as one integer, exact while below 2^53 (fifteen digits always are).
    let mantissa = 0;
    let c = s.charCodeAt(j);
    while (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      c = s.charCodeAt(++j);
    }
    if (j === intStart || (s.charCodeAt(intStart) === 48 && j - intStart > 1)) return NOT_FLAT;
    let integer = true;
    let decimals = 0;
    if (c === 46 /* . */) {
      const frac = ++j;
      c = s.charCodeAt(j);
      while (c >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        c = s.charCodeAt(++j);
      }
      decimals = j - frac;
      if (decimals === 0) return NOT_FLAT;
      integer = false;
    }
    const mantissaRun = j - intStart;
    let exponentRun = 0;
    if (c === 101 || c === 69) {
      j++;
      const sign = s.charCodeAt(j);
      if (sign === 43 || sign === 45) j++;
      const expStart = j;
      j = digitsEnd(s, j);
      exponentRun = j - expStart;
      if (exponentRun === 0) return NOT_FLAT;
      integer = false;
    }
    this.i = j;
    if (exponentRun === 0 && mantissa <= Number.MAX_SAFE_INTEGER && decimals <= 22) {
      // An exact integer divided by an exact power of ten: one correctly rounded division, as Number() reads it.
      const v = decimals === 0 ? mantissa : mantissa / POWERS_OF_TEN[decimals]!;
      if (mantissaRun < 16 || !lossy(s, start, j, integer)) return negative ? -v : v;
      return s.substring(start, j);
    }
    // The general reader looks closer only at a run of 16 digits or dots: the mantissa's or the exponent's.
    if ((mantissaRun >= 16 || exponentRun >= 16) && lossy(s, start, j, integer)) return s.substring(start, j);
    return Number(s.substring(start, j));
  }

  private skipBlank(): void {
    const s = this.s;
    let c = s.charCodeAt(this.i);
    while (c === 32 || c === 9 || c === 10 || c === 13) c = s.charCodeAt(++this.i);
  }
}

/** quoteLossyNumbers' rule for a candidate numeral: 17+ digits, or 16+ in an integer. */
function lossy(s: string, from: number, to: number, integer: boolean): boolean {
  let digits = 0;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c >= 48 && c <= 57) digits++;
  }
  return digits >= 17 || (integer && digits >= 16);
}

// Keys and short values (host, role, event names) repeat on every record: one
// string each instead of a new one cut per record. Bounded; a miss just cuts.
const MAX_CACHED_CHARS = 24;
const CACHE_MAX = 1024;
const stringCache = new Map<number, string>();

function cachedSubstring(s: string, from: number, to: number): string {
  const len = to - from;
  const h = len === 0 ? 0 : (len << 21) ^ (s.charCodeAt(from) << 14) ^ (s.charCodeAt(from + (len >> 1)) << 7) ^ s.charCodeAt(to - 1);
  const cached = stringCache.get(h);
  if (cached !== undefined && cached.length === len && s.startsWith(cached, from)) return cached;
  const cut = s.substring(from, to);
  if (stringCache.size < CACHE_MAX) stringCache.set(h, cut);
  return cut;
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
