// The binary form of a block of events, the canonical store of the events
// (DESIGN.md "Canonical store"; docs/store.md): ~4,096 consecutive events in
// seq order, each column typed. Every integer column is frame-of-reference
// packed (base + u8/u16/u32 offsets, the widest value reserved for NULL),
// strings (kind, host, role, room, rid) are per-block dictionaries, and
// `attrs` is stored parsed (attrsCodec.ts, attrsEncode.ts: key shapes and a typed value
// stream, no JSON text per event). The whole block is then compressed
// (codec.ts). Decoding a block parses its header and makes typed-array views
// of its columns, read in place, so a reader allocates nothing per event but
// the attrs objects it asks for.

import { ReusedDecompression } from "../codec.js";
import { AttrsReader, type AttrsTables, type EncodedAttrs } from "./attrsCodec.js";
import { AttrsBlockBuilder } from "./attrsEncode.js";
import { Interner } from "./interner.js";
import { PackedColumn, packColumn, type PackedLayout } from "./packedColumn.js";
export const NUMERIC_COLUMNS = [
  "seq", "tsUs", "sourceId", "line", "dp", "pp", "tp", "chunk", "layer", "pageLo", "pageHi", "state", "tsInferred",
] as const;
export type NumericColumn = (typeof NUMERIC_COLUMNS)[number];

export const DICT_COLUMNS = ["host", "role", "kind", "room", "rid"] as const;
export type DictColumn = (typeof DICT_COLUMNS)[number];

interface BlockHeader {
  count: number;
  columns: Record<NumericColumn | DictColumn, PackedLayout>;
  dicts: Record<DictColumn, string[]>;
  attrs: AttrsTables & { shape: PackedLayout; tags: { offset: number; length: number }; values: PackedLayout & { length: number } };
}

/** A block's columns (NaN for NULL; dictionary columns as ids into the block's dictionaries), all in one buffer. */
export interface BlockColumns {
  num: Record<NumericColumn, Float64Array>;
  ids: Record<DictColumn, Float64Array>;
}

function newColumns(capacity: number): BlockColumns {
  const buffer = new ArrayBuffer((NUMERIC_COLUMNS.length + DICT_COLUMNS.length) * capacity * Float64Array.BYTES_PER_ELEMENT);
  let at = 0;
  const column = (): Float64Array => new Float64Array(buffer, at++ * capacity * Float64Array.BYTES_PER_ELEMENT, capacity);
  const num = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, column()])) as BlockColumns["num"];
  const ids = Object.fromEntries(DICT_COLUMNS.map((c) => [c, column()])) as BlockColumns["ids"];
  return { num, ids };
}

/** The events of one block as they are gathered: a column array each (NaN for NULL). */
export class BlockRows {
  count = 0;
  private columns: BlockColumns;
  /** Columns of sealed blocks, given back for the next blocks (reuse). */
  private readonly spare: BlockColumns[] = [];
  readonly dicts: Record<DictColumn, Interner>;
  readonly attrs: AttrsBlockBuilder;

  constructor(readonly capacity: number) {
    this.columns = newColumns(capacity);
    this.dicts = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new Interner()])) as BlockRows["dicts"];
    this.attrs = new AttrsBlockBuilder(capacity);
  }

  /** The numeric columns being filled: other arrays after each take(). */
  get num(): BlockColumns["num"] {
    return this.columns.num;
  }

  /** Dictionary columns as ids into `dicts` (NaN: NULL): other arrays after each take(). */
  get ids(): BlockColumns["ids"] {
    return this.columns.ids;
  }

  get full(): boolean {
    return this.count === this.capacity;
  }

  /** Event `at`'s value of a dictionary column (null: NULL). */
  setString(column: DictColumn, at: number, value: string | null): void {
    this.ids[column][at] = value === null ? NaN : this.dicts[column].id(value);
  }

  /**
   * The rows gathered, with the columns they fill (so that they can move to
   * another thread); the rows start afresh for the next block in spare
   * columns, or new ones.
   */
  take(): BlockContent {
    const n = this.count;
    const dicts = {} as BlockContent["dicts"];
    for (const name of DICT_COLUMNS) {
      dicts[name] = this.dicts[name].list;
      this.dicts[name].reset();
    }
    const { num, ids } = this.columns;
    this.columns = this.spare.pop() ?? newColumns(this.capacity);
    this.count = 0;
    return { count: n, num, ids, dicts, attrs: this.attrs.take(n) };
  }

  /** Takes back the columns of a sealed block's content for a later block. */
  reuse(spent: BlockColumns): void {
    this.spare.push({ num: spent.num, ids: spent.ids });
  }
}

