// Writing events into blocks (inside the writer's transaction): rows come in
// global order and take consecutive seqs from 1; every BLOCK_EVENTS rows
// become one compressed block and its side-table rows.

import type { Statement } from "better-sqlite3";
import { NUMBER_WIDTH, ROW_WIDTH, STRING_WIDTH, type RowBatch } from "../../rows.js";
import { compress } from "../codec.js";
import type { IncidentDb } from "../db.js";
import { BlockRows, DICT_COLUMNS, encodeBlock, NUMERIC_COLUMNS } from "./blockCodec.js";
import { BLOCK_EVENTS, KeyDim, rankKey, type BlockTables } from "./blockTables.js";

/** NUMERIC_COLUMNS after seq, in the order of a row's numbers (ingest/rows.ts NUMBER_COLUMNS). */
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

  constructor(db: IncidentDb, tables: BlockTables, start: BlockWriterStart) {
    this.nextSeq = start.nextSeq;
    this.nextBlock = start.nextBlock;
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
    for (let c = 0; c < NUMBER_WIDTH; c++) r.num[ROW_NUMBERS[c]!][at] = num[a + c]!;
    const refs = batch.stringRefs;
    const s = i * STRING_WIDTH;
    for (let c = 0; c < STRING_WIDTH; c++) {
      const ref = refs[s + c]!;
      r.str[DICT_COLUMNS[c]!][at] = ref < 0 ? null : batch.strings[ref]!;
    }
    r.attrs[at] = batch.attrs[i] ?? null;
    if (++r.count === BLOCK_EVENTS) this.flush();
  }

  /** Appends a row given as its values in ingest/rows.ts EVENT_COLUMNS order (null for NULL). */
  addValues(row: readonly unknown[]): void {
    const r = this.rows;
    const at = r.count;
    r.num.seq[at] = this.nextSeq++;
    for (let c = 0; c < NUMBER_WIDTH; c++) {
      const v = row[c];
      r.num[ROW_NUMBERS[c]!][at] = v === null || v === undefined ? NaN : (v as number);
    }
    for (let c = 0; c < STRING_WIDTH; c++) r.str[DICT_COLUMNS[c]!][at] = (row[NUMBER_WIDTH + c] as string | null) ?? null;
    r.attrs[at] = (row[ROW_WIDTH - 1] as string | null) ?? null;
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
    r.count = 0;
    r.attrs.fill(null);
  }
}

/** The distinct kinds, ranks, sources and rooms of a block's rows. */
function blockKeys(r: BlockRows): [KeyDim, Set<string>][] {
  const kinds = new Set<string>();
  const ranks = new Set<string>();
  const sources = new Set<string>();
  const rooms = new Set<string>();
  const { kind, host, role, room } = r.str;
  const { tp, sourceId } = r.num;
  for (let i = 0; i < r.count; i++) {
    kinds.add(kind[i]!);
    const t = tp[i]!;
    ranks.add(rankKey(host[i] ?? null, role[i] ?? null, t === t ? t : null));
    sources.add(String(sourceId[i]));
    const rm = room[i];
    if (rm !== null && rm !== undefined) rooms.add(rm);
  }
  return [
    [KeyDim.kind, kinds],
    [KeyDim.rank, ranks],
    [KeyDim.source, sources],
    [KeyDim.room, rooms],
  ];
}
