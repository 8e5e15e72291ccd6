// `attrs` in an event block. Parsing an event's attrs JSON when the model
// reads it costs as much as the model's own work on the event, and nearly every probe record's attrs differ (pages, tags, rooms). So
// the store parses them once, at ingest, and keeps per block:
//   - shapes: the distinct ordered key lists, and each event's shape;
//   - a value stream: for every key of every event in order, a tag and a number
//     (the number itself, or an index into the block's strings or JSON texts);
//   - `pages` equal to the event's own [pageLo, pageHi) hull as a bare tag.
// Reading an event's attrs rebuilds the object from its shape and values,
// equal to what JSON.parse of the stored text gives, without parsing text.
// Encoding is attrsEncode.ts.

import { PackedColumn } from "./packedColumn.js";

export const TAG_NUMBER = 0;
export const TAG_STRING = 1;
export const TAG_TRUE = 2;
export const TAG_FALSE = 3;
export const TAG_NULL = 4;
export const TAG_JSON = 5;
export const TAG_PAGE_HULL = 6;

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

/** A decoded block's attrs: rebuilds event i's object on demand. */
export class AttrsReader {
  private tables: AttrsTables = { shapes: [], strings: [], json: [] };
  private jsonParsed: unknown[] = [];
  /** Per shape, `{"key":` and then `,"key":` for each key, or null where JSON.stringify would reorder or drop keys. */
  private shapeKeysJson: (string[] | null | undefined)[] = [];
  private stringsJson: (string | undefined)[] = [];
  private shapeIds: Float64Array;
  private starts: Uint32Array;
  private tags: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private values = new PackedColumn();
  /** The block's page columns: a bare hull tag reads its event's [pageLo, pageHi) only when the value is asked for. */
  private pageLo = new PackedColumn();
  private pageHi = new PackedColumn();

  constructor(capacity: number) {
    this.shapeIds = new Float64Array(capacity);
    this.starts = new Uint32Array(capacity);
  }

  /** Takes a block's tables, its events' shapes (NaN: no attrs), its value stream and its page columns. */
  load(tables: AttrsTables, count: number, shapes: PackedColumn, tags: Uint8Array, values: PackedColumn, pageLo: PackedColumn, pageHi: PackedColumn): void {
    this.tables = tables;
    this.jsonParsed = new Array(tables.json.length);
    this.shapeKeysJson = new Array(tables.shapes.length);
    this.stringsJson = new Array(tables.strings.length);
    let at = 0;
    for (let i = 0; i < count; i++) {
      this.starts[i] = at;
      const s = shapes.at(i);
      this.shapeIds[i] = s === s ? s : -1;
      if (s === s) at += tables.shapes[s]!.length;
    }
    this.tags = tags;
    this.values = values;
    this.pageLo = pageLo;
    this.pageHi = pageHi;
  }

  /**
   * Event i's attrs, or null. Nested values (arrays, objects) are shared by the
   * events of a block that hold equal ones, so readers must not modify them.
   */
  object(i: number): Record<string, unknown> | null {
    const shape = this.shapeIds[i]!;
    if (shape < 0) return null;
    const keys = this.tables.shapes[shape]!;
    const out: Record<string, unknown> = {};
    const start = this.starts[i]!;
    for (let k = 0; k < keys.length; k++) out[keys[k]!] = this.valueAt(start + k, i);
    return out;
  }

  /**
   * JSON.stringify(object(i)), written from the value stream without building
   * the object (SQL's `events.attrs` is this text for every event it scans).
   */
  json(i: number): string | null {
    const shape = this.shapeIds[i]!;
    if (shape < 0) return null;
    const keys = this.keysJson(shape);
    if (keys === null) return JSON.stringify(this.object(i));
    if (keys.length === 0) return "{}";
    const start = this.starts[i]!;
    let out = "";
    for (let k = 0; k < keys.length; k++) out += keys[k]! + this.valueJson(start + k, i);
    return out + "}";
  }

  private keysJson(shape: number): string[] | null {
    let keys = this.shapeKeysJson[shape];
    if (keys === undefined) {
      const list = this.tables.shapes[shape]!;
      // An object lists integer-like keys first, and `__proto__` sets its prototype: such shapes go through the object.
      const plain = list.every((k) => k !== "__proto__" && !/^(0|[1-9][0-9]*)$/.test(k));
      this.shapeKeysJson[shape] = keys = plain ? list.map((k, n) => (n === 0 ? "{" : ",") + JSON.stringify(k) + ":") : null;
    }
    return keys;
  }

  private valueJson(at: number, row: number): string {
    const v = this.values.at(at);
    switch (this.tags[at]) {
      case TAG_NUMBER:
        return Number.isFinite(v) ? String(v) : "null";
      case TAG_STRING:
        return (this.stringsJson[v] ??= JSON.stringify(this.tables.strings[v]));
      case TAG_TRUE:
        return "true";
      case TAG_FALSE:
        return "false";
      case TAG_NULL:
        return "null";
      case TAG_PAGE_HULL:
        return `[[${this.pageLo.at(row)},${this.pageHi.at(row)}]]`;
      default:
        return this.tables.json[v]!;
    }
  }

  /** `object(i)[key]` without building the object: the one value, or undefined when event i has no such attribute. */
  value(i: number, key: string): unknown {
    const shape = this.shapeIds[i]!;
    if (shape < 0) return undefined;
    const keys = this.tables.shapes[shape]!;
    for (let k = 0; k < keys.length; k++) if (keys[k] === key) return this.valueAt(this.starts[i]! + k, i);
    return undefined;
  }

  /** Value `at` of the block's value stream, a value of event `row`. */
  private valueAt(at: number, row: number): unknown {
    const v = this.values.at(at);
    switch (this.tags[at]) {
      case TAG_NUMBER:
        return v;
      case TAG_STRING:
        return this.tables.strings[v];
      case TAG_TRUE:
        return true;
      case TAG_FALSE:
        return false;
      case TAG_NULL:
        return null;
      case TAG_PAGE_HULL:
        return [[this.pageLo.at(row), this.pageHi.at(row)]];
      default:
        return this.nested(v);
    }
  }

  private nested(id: number): unknown {
    let v = this.jsonParsed[id];
    if (v === undefined) this.jsonParsed[id] = v = JSON.parse(this.tables.json[id]!);
    return v;
  }
}