/** One block's events as BlockRows gathered them: its columns (the first `count` values of each), dictionaries and attrs. */
export interface BlockContent extends BlockColumns {
  count: number;
  dicts: Record<DictColumn, string[]>;
  attrs: EncodedAttrs;
}

/** The buffers of a block's content, to transfer it to another thread rather than copy it. */
export function contentBuffers(c: BlockContent): ArrayBuffer[] {
  return [columnsBuffer(c), c.attrs.shapeIds.buffer as ArrayBuffer, c.attrs.tags.buffer as ArrayBuffer, c.attrs.values.buffer as ArrayBuffer];
}

/** The one buffer of a block's columns. */
export function columnsBuffer(c: BlockColumns): ArrayBuffer {
  return c.num.seq.buffer as ArrayBuffer;
}

/** Turns a block's content into one uncompressed buffer. */
export function encodeBlock(rows: BlockContent): Buffer {
  const n = rows.count;
  const parts: Uint8Array[] = [];
  let offset = 0;
  const place = (bytes: Uint8Array): number => {
    const at = offset;
    parts.push(bytes);
    offset += bytes.byteLength;
    const pad = (8 - (offset % 8)) % 8;
    if (pad) {
      parts.push(new Uint8Array(pad));
      offset += pad;
    }
    return at;
  };
  const columns = {} as BlockHeader["columns"];
  for (const name of NUMERIC_COLUMNS) columns[name] = packColumn(rows.num[name], n, place);
  const dicts = {} as BlockHeader["dicts"];
  for (const name of DICT_COLUMNS) {
    dicts[name] = rows.dicts[name];
    columns[name] = packColumn(rows.ids[name], n, place);
  }
  const attrs = rows.attrs;
  const header: BlockHeader = {
    count: n,
    columns,
    dicts,
    attrs: {
      shapes: attrs.shapes,
      strings: attrs.strings,
      json: attrs.json,
      shape: packColumn(attrs.shapeIds, n, place),
      tags: { offset: place(attrs.tags), length: attrs.tags.length },
      values: { ...packColumn(attrs.values, attrs.values.length, place), length: attrs.values.length },
    },
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.alloc(8 + headerBytes.byteLength + ((8 - (headerBytes.byteLength % 8)) % 8));
  prefix.writeUInt32LE(headerBytes.byteLength, 0);
  headerBytes.copy(prefix, 8);
  return Buffer.concat([prefix, ...parts]);
}

/** A decoded block: its columns read in place (NaN for NULL; dictionary columns hold indices), reused across blocks. */
export class DecodedBlock {
  count = 0;
  readonly num: Record<NumericColumn, PackedColumn>;
  readonly ids: Record<DictColumn, PackedColumn>;
  dicts: BlockHeader["dicts"] = { host: [], role: [], kind: [], room: [], rid: [] };
  readonly attrs: AttrsReader;
  private readonly attrValues = new PackedColumn();
  private readonly shapes = new PackedColumn();
  /** The decompressed bytes the columns view: this block's own, reused by its next decode. */
  private readonly bytes = new ReusedDecompression();

  constructor(readonly capacity: number) {
    this.num = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, new PackedColumn()])) as DecodedBlock["num"];
    this.ids = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new PackedColumn()])) as DecodedBlock["ids"];
    this.attrs = new AttrsReader(capacity);
  }

  /** Decompresses and decodes a stored block (the columns are views of the decompressed bytes). */
  decode(stored: Uint8Array): this {
    const raw = this.bytes.decompress(stored);
    const buf = raw.byteOffset % 8 === 0 ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : alignedCopy(raw);
    const headerLength = buf.readUInt32LE(0);
    const header = JSON.parse(buf.toString("utf8", 8, 8 + headerLength)) as BlockHeader;
    const body = 8 + headerLength + ((8 - (headerLength % 8)) % 8);
    const n = header.count;
    if (n > this.capacity) throw new Error(`event block of ${n} events exceeds ${this.capacity}`);
    this.count = n;
    for (const name of NUMERIC_COLUMNS) this.num[name].view(buf, body, header.columns[name], n);
    for (const name of DICT_COLUMNS) this.ids[name].view(buf, body, header.columns[name], n);
    this.dicts = header.dicts;
    const a = header.attrs;
    this.attrValues.view(buf, body, a.values, a.values.length);
    this.shapes.view(buf, body, a.shape, n);
    const tags = new Uint8Array(buf.buffer, buf.byteOffset + body + a.tags.offset, a.tags.length);
    this.attrs.load(a, n, this.shapes, tags, this.attrValues, this.num.pageLo, this.num.pageHi);
    return this;
  }
}

/** Typed-array views need their element alignment; small Buffers may sit anywhere in Node's pool. */
function alignedCopy(blob: Uint8Array): Buffer {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return Buffer.from(copy.buffer);
}
