// The binary form of a chunk of events in the replay's column cache.
//
// Reading events row by row from SQLite costs about a microsecond per row on
// this class of machine (one native call per column), which caps a replay near
// 0.5 M events/s. The cache stores each run of events as columns instead: every
// integer column is frame-of-reference packed (base + u8/u16/u32 offsets, the
// widest value reserved for NULL), strings are per-chunk dictionaries, and
// `attrs` is stored parsed (attrsCodec.ts). Decoding a chunk parses its
// header and makes typed-array views of its columns, read in place, so the
// replay touches no SQLite and allocates nothing per event but the attrs
// objects the model asks for.

import { AttrsReader, encodeAttrs, type AttrsTables } from "./attrsCodec.js";
import { PackedColumn, packColumn, type PackedLayout } from "./packedColumn.js";

export const NUMERIC_COLUMNS = [
  "seq", "tsUs", "sourceId", "line", "dp", "pp", "tp", "chunk", "layer", "pageLo", "pageHi", "state", "tsInferred",
] as const;
export type NumericColumn = (typeof NUMERIC_COLUMNS)[number];

export const DICT_COLUMNS = ["host", "role", "kind", "room", "rid"] as const;
export type DictColumn = (typeof DICT_COLUMNS)[number];

/** One event as read from the `events` table, columns in the order of `EVENT_ROW_SQL`. */
export type EventRow = [
  seq: number, tsUs: number, sourceId: number, line: number, host: string | null, role: string | null,
  dp: number | null, pp: number | null, tp: number | null, kind: string, room: string | null, rid: string | null,
  chunk: number | null, layer: number | null, pageLo: number | null, pageHi: number | null, state: number | null,
  attrs: string | null, tsInferred: number | null,
];

export const EVENT_ROW_SQL =
  "seq, ts_us, source_id, line, host, role, dp, pp, tp, kind, room, rid, chunk, layer, page_lo, page_hi, state, attrs, ts_inferred";

const ROW_INDEX: Record<NumericColumn | DictColumn, number> = {
  seq: 0, tsUs: 1, sourceId: 2, line: 3, host: 4, role: 5, dp: 6, pp: 7, tp: 8, kind: 9, room: 10, rid: 11,
  chunk: 12, layer: 13, pageLo: 14, pageHi: 15, state: 16, tsInferred: 18,
};
const ATTRS_INDEX = 17;

interface ChunkHeader {
  count: number;
  columns: Record<NumericColumn | DictColumn, PackedLayout>;
  dicts: Record<DictColumn, string[]>;
  attrs: AttrsTables & { shape: PackedLayout; tags: { offset: number; length: number }; values: PackedLayout & { length: number } };
}

/** Turns up to a chunk's worth of rows into one buffer. */
export function encodeChunk(rows: readonly EventRow[]): Buffer {
  const n = rows.length;
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
  const values = new Float64Array(n);
  const columns = {} as ChunkHeader["columns"];
  for (const name of NUMERIC_COLUMNS) {
    const col = ROW_INDEX[name];
    for (let i = 0; i < n; i++) {
      const v = rows[i]![col] as number | null;
      values[i] = v === null ? NaN : v;
    }
    columns[name] = packColumn(values, n, place);
  }
  const dicts = {} as ChunkHeader["dicts"];
  for (const name of DICT_COLUMNS) {
    const col = ROW_INDEX[name];
    const ids = new Map<string, number>();
    const dict: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = rows[i]![col] as string | null;
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
  const attrs = encodeAttrs(
    rows.map((r) => r[ATTRS_INDEX]),
    rows.map((r) => r[ROW_INDEX.pageLo] as number | null),
    rows.map((r) => r[ROW_INDEX.pageHi] as number | null),
    rows.map((r) => r[0]),
  );
  const header: ChunkHeader = {
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


/** A decoded chunk: its columns read in place (NaN for NULL; dictionary columns hold indices), reused across chunks. */
export class DecodedChunk {
  count = 0;
  readonly num: Record<NumericColumn, PackedColumn>;
  readonly ids: Record<DictColumn, PackedColumn>;
  dicts: ChunkHeader["dicts"] = { host: [], role: [], kind: [], room: [], rid: [] };
  readonly attrs: AttrsReader;
  private readonly attrValues = new PackedColumn();
  private readonly shapes = new PackedColumn();

  constructor(readonly capacity: number) {
    this.num = Object.fromEntries(NUMERIC_COLUMNS.map((c) => [c, new PackedColumn()])) as DecodedChunk["num"];
    this.ids = Object.fromEntries(DICT_COLUMNS.map((c) => [c, new PackedColumn()])) as DecodedChunk["ids"];
    this.attrs = new AttrsReader(capacity);
  }

  /** Decodes `blob`, which must stay unchanged while the chunk is read (the columns are views of it). */
  decode(blob: Buffer): this {
    const buf = blob.byteOffset % 8 === 0 ? blob : alignedCopy(blob);
    const headerLength = buf.readUInt32LE(0);
    const header = JSON.parse(buf.toString("utf8", 8, 8 + headerLength)) as ChunkHeader;
    const body = 8 + headerLength + ((8 - (headerLength % 8)) % 8);
    const n = header.count;
    if (n > this.capacity) throw new Error(`column chunk of ${n} events exceeds ${this.capacity}`);
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
function alignedCopy(blob: Buffer): Buffer {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return Buffer.from(copy.buffer);
}
