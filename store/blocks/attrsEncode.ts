// Encoding events' attrs into the value stream of attrsCodec.ts, in two
// steps: a parse worker encodes each row's attrs object into its batch
// (AttrsRowsBuilder: batch-local ids), and the store thread copies a row's
// values into its block, turning batch ids into block ids once per batch and
// block (AttrsBlockBuilder), so no JSON text is made or parsed between them.
// Rows read back from the store for a rebuild arrive as attrs objects.

import { Interner } from "./interner.js";
import { TAG_FALSE, TAG_JSON, TAG_NULL, TAG_NUMBER, TAG_PAGE_HULL, TAG_STRING, TAG_TRUE, type EncodedAttrs } from "./attrsCodec.js";

/** Where an event's attrs are appended: a shape id for its key list, and ids for its strings and nested values. */
export interface AttrsSink {
  shapeId(keys: string[]): number;
  /** `slot`: the key's place in the shape last given to shapeId. */
  stringId(s: string, slot: number): number;
  jsonId(text: string): number;
  push(tag: number, value: number): void;
}

function isHull(v: unknown, lo: number, hi: number): boolean {
  if (!Array.isArray(v) || v.length !== 1 || lo !== lo) return false;
  const r: unknown = v[0];
  return Array.isArray(r) && r.length === 2 && r[0] === lo && r[1] === hi;
}

/** A value JSON.stringify leaves out of an object. */
function isDropped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

function hasDropped(attrs: Record<string, unknown>, keys: readonly string[]): boolean {
  for (let i = 0; i < keys.length; i++) if (isDropped(attrs[keys[i]!])) return true;
  return false;
}

/** JSON's reading of a nested value; a BigInt a parser left in it is kept as its exact decimal string. */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
  }
}

/**
 * Appends one event's attrs to `sink` as JSON.parse(JSON.stringify(attrs))
 * would give them back: keys with undefined or function values are dropped,
 * non-finite numbers are null, a BigInt is its decimal string. `pageLo`/`pageHi`
 * are the event's page columns (NaN: NULL). Returns the shape id, -1 when the
 * event has no attrs.
 */
export function appendAttrs(attrs: Record<string, unknown> | null | undefined, pageLo: number, pageHi: number, sink: AttrsSink): number {
  if (attrs === null || attrs === undefined) return -1;
  let keys = Object.keys(attrs);
  if (keys.length === 0) return -1;
  if (hasDropped(attrs, keys)) keys = keys.filter((k) => !isDropped(attrs[k]));
  const shape = sink.shapeId(keys);
  for (let slot = 0; slot < keys.length; slot++) {
    const key = keys[slot]!;
    const v = attrs[key];
    if (typeof v === "number") {
      if (Number.isFinite(v)) sink.push(TAG_NUMBER, v === 0 ? 0 : v);
      else sink.push(TAG_NULL, 0);
    } else if (typeof v === "string") sink.push(TAG_STRING, sink.stringId(v, slot));
    else if (v === true) sink.push(TAG_TRUE, 0);
    else if (v === false) sink.push(TAG_FALSE, 0);
    else if (v === null) sink.push(TAG_NULL, 0);
    else if (typeof v === "bigint") sink.push(TAG_STRING, sink.stringId(v.toString(), slot));
    else if (key === "pages" && isHull(v, pageLo, pageHi)) sink.push(TAG_PAGE_HULL, 0);
    else sink.push(TAG_JSON, sink.jsonId(jsonText(v)));
  }
  return shape;
}

/** A growable typed array. */
class Growable<T extends Uint8Array | Float64Array> {
  length = 0;
  constructor(
    public data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  take(): T {
    return this.data.slice(0, this.length) as T;
  }
}

/** The value stream of a batch or a block (attrsCodec.ts): a tag and a number per value, and the nested values' JSON. */
class ValueStream {
  readonly tags: Growable<Uint8Array>;
  readonly values: Growable<Float64Array>;
  readonly json = new Interner();

