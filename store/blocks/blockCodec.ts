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
import { AttrsReader, type AttrsTables } from "./attrsCodec.js";
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

/** The events of one block as they are gathered: a column array each (NaN for NULL). */
export class BlockRows {
  count = 0;
  readonly num: Record<NumericColumn, Float64Array>;
  /** Dictionary columns as ids into `dicts` (NaN: NULL). */
  readonly ids: Record<DictColumn, Float64Array>;
  readonly dicts: Record<DictColumn, Interner>;
  readonly attrs: AttrsBlockBuilder;

  constructor(readonly capacity: number) {
    this.num = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, new Float64Array(capacity)])) as BlockRows["num"];
    this.ids = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new Float64Array(capacity)])) as BlockRows["ids"];
    this.dicts = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new Interner()])) as BlockRows["dicts"];
    this.attrs = new AttrsBlockBuilder(capacity);
  }

  get full(): boolean {
    return this.count === this.capacity;
  }

  /** Event `at`'s value of a dictionary column (null: NULL). */
  setString(column: DictColumn, at: number, value: string | null): void {
    this.ids[column][at] = value === null ? NaN : this.dicts[column].id(value);
  }

  /** Empties the rows for the next block. */
  reset(): void {
    this.count = 0;
    for (const name of DICT_COLUMNS) this.dicts[name].reset();
  }
}

/** Turns a block's rows into one uncompressed buffer (and takes its attrs: the rows' attrs start afresh). */
export function encodeBlock(rows: BlockRows): Buffer {
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
    dicts[name] = rows.dicts[name].list;
    columns[name] = packColumn(rows.ids[name], n, place);
  }
  const attrs = rows.attrs.take(n);
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
