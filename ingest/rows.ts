// The row shape that travels from the parse worker to the store writer: the
// values of one `events` row in EVENT_COLUMNS order, rows packed flat into
// blocks of ROWS_PER_BLOCK (one multi-row INSERT each). `seq` is not sent:
// rows arrive in the global order and take consecutive rowids.
//
// The two long text values of a row (attrs and text) travel as UTF-8 bytes in
// one transferred buffer per batch rather than as strings: the writer binds
// them as bytes (CAST to TEXT in the INSERT), which saves the store thread —
// the bottleneck of a load — the string copies and conversions.

import type { ParsedEvent } from "./event.js";

export const EVENT_COLUMNS = [
  "ts_us",
  "source_id",
  "line",
  "host",
  "role",
  "dp",
  "pp",
  "tp",
  "kind",
  "room",
  "rid",
  "chunk",
  "layer",
  "page_lo",
  "page_hi",
  "state",
  "attrs",
  "text",
] as const;

export const ROW_WIDTH = EVENT_COLUMNS.length;
export const ROWS_PER_BLOCK = 64;

/** Positions of the merge key in a row. */
export const TS_COL = 0;
export const SOURCE_COL = 1;
export const LINE_COL = 2;
export const HOST_COL = 3;

export type RowBlock = unknown[];

/** Stands in a row for a text value whose bytes are in the batch's buffer. */
export const PACKED = true;

/** Collects a batch's long texts as UTF-8 bytes (parse worker side). */
export class TextPacker {
  private bytes = Buffer.allocUnsafeSlow(1 << 21);
  private used = 0;
  private lengths: number[] = [];

  /** Appends a text and returns the placeholder to put in its row, or null for null. */
  pack(text: string | null): typeof PACKED | null {
    if (text === null) return null;
    const room = text.length * 3;
    if (this.used + room > this.bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + room));
      this.bytes.copy(bigger, 0, 0, this.used);
      this.bytes = bigger;
    }
    const n = this.bytes.write(text, this.used);
    this.used += n;
    this.lengths.push(n);
    return PACKED;
  }

  /** The batch's bytes and lengths; the packer starts afresh. */
  take(): PackedTexts {
    const out = { bytes: this.bytes.buffer.slice(0, this.used), lengths: Uint32Array.from(this.lengths) };
    this.used = 0;
    this.lengths = [];
    return out;
  }
}

export interface PackedTexts {
  bytes: ArrayBuffer;
  lengths: Uint32Array;
}

/** Replaces the placeholders of `blocks`, in order, with views of their bytes (store side). */
export function unpackTexts(blocks: RowBlock[], packed: PackedTexts): void {
  let at = 0;
  let next = 0;
  for (const block of blocks) {
    for (let i = 0; i < block.length; i++) {
      if (block[i] !== PACKED) continue;
      const n = packed.lengths[next++]!;
      block[i] = Buffer.from(packed.bytes, at, n);
      at += n;
    }
  }
}

export function attrsJson(attrs: Record<string, unknown> | undefined): string | null {
  if (attrs === undefined) return null;
  let empty = true;
  for (const _ in attrs) {
    empty = false;
    break;
  }
  if (empty) return null;
  try {
    return JSON.stringify(attrs);
  } catch {
    // A parser left a BigInt in attrs: keep it as its exact decimal string.
    return JSON.stringify(attrs, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  }
}

/** Appends one event's row to a block, its attrs and text packed. */
export function pushRow(
  block: RowBlock,
  texts: TextPacker,
  ev: ParsedEvent,
  sourceId: number,
  tsUs: number,
  host: string | null,
  role: string | null,
): void {
  block.push(
    tsUs,
    sourceId,
    ev.line,
    host,
    role,
    ev.dp ?? null,
    ev.pp ?? null,
    ev.tp ?? null,
    ev.kind,
    ev.room ?? null,
    ev.rid ?? null,
    ev.chunk ?? null,
    ev.layer ?? null,
    ev.pageLo ?? null,
    ev.pageHi ?? null,
    ev.state ?? null,
    texts.pack(attrsJson(ev.attrs)),
    texts.pack(ev.text),
  );
}

/** "decode/tp3", "prefill/dp1/tp4": how a rank is named in summaries (DESIGN.md findings `ranks`). */
export function rankName(role: string | null, dp: number | undefined, pp: number | undefined, tp: number | undefined): string {
  let name = role ?? "unknown";
  if (dp !== undefined) name += `/dp${dp}`;
  if (pp !== undefined) name += `/pp${pp}`;
  if (tp !== undefined) name += `/tp${tp}`;
  return name;
}