  constructor(capacity: number) {
    this.tags = new Growable(new Uint8Array(capacity), (n) => new Uint8Array(n));
    this.values = new Growable(new Float64Array(capacity), (n) => new Float64Array(n));
  }

  get length(): number {
    return this.tags.length;
  }

  push(tag: number, value: number): void {
    this.tags.push(tag);
    this.values.push(value);
  }

  /** The stream so far; it starts afresh. */
  take(): { tags: Uint8Array; values: Float64Array; json: string[] } {
    const out = { tags: this.tags.take(), values: this.values.take(), json: this.json.list };
    this.tags.length = 0;
    this.values.length = 0;
    this.json.reset();
    return out;
  }
}

/**
 * The attrs of a batch of rows as a parse worker encodes them (its strings are
 * the batch's string table), so the store thread copies values instead of
 * parsing JSON.
 */
export interface AttrsRows {
  /** Per row: its shape, -1 when it has no attrs. */
  shape: Int32Array;
  /** Per row: where its values start in tags/values. */
  start: Uint32Array;
  shapes: string[][];
  tags: Uint8Array;
  values: Float64Array;
  json: string[];
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where a batch's strings go: `ref` gives equal strings one id, `append` a new id each (rows.ts BatchStrings). */
export interface BatchStringTable {
  readonly length: number;
  ref(s: string): number;
  append(s: string): number;
}

/**
 * A shape's slot whose first SAMPLE_LOOKUPS strings in a batch found fewer
 * than SAMPLE_REPEATS already in its table holds values that seldom repeat
 * (a notification tag, an error text): the rest of the batch appends them
 * unhashed. Hashing a string per row into the batch's map cost more than the
 * rest of the row's attrs.
 */
const SAMPLE_LOOKUPS = 256;
const SAMPLE_REPEATS = 8;

/** Builds a batch's AttrsRows, row by row; strings go to the batch's table. */
export class AttrsRowsBuilder implements AttrsSink {
  private shapeList: string[][] = [];
  /** Shape ids by their first key. */
  private shapeIds = new Map<string, number[]>();
  /** Per shape, per slot: strings looked up and found already in the table, while sampling. */
  private slotSamples: Int32Array[] = [];
  private currentShape = -1;
  private readonly stream = new ValueStream(1024);
  private shape: Int32Array;
  private start: Uint32Array;
  private n = 0;

  constructor(
    capacity: number,
    private readonly strings: BatchStringTable,
  ) {
    this.shape = new Int32Array(capacity);
    this.start = new Uint32Array(capacity);
  }

  stringId(s: string, slot: number): number {
    const sample = this.slotSamples[this.currentShape]!;
    const looked = sample[2 * slot]!;
    if (looked >= SAMPLE_LOOKUPS) return sample[2 * slot + 1]! < SAMPLE_REPEATS ? this.strings.append(s) : this.strings.ref(s);
    const size = this.strings.length;
    const id = this.strings.ref(s);
    sample[2 * slot] = looked + 1;
    if (id < size) sample[2 * slot + 1]!++;
    return id;
  }

  addRow(attrs: Record<string, unknown> | undefined, pageLo: number, pageHi: number): void {
    this.start[this.n] = this.stream.length;
    this.shape[this.n++] = appendAttrs(attrs, pageLo, pageHi, this);
  }

  /**
   * Key lists are found by their first key, then compared key by key: a batch
   * holds a few dozen shapes, and property names are interned strings, so this
   * is cheaper than building a text key per event.
   */
  shapeId(keys: string[]): number {
    const first = keys[0] ?? "";
    let bucket = this.shapeIds.get(first);
    if (bucket === undefined) this.shapeIds.set(first, (bucket = []));
    for (const id of bucket) if (sameKeys(this.shapeList[id]!, keys)) return (this.currentShape = id);
    const id = this.shapeList.length;
    this.shapeList.push(keys);
    this.slotSamples.push(new Int32Array(2 * keys.length));
    bucket.push(id);
    return (this.currentShape = id);
  }

