// Writing events into blocks (inside the writer's transaction): rows come in
// global order and take consecutive seqs from 1; every BLOCK_EVENTS rows
// become one compressed block and its side-table rows.

import type { Statement } from "better-sqlite3";
import { NUMBER_WIDTH, ROW_WIDTH, STRING_WIDTH, type RowBatch } from "../rows.js";
import { compress } from "../codec.js";
import { newAttrsRemap, type AttrsRemap } from "./attrsEncode.js";
import type { IncidentDb } from "../db.js";
import { BlockRows, DICT_COLUMNS, encodeBlock, NUMERIC_COLUMNS } from "./blockCodec.js";
import { BLOCK_EVENTS, KeyDim, rankKey, type BlockTables } from "./blockTables.js";
import type { Interner } from "./interner.js";

/** NUMERIC_COLUMNS after seq, in the order of a row's numbers (store/rows.ts NUMBER_COLUMNS). */
const ROW_NUMBERS = NUMERIC_COLUMNS.slice(1);

export interface BlockWriterStart {
  /** The seq of the first event to be written. */
  nextSeq: number;
  /** The number of the first block to be written. */
  nextBlock: number;
}

export class BlockWriter {
  private readonly rows = new BlockRows(BLOCK_EVENTS);
  private nextSeq: number;
  private nextBlock: number;
  private readonly insertBlock: Statement;
  private readonly insertData: Statement;
  private readonly insertKey: Statement;
  private readonly remaps = new WeakMap<RowBatch, BatchRemap>();
  private lastRemap: BatchRemap | null = null;
  /** The block's columns by position in a batch row (NUMBER_COLUMNS, then STRING_COLUMNS order), and the dictionaries. */
  private readonly rowNumbers: Float64Array[];
  private readonly idColumns: Float64Array[];
  private readonly dicts: Interner[];

