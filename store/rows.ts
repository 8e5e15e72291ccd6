// The rows that travel from the parse workers to the store writer: the values
// of `events` rows, packed column-wise into a RowBatch, which travels packed
// into one buffer transferred between threads (not cloned): structured
// cloning of plain arrays of mixed values cost both threads more than the
// parse itself, and a batch waits packed for the merge anyway
// (ingest/load/workers.ts). A batch is a few typed arrays, a short list of
// distinct strings and the attrs.
// `seq` is not sent: rows arrive in the global order and take consecutive
// rowids. The raw text of the events travels beside them as text blocks
// (store/eventText.ts).

import { TimeQuality, type ParsedEvent } from "../domain/event.js";
import { AttrsRowsBuilder, type AttrsRows } from "./blocks/attrsEncode.js";
import type { TextBlock } from "./eventText.js";
import { compress, decompress } from "./codec.js";

/** The ts_inferred column: the time was inferred from the record's neighbours; the record is timeless (domain/event.ts TimeQuality). */
export const TS_INFERRED = TimeQuality.inferred;
export const TS_TIMELESS = TimeQuality.unknown;

/** Numeric columns of a row; NaN stands for NULL. */

export const NUMBER_COLUMNS = ["ts_us", "source_id", "line", "dp", "pp", "tp", "chunk", "layer", "page_lo", "page_hi", "state", "ts_inferred"] as const;
/** Text columns of a row, held as indexes into the batch's `strings` (-1 = NULL). */
export const STRING_COLUMNS = ["host", "role", "kind", "room", "rid"] as const;
/** Every stored column of a row, in the order a row's values are bound. */
export const EVENT_COLUMNS = [...NUMBER_COLUMNS, ...STRING_COLUMNS, "attrs"] as const;

export const NUMBER_WIDTH = NUMBER_COLUMNS.length;
export const STRING_WIDTH = STRING_COLUMNS.length;
export const ROW_WIDTH = EVENT_COLUMNS.length;

/** Positions of the merge key's time and line, and of the host, among a row's values (EVENT_COLUMNS order). */
export const TS_COL = 0;
export const LINE_COL = 2;
export const HOST_COL = NUMBER_WIDTH;

export interface RowBatch {
  length: number;
  /** length × NUMBER_WIDTH values, row by row. */
  numbers: Float64Array;
  /** length × STRING_WIDTH indexes into `strings`, row by row. */
  stringRefs: Int32Array;
  strings: string[];
  /** The rows' attrs, encoded (strings in `strings`). */
  attrs: AttrsRows;
  /** Raw text of the batch's events, for the event_text table. */
  texts: TextBlock[];
}

/** The buffers a packed batch transfers to another thread (packBatch). */
export function transferList(batch: PackedBatch): ArrayBuffer[] {
  const list = [batch.packed.buffer] as ArrayBuffer[];
  for (const t of batch.texts) list.push(t.lines.buffer as ArrayBuffer, t.ends.buffer as ArrayBuffer, t.text.buffer as ArrayBuffer);
  return list;
}

/** Collects rows into batches of at most `capacity` rows. */
export class RowBatchBuilder {
  private numbers: Float64Array;
  private stringRefs: Int32Array;
  private readonly strings = new BatchStrings();
  /** Per string column, its last value and reference in this batch (undefined: none yet). */
  private readonly lastValues: (string | null | undefined)[] = new Array(STRING_WIDTH).fill(undefined);
  private readonly lastRefs = new Int32Array(STRING_WIDTH);
  private readonly attrs: AttrsRowsBuilder;
  private texts: TextBlock[] = [];
  private n = 0;

  constructor(readonly capacity: number) {
    this.numbers = new Float64Array(capacity * NUMBER_WIDTH);
    this.stringRefs = new Int32Array(capacity * STRING_WIDTH);
    this.attrs = new AttrsRowsBuilder(capacity, this.strings);
  }

  get length(): number {
    return this.n;
  }

  get full(): boolean {
    return this.n === this.capacity;
  }

  /** Appends one parsed event as a row. */
  pushEvent(ev: ParsedEvent, sourceId: number, tsUs: number, host: string | null, role: string | null): void {
    const a = this.n * NUMBER_WIDTH;
    const num = this.numbers;
    num[a] = tsUs;
    num[a + 1] = sourceId;
    num[a + 2] = ev.line;
    num[a + 3] = ev.dp ?? NaN;
    num[a + 4] = ev.pp ?? NaN;
    num[a + 5] = ev.tp ?? NaN;
    num[a + 6] = ev.chunk ?? NaN;
    num[a + 7] = ev.layer ?? NaN;
    num[a + 8] = ev.pageLo ?? NaN;
    num[a + 9] = ev.pageHi ?? NaN;
    num[a + 10] = ev.state ?? NaN;
    num[a + 11] = ev.timeless === true ? TS_TIMELESS : ev.tsInferred === true ? TS_INFERRED : NaN;
    const s = this.n * STRING_WIDTH;
    const refs = this.stringRefs;
    refs[s] = this.columnRef(0, host);
    refs[s + 1] = this.columnRef(1, role);
    refs[s + 2] = this.columnRef(2, ev.kind);
    refs[s + 3] = this.columnRef(3, ev.room ?? null);
    refs[s + 4] = this.columnRef(4, ev.rid ?? null);
    this.attrs.addRow(ev.attrs, num[a + 8]!, num[a + 9]!);
    this.n++;
  }

  addTexts(blocks: readonly TextBlock[]): void {
    for (const b of blocks) this.texts.push(b);
  }