  jsonId(text: string): number {
    return this.stream.json.id(text);
  }

  push(tag: number, value: number): void {
    this.stream.push(tag, value);
  }

  /** The rows so far; the builder starts afresh. */
  take(): AttrsRows {
    const out: AttrsRows = {
      shape: this.shape.slice(0, this.n),
      start: this.start.slice(0, this.n),
      shapes: this.shapeList,
      ...this.stream.take(),
    };
    this.n = 0;
    this.shapeList = [];
    this.shapeIds = new Map();
    this.slotSamples = [];
    return out;
  }
}

/** A batch's ids in the block being built (-1: not seen in this block yet). */
export interface AttrsRemap {
  shape: Int32Array;
  string: Int32Array;
  json: Int32Array;
}

export function newAttrsRemap(rows: AttrsRows, strings: number): AttrsRemap {
  return {
    shape: new Int32Array(rows.shapes.length).fill(-1),
    string: new Int32Array(strings).fill(-1),
    json: new Int32Array(rows.json.length).fill(-1),
  };
}

/** The attrs of one block as they are gathered, from batches or from attrs objects. */
export class AttrsBlockBuilder implements AttrsSink {
  private readonly shapes = new Interner();
  private shapeList: string[][] = [];
  private readonly strings = new Interner();
  private readonly stream = new ValueStream(16384);
  readonly shapeIds: Float64Array;

  constructor(capacity: number) {
    this.shapeIds = new Float64Array(capacity);
  }

  /** Event `at` of the block takes these attrs (an object, or JSON text as stored rows carry it). */
  addObject(at: number, attrs: Record<string, unknown> | null, pageLo: number, pageHi: number): void {
    const shape = appendAttrs(attrs, pageLo, pageHi, this);
    this.shapeIds[at] = shape < 0 ? NaN : shape;
  }

  /** Event `at` of the block takes row i of a batch's attrs; `strings` is the batch's string table. */
  addBatchRow(at: number, rows: AttrsRows, i: number, strings: readonly string[], remap: AttrsRemap): void {
    const s = rows.shape[i]!;
    if (s < 0) {
      this.shapeIds[at] = NaN;
      return;
    }
    let shape = remap.shape[s]!;
    if (shape < 0) remap.shape[s] = shape = this.shapeId(rows.shapes[s]!);
    this.shapeIds[at] = shape;
    const from = rows.start[i]!;
    const to = from + rows.shapes[s]!.length;
    for (let k = from; k < to; k++) {
      const tag = rows.tags[k]!;
      let v = rows.values[k]!;
      if (tag === TAG_STRING) {
        const id = remap.string[v]!;
        v = id >= 0 ? id : (remap.string[v] = this.strings.id(strings[v]!));
      } else if (tag === TAG_JSON) {
        const id = remap.json[v]!;
        v = id >= 0 ? id : (remap.json[v] = this.stream.json.id(rows.json[v]!));
      }
      this.push(tag, v);
    }
  }

  shapeId(keys: string[]): number {
    const id = this.shapes.id(JSON.stringify(keys));
    if (id === this.shapeList.length) this.shapeList.push(keys);
    return id;
  }

  stringId(s: string): number {
    return this.strings.id(s);
  }

  jsonId(text: string): number {
    return this.stream.json.id(text);
  }

  push(tag: number, value: number): void {
    this.stream.push(tag, value);
  }

  /** The block's attrs for `count` events; the builder starts afresh. */
  take(count: number): EncodedAttrs {
    const out: EncodedAttrs = {
      shapes: this.shapeList,
      strings: this.strings.list,
      shapeIds: this.shapeIds.slice(0, count),
      ...this.stream.take(),
    };
    this.shapes.reset();
    this.shapeList = [];
    this.strings.reset();
    return out;
  }
}