  constructor(db: IncidentDb, tables: BlockTables, start: BlockWriterStart) {
    this.nextSeq = start.nextSeq;
    this.nextBlock = start.nextBlock;
    this.rowNumbers = ROW_NUMBERS.map((c) => this.rows.num[c]);
    this.idColumns = DICT_COLUMNS.map((c) => this.rows.ids[c]);
    this.dicts = DICT_COLUMNS.map((c) => this.rows.dicts[c]);
    this.insertBlock = db.prepare(
      `INSERT INTO ${tables.blocks} (block, first_seq, last_seq, count, min_ts_us, max_ts_us, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertData = db.prepare(`INSERT INTO ${tables.data} (block, data) VALUES (?, ?)`);
    this.insertKey = db.prepare(`INSERT INTO ${tables.keys} (dim, key, block) VALUES (?, ?, ?)`);
  }

  /** The seq the next event will take. */
  get seqAfter(): number {
    return this.nextSeq;
  }

  /** Appends row i of a batch. */
  addRow(batch: RowBatch, i: number): void {
    const r = this.rows;
    const at = r.count;
    r.num.seq[at] = this.nextSeq++;
    const num = batch.numbers;
    const a = i * NUMBER_WIDTH;
    const numbers = this.rowNumbers;
    for (let c = 0; c < NUMBER_WIDTH; c++) numbers[c]![at] = num[a + c]!;
    const remap = this.remapOf(batch);
    const refs = batch.stringRefs;
    const s = i * STRING_WIDTH;
    const idColumns = this.idColumns;
    for (let c = 0; c < STRING_WIDTH; c++) {
      const ref = refs[s + c]!;
      if (ref < 0) {
        idColumns[c]![at] = NaN;
        continue;
      }
      const ids = remap.dict[c]!;
      let id = ids[ref]!;
      if (id < 0) ids[ref] = id = this.dicts[c]!.id(batch.strings[ref]!);
      idColumns[c]![at] = id;
    }
    r.attrs.addBatchRow(at, batch.attrs, i, batch.strings, remap.attrs);
    if (++r.count === BLOCK_EVENTS) this.flush();
  }

  /** Appends a row given as its values in store/rows.ts EVENT_COLUMNS order (null for NULL; attrs an object or its JSON text). */
  addValues(row: readonly unknown[]): void {
    const r = this.rows;
    const at = r.count;
    r.num.seq[at] = this.nextSeq++;
    for (let c = 0; c < NUMBER_WIDTH; c++) {
      const v = row[c];
      r.num[ROW_NUMBERS[c]!][at] = v === null || v === undefined ? NaN : (v as number);
    }
    for (let c = 0; c < STRING_WIDTH; c++) r.setString(DICT_COLUMNS[c]!, at, (row[NUMBER_WIDTH + c] as string | null) ?? null);
    const attrs = row[ROW_WIDTH - 1] ?? null;
    r.attrs.addObject(at, typeof attrs === "string" ? attrsObject(attrs, r.num.seq[at]!) : (attrs as Record<string, unknown> | null), r.num.pageLo[at]!, r.num.pageHi[at]!);
    if (++r.count === BLOCK_EVENTS) this.flush();
  }

  /** Writes the rows gathered so far as a (possibly short) block. */
  flush(): void {
    const r = this.rows;
    const n = r.count;
    if (n === 0) return;
    const block = this.nextBlock++;
    const data = compress(encodeBlock(r));
    const ts = r.num.tsUs;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      if (ts[i]! < min) min = ts[i]!;
      if (ts[i]! > max) max = ts[i]!;
    }
    this.insertBlock.run(block, r.num.seq[0], r.num.seq[n - 1], n, min, max, data.byteLength);
    this.insertData.run(block, data);
    for (const [dim, keys] of blockKeys(r)) for (const key of keys) this.insertKey.run(dim, key, block);
    r.reset();
  }

  /** The batch's ids in the block being built: made afresh for each block a batch's rows go to. */
  private remapOf(batch: RowBatch): BatchRemap {
    // Rows come in runs of one batch: the last one's remap is tried before the map.
    const last = this.lastRemap;
    if (last !== null && last.batch === batch && last.block === this.nextBlock) return last;
    let remap = this.remaps.get(batch);
    if (remap === undefined || remap.block !== this.nextBlock) {
      const strings = batch.strings.length;
      remap = {
        batch,
        block: this.nextBlock,
        dict: DICT_COLUMNS.map(() => new Int32Array(strings).fill(-1)),
        attrs: newAttrsRemap(batch.attrs, strings),
      };
      this.remaps.set(batch, remap);
    }
    this.lastRemap = remap;
    return remap;
  }
}

/** A batch's string, shape and nested-value ids turned into the current block's. */
interface BatchRemap {
  batch: RowBatch;
  block: number;
  /** Per dictionary column (DICT_COLUMNS order): batch string id → block dictionary id, -1 until seen. */
  dict: Int32Array[];
  attrs: AttrsRemap;
}

function attrsObject(text: string, seq: number): Record<string, unknown> {
  const obj: unknown = JSON.parse(text);
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw new Error(`event seq ${seq}: attrs is not a JSON object`);
  return obj as Record<string, unknown>;
}

/** Equal numbers, NaN (NULL) equal to NaN. */
function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** The distinct kinds, ranks, sources and rooms of a block's rows. */
function blockKeys(r: BlockRows): [KeyDim, Iterable<string>][] {
  const ranks = new Set<string>();
  const sources = new Set<string>();
  const { host, role } = r.ids;
  const { tp, sourceId } = r.num;
  const hosts = r.dicts.host.list;
  const roles = r.dicts.role.list;
  // Neighbouring rows mostly share their rank and source: a key is made only where one changes.
  let h = -1;
  let o = -1;
  let t = -1;
  let src = -1;
  for (let i = 0; i < r.count; i++) {
    if (i === 0 || !same(tp[i]!, t) || !same(host[i]!, h) || !same(role[i]!, o)) {
      t = tp[i]!;
      h = host[i]!;
      o = role[i]!;
      ranks.add(rankKey(h === h ? hosts[h]! : null, o === o ? roles[o]! : null, t === t ? t : null));
    }
    if (i === 0 || sourceId[i] !== src) sources.add(String((src = sourceId[i]!)));
  }
  // A dictionary holds exactly the values its block's rows use.
  return [
    [KeyDim.kind, r.dicts.kind.list],
    [KeyDim.rank, ranks],
    [KeyDim.source, sources],
    [KeyDim.room, r.dicts.room.list],
  ];
}
