// Periodic batch lines (docs/protocol.md §2, docs/hicache-indexk.md §3.7).
// Every era is `Prefill|Decode batch<sep> key: value, key: value, ...`:
//   ≤ v0.5.3   `Prefill batch. #new-seq: 1, ..., ` (a period, and a trailing ", ")
//   #9366      `Prefill batch [N], ...`              (forward iteration always printed)
//   v0.5.5+    `Prefill batch, ...` / `Prefill batch [N], ...` (iteration optional)
// Field order and names vary by version, so fields are kept by their logged
// names: numbers as numbers, `True`/`False` as booleans, `F2%` as the number.

import type { Role } from "../../../domain/vocabulary.js";
import { LogKind } from "../../../domain/kinds.js";

export interface BatchLine {
  kind: string;
  /** prefill / decode when the line has PD queue fields; undefined for a non-disaggregated server. */
  role: Role | undefined;
  attrs: Record<string, unknown>;
}

const PREFILL_HEAD = "Prefill batch";
const DECODE_HEAD = "Decode batch";
// Queue fields only a PD server prints (§2.1 item 4, §2.2 item 4, §3.7's older names).
const PD_PREFILL_FIELDS = ["#bootstrap-req", "#inflight-req", "#prealloc-req", "#optimistic-req", "#unbootstrapped-req", "#transferring-req"];
const PD_DECODE_FIELDS = ["#transfer-req", "#prealloc-req", "#retracted-req", "pre-allocated usage"];

/** The batch line starting at `at`, or null when the message is not one. */
export function parseBatchLine(line: string, at: number): BatchLine | null {
  let kind: string;
  let i: number;
  if (line.startsWith(PREFILL_HEAD, at)) {
    kind = LogKind.prefillBatch;
    i = at + PREFILL_HEAD.length;
  } else if (line.startsWith(DECODE_HEAD, at)) {
    kind = LogKind.decodeBatch;
    i = at + DECODE_HEAD.length;
  } else {
    return null;
  }
  const attrs: Record<string, unknown> = {};
  i = readSeparator(line, i, attrs);
  if (i < 0) return null;
  readFields(line, i, attrs);
  const pdFields = kind === LogKind.prefillBatch ? PD_PREFILL_FIELDS : PD_DECODE_FIELDS;
  const isPd = pdFields.some((f) => f in attrs);
  const role: Role | undefined = isPd ? (kind === LogKind.prefillBatch ? "prefill" : "decode") : undefined;
  return { kind, role, attrs };
}

/** After the head: `. `, `, ` or ` [N], `. Returns the index of the first field or -1. */
function readSeparator(line: string, i: number, attrs: Record<string, unknown>): number {
  const c = line.charCodeAt(i);
  const PERIOD = 46;
  const COMMA = 44;
  const SPACE = 32;
  const BRACKET = 91;
  if ((c === PERIOD || c === COMMA) && line.charCodeAt(i + 1) === SPACE) return i + 2;
  if (c === SPACE && line.charCodeAt(i + 1) === BRACKET) {
    const close = line.indexOf("], ", i + 2);
    if (close < 0) return -1;
    const iter = parseNumber(line.substring(i + 2, close));
    if (typeof iter !== "number") return -1;
    attrs.forwardIter = iter;
    return close + 3;
  }
  return -1;
}

function readFields(line: string, i: number, attrs: Record<string, unknown>): void {
  const end = line.length;
  // The next `: ` is searched again only once passed, so a long line of odd fields stays linear.
  let colon = -1;
  while (i < end) {
    let next = line.indexOf(", ", i);
    if (next < 0) next = end;
    if (colon < i) {
      colon = line.indexOf(": ", i);
      if (colon < 0) colon = end;
    }
    if (colon > i && colon < next) {
      const n = plainDecimalAt(line, colon + 2, next);
      attrs[keyAt(line, i, colon)] = Number.isNaN(n) ? parseValue(line.substring(colon + 2, next)) : n;
    } else if (next > i) {
      // A field without `key: value` shape is kept rather than dropped.
      const extra = (attrs.extra as string[] | undefined) ?? [];
      extra.push(line.substring(i, next));
      attrs.extra = extra;
    }
    i = next + 2;
  }
}

// Field names repeat on every batch line: reuse one string per name instead of
// cutting (and internalising) a new one each time. Bounded; a miss just cuts.
const KEY_CACHE_MAX = 512;
const keyCache = new Map<number, string>();

function keyAt(line: string, from: number, to: number): string {
  const len = to - from;
  const h = (len << 21) ^ (line.charCodeAt(from) << 14) ^ (line.charCodeAt(from + (len >> 1)) << 7) ^ line.charCodeAt(to - 1);
  const cached = keyCache.get(h);
  if (cached !== undefined && cached.length === len && line.startsWith(cached, from)) return cached;
  const key = line.substring(from, to);
  if (keyCache.size < KEY_CACHE_MAX) keyCache.set(h, key);
  return key;
}

/**
 * `-?digits(.digits)?` read in place, NaN for anything else. Exact: the digits
 * as an integer below 2^53 divided by a power of ten (exact up to 1e22) is one
 * correctly rounded IEEE division, the same double `Number(text)` gives.
 */
function plainDecimalAt(s: string, from: number, to: number): number {
  let i = from;
  const negative = s.charCodeAt(i) === 45;
  if (negative) i++;
  if (i >= to || to - i > 15) return NaN;
  let mantissa = 0;
  let scale = 1;
  let seenDot = false;
  for (; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      if (seenDot) scale *= 10;
    } else if (c === 46 && !seenDot && i > from && i + 1 < to) {
      seenDot = true;
    } else {
      return NaN;
    }
  }
  const v = mantissa / scale;
  return negative ? -v : v;
}

function parseValue(v: string): unknown {
  if (v === "True") return true;
  if (v === "False") return false;
  if (v.charCodeAt(v.length - 1) === 37 /* % */) {
    const pct = parseNumber(v.substring(0, v.length - 1));
    if (typeof pct === "number") return pct;
  }
  return parseNumber(v);
}

/** A decimal number as a number; anything else stays the string it was. */
function parseNumber(v: string): number | string {
  if (v.length === 0) return v;
  const c = v.charCodeAt(0);
  if (!((c >= 48 && c <= 57) || c === 45 /* - */)) return v;
  const n = Number(v);
  return Number.isFinite(n) ? n : v;
}
