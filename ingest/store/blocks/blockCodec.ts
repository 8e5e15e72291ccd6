// The binary form of a block of events, the canonical store of the events
// (DESIGN.md "Canonical store"; docs/store.md): ~4,096 consecutive events in
// seq order, each column typed. Every integer column is frame-of-reference
// packed (base + u8/u16/u32 offsets, the widest value reserved for NULL),
// strings (kind, host, role, room, rid) are per-block dictionaries, and
// `attrs` is stored parsed (attrsCodec.ts: key shapes and a typed value
// stream, no JSON text per event). The whole block is then compressed
// (codec.ts). Decoding a block parses its header and makes typed-array views
// of its columns, read in place, so a reader allocates nothing per event but
// the attrs objects it asks for.

import { decompress } from "../codec.js";
import { AttrsReader, encodeAttrs, type AttrsTables } from "./attrsCodec.js";
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

/** The events of one block as they are gathered: a column array each (NaN / null for NULL). */
export class BlockRows {
  count = 0;
  readonly num: Record<NumericColumn, Float64Array>;
  readonly str: Record<DictColumn, (string | null)[]>;
  /** Each event's attrs as JSON text (what the parse workers send), null for none. */
  readonly attrs: (string | null)[];

  constructor(readonly capacity: number) {
    this.num = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, new Float64Array(capacity)])) as BlockRows["num"];
    this.str = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new Array<string | null>(capacity).fill(null)])) as BlockRows["str"];
    this.attrs = new Array<string | null>(capacity).fill(null);
  }

  get full(): boolean {
    return this.count === this.capacity;
  }
}

/** Turns a block's rows into one uncompressed buffer. */
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
  const values = new Float64Array(n);
  const dicts = {} as BlockHeader["dicts"];
  for (const name of DICT_COLUMNS) {
    const column = rows.str[name];
    const ids = new Map<string, number>();
    const dict: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = column[i]!;
      if (v === null) {
        values[i] = NaN;
        continue;
      }
      let id = ids.get(v);
      if (id === undefined) {
        id = dict.length;
        dict.push(v);
        ids.set(v, id);
      }
      values[i] = id;
    }
    dicts[name] = dict;
    columns[name] = packColumn(values, n, place);
  }
  const attrs = encodeAttrs(rows.attrs.slice(0, n), rows.num.pageLo, rows.num.pageHi, rows.num.seq);
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

  constructor(readonly capacity: number) {
    this.num = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, new PackedColumn()])) as DecodedBlock["num"];
    this.ids = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new PackedColumn()])) as DecodedBlock["ids"];
    this.attrs = new AttrsReader(capacity);
  }

  /** Decompresses and decodes a stored block (the columns are views of the decompressed bytes). */
  decode(stored: Uint8Array): this {
    const raw = decompress(stored);
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
    this.attrs.load(a, n, this.shapes, tags, this.attrValues);
    return this;
  }
}

/** Typed-array views need their element alignment; small Buffers may sit anywhere in Node's pool. */
function alignedCopy(blob: Uint8Array): Buffer {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return Buffer.from(copy.buffer);
}
