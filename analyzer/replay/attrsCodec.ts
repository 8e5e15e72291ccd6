// `attrs` in the column cache. Parsing an event's attrs JSON when the model
// reads it costs about a microsecond, as much as the model's own work on the
// event, and nearly every probe record's attrs differ (pages, tags, rooms). So
// the cache parses them once, when it is built, and keeps per chunk:
//   - shapes: the distinct ordered key lists, and each event's shape;
//   - a value stream: for every key of every event in order, a tag and a number
//     (the number itself, or an index into the chunk's strings or JSON texts);
//   - `pages` equal to the event's own [pageLo, pageHi) hull as a bare tag.
// Reading an event's attrs rebuilds the object from its shape and values,
// equal to what JSON.parse of the stored text gives, without parsing text.

import { PackedColumn } from "./packedColumn.js";

const TAG_NUMBER = 0;
const TAG_STRING = 1;
const TAG_TRUE = 2;
const TAG_FALSE = 3;
const TAG_NULL = 4;
const TAG_JSON = 5;
const TAG_PAGE_HULL = 6;

export interface AttrsTables {
  shapes: string[][];
  strings: string[];
  json: string[];
}

export interface EncodedAttrs extends AttrsTables {
  /** Per event: its shape, NaN when the event has no attrs. */
  shapeIds: Float64Array;
  tags: Uint8Array;
  values: Float64Array;
}

class Interner {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      this.ids.set(s, (i = this.list.length));
      this.list.push(s);
    }
    return i;
  }
}

function isHull(v: unknown, lo: number | null, hi: number | null): boolean {
  if (!Array.isArray(v) || v.length !== 1 || lo === null) return false;
  const r: unknown = v[0];
  return Array.isArray(r) && r.length === 2 && r[0] === lo && r[1] === hi;
}

/** Encodes the attrs texts of one chunk; `pageLo`/`pageHi` are the events' page columns. */
export function encodeAttrs(
  texts: readonly (string | null)[],
  pageLo: readonly (number | null)[],
  pageHi: readonly (number | null)[],
  seqs: readonly number[],
): EncodedAttrs {
  const n = texts.length;
  const shapes = new Interner();
  const strings = new Interner();
  const json = new Interner();
  const shapeIds = new Float64Array(n);
  const tags: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const text = texts[i];
    if (text === null || text === undefined) {
      shapeIds[i] = NaN;
      continue;
    }
    const obj: unknown = JSON.parse(text);
    if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
      throw new Error(`event seq ${seqs[i]}: attrs is not a JSON object`);
    }
    const keys = Object.keys(obj);
    shapeIds[i] = shapes.id(JSON.stringify(keys));
    for (const key of keys) {
      const v = (obj as Record<string, unknown>)[key];
      if (typeof v === "number") (tags.push(TAG_NUMBER), values.push(v));
      else if (typeof v === "string") (tags.push(TAG_STRING), values.push(strings.id(v)));
      else if (v === true) (tags.push(TAG_TRUE), values.push(0));
      else if (v === false) (tags.push(TAG_FALSE), values.push(0));
      else if (v === null) (tags.push(TAG_NULL), values.push(0));
      else if (key === "pages" && isHull(v, pageLo[i] ?? null, pageHi[i] ?? null)) (tags.push(TAG_PAGE_HULL), values.push(0));
      else (tags.push(TAG_JSON), values.push(json.id(JSON.stringify(v))));
    }
  }
  return {
    shapes: shapes.list.map((s) => JSON.parse(s) as string[]),
    strings: strings.list,
    json: json.list,
    shapeIds,
    tags: Uint8Array.from(tags),
    values: Float64Array.from(values),
  };
}

/** A decoded chunk's attrs: rebuilds event i's object on demand. */
export class AttrsReader {
  private tables: AttrsTables = { shapes: [], strings: [], json: [] };
  private jsonParsed: unknown[] = [];
  private shapeIds: Float64Array;
  private starts: Uint32Array;
  private tags: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private values = new PackedColumn();

  constructor(capacity: number) {
    this.shapeIds = new Float64Array(capacity);
    this.starts = new Uint32Array(capacity);
  }

  /** Takes a chunk's tables, its events' shapes (NaN: no attrs) and its value stream. */
  load(tables: AttrsTables, count: number, shapes: PackedColumn, tags: Uint8Array, values: PackedColumn): void {
    this.tables = tables;
    this.jsonParsed = new Array(tables.json.length);
    let at = 0;
    for (let i = 0; i < count; i++) {
      this.starts[i] = at;
      const s = shapes.at(i);
      this.shapeIds[i] = s === s ? s : -1;
      if (s === s) at += tables.shapes[s]!.length;
    }
    this.tags = tags;
    this.values = values;
  }

  /**
   * Event i's attrs, or null. Nested values (arrays, objects) are shared by the
   * events of a chunk that hold equal ones, so readers must not modify them.
   */
  object(i: number, pageLo: number, pageHi: number): Record<string, unknown> | null {
    const shape = this.shapeIds[i]!;
    if (shape < 0) return null;
    const keys = this.tables.shapes[shape]!;
    const out: Record<string, unknown> = {};
    let at = this.starts[i]!;
    for (let k = 0; k < keys.length; k++, at++) {
      const v = this.values.at(at);
      switch (this.tags[at]) {
        case TAG_NUMBER:
          out[keys[k]!] = v;
          break;
        case TAG_STRING:
          out[keys[k]!] = this.tables.strings[v];
          break;
        case TAG_TRUE:
          out[keys[k]!] = true;
          break;
        case TAG_FALSE:
          out[keys[k]!] = false;
          break;
        case TAG_NULL:
          out[keys[k]!] = null;
          break;
        case TAG_PAGE_HULL:
          out[keys[k]!] = [[pageLo, pageHi]];
          break;
        default:
          out[keys[k]!] = this.nested(v);
      }
    }
    return out;
  }

  private nested(id: number): unknown {
    let v = this.jsonParsed[id];
    if (v === undefined) this.jsonParsed[id] = v = JSON.parse(this.tables.json[id]!);
    return v;
  }
}