  /** The rows so far as a batch; the builder starts afresh with new buffers. */
  take(): RowBatch {
    const batch: RowBatch = {
      length: this.n,
      numbers: this.numbers.slice(0, this.n * NUMBER_WIDTH),
      stringRefs: this.stringRefs.slice(0, this.n * STRING_WIDTH),
      strings: this.strings.take(),
      attrs: this.attrs.take(),
      texts: this.texts,
    };
    this.n = 0;
    this.lastValues.fill(undefined);
    this.texts = [];
    return batch;
  }

  /**
   * A string column's reference: most rows repeat the one above in host,
   * role and kind, and a room's lines come in runs, so the column's last
   * value is tried before the batch's map (a string hashed per row cost more
   * than the rest of the row).
   */
  private columnRef(column: number, value: string | null): number {
    if (value === this.lastValues[column]) return this.lastRefs[column]!;
    const ref = this.stringRef(value);
    this.lastValues[column] = value;
    this.lastRefs[column] = ref;
    return ref;
  }

  private stringRef(value: string | null): number {
    return value === null ? -1 : this.strings.ref(value);
  }
}

/**
 * A batch's string table. The store thread turns its ids into block
 * dictionary ids string by string, so a string may be in it twice: values
 * that seldom repeat (a notification tag per line) are appended without
 * being hashed into the map.
 */
export class BatchStrings {
  private list: string[] = [];
  private readonly ids = new Map<string, number>();

  get length(): number {
    return this.list.length;
  }

  /** The string's id, the same for every equal string. */
  ref(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  /** A new id for the string, whether or not it is in the table already. */
  append(value: string): number {
    this.list.push(value);
    return this.list.length - 1;
  }

  /** The strings so far; the table starts afresh. */
  take(): string[] {
    const list = this.list;
    this.list = [];
    this.ids.clear();
    return list;
  }
}

/** "decode/tp3", "prefill/dp1/tp4": how a rank is named in summaries (DESIGN.md findings `ranks`). */
export function rankName(role: string | null, dp: number | undefined, pp: number | undefined, tp: number | undefined): string {
  let name = role ?? "unknown";
  if (dp !== undefined) name += `/dp${dp}`;
  if (pp !== undefined) name += `/pp${pp}`;
  if (tp !== undefined) name += `/tp${tp}`;
  return name;
}

/** Where merged rows go: the writer, or the merge with already stored events. */
export interface RowSink {
  addRow(batch: RowBatch, i: number): void;
  addTexts(blocks: readonly TextBlock[]): void;
}

/**
 * A batch as it travels from a parse worker and waits for the merge
 * (ingest/load/workers.ts keeps every source's batches until all are
 * parsed): its columns and strings in one zstd frame, its text blocks
 * (compressed already) beside.
 */
export interface PackedBatch {
  length: number;
  packed: Uint8Array;
  texts: TextBlock[];
}

/** Fast over small: the frame lives for seconds, and both cores are busy parsing meanwhile. */
const PACK_LEVEL = 1;

/** Parts of a packed batch, in order: its Float64 columns first, each part padded to 8 bytes, so that unpacking views them in place. */
const PACKED_PARTS = 7;
const HEADER_BYTES = 8 * 4;

export function packBatch(b: RowBatch): PackedBatch {
  const a = b.attrs;
  const strings = Buffer.from(JSON.stringify([b.strings, a.shapes, a.json]));
  const parts: ArrayBufferView[] = [b.numbers, a.values, b.stringRefs, a.shape, a.start, a.tags, strings];
  const header = new Uint32Array(HEADER_BYTES / 4);
  parts.forEach((p, i) => (header[i] = p.byteLength));
  const pieces: Buffer[] = [Buffer.from(header.buffer)];
  for (const p of parts) {
    pieces.push(Buffer.from(p.buffer, p.byteOffset, p.byteLength));
    if (p.byteLength % 8 !== 0) pieces.push(Buffer.alloc(8 - (p.byteLength % 8)));
  }
  return { length: b.length, packed: compress(Buffer.concat(pieces), PACK_LEVEL), texts: b.texts };
}

export function unpackBatch(p: PackedBatch): RowBatch {
  let whole = decompress(p.packed);
  // zstd's output starts on an 8-byte boundary in practice; copied once when it does not.
  if (whole.byteOffset % 8 !== 0) whole = new Uint8Array(whole);
  const sizes = new Uint32Array(whole.buffer, whole.byteOffset, PACKED_PARTS);
  let at = whole.byteOffset + HEADER_BYTES;
  const take = (i: number): [ArrayBufferLike, number, number] => {
    const view: [ArrayBufferLike, number, number] = [whole.buffer, at, sizes[i]!];
    at += Math.ceil(sizes[i]! / 8) * 8;
    return view;
  };
  const [nb, no, nl] = take(0);
  const numbers = new Float64Array(nb, no, nl / 8);
  const [vb, vo, vl] = take(1);
  const values = new Float64Array(vb, vo, vl / 8);
  const [rb, ro, rl] = take(2);
  const stringRefs = new Int32Array(rb, ro, rl / 4);
  const [hb, ho, hl] = take(3);
  const shape = new Int32Array(hb, ho, hl / 4);
  const [sb, so, sl] = take(4);
  const start = new Uint32Array(sb, so, sl / 4);
  const tags = new Uint8Array(...take(5));
  const [jb, jo, jl] = take(6);
  const [strings, shapes, json] = JSON.parse(Buffer.from(jb, jo, jl).toString("utf8")) as [string[], string[][], string[]];
  return { length: p.length, numbers, stringRefs, strings, attrs: { shape, start, shapes, tags, values, json }, texts: p.texts };
}
