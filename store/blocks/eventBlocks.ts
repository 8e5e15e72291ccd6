// Reading event blocks: the block list (seq and time ranges) read once per
// connection and again when another connection has committed, the blocks a
// key (kind, rank, source, room) occurs in from the side table, and decoded
// blocks kept in a small LRU so that neighbouring reads decode once.

import type { Statement } from "better-sqlite3";
import type { IncidentDb } from "../db.js";
import { DecodedBlock } from "./blockCodec.js";
import { BLOCK_EVENTS, KeyDim, LIVE_TABLES, type BlockTables } from "./blockTables.js";

export interface BlockMeta {
  block: number;
  firstSeq: number;
  lastSeq: number;
  count: number;
  minTsUs: number;
  maxTsUs: number;
  bytes: number;
}

/** Decoded blocks kept per reader: a window or a room spans a few; a merge of sources walks several in step. */
const DECODED_KEPT = 16;

export class EventBlocks {
  readonly list: BlockMeta[];
  private readonly byBlock = new Map<number, number>();
  private readonly readData: Statement;
  private readonly readKeys: Statement;
  private readonly keyRange: Statement;
  private readonly keyList: Statement;
  private readonly decoded = new Map<number, DecodedBlock>();

  constructor(db: IncidentDb, tables: BlockTables = LIVE_TABLES) {
    this.list = db
      .prepare(
        `SELECT block, first_seq AS firstSeq, last_seq AS lastSeq, count, min_ts_us AS minTsUs, max_ts_us AS maxTsUs, bytes FROM ${tables.blocks} ORDER BY first_seq`,
      )
      .all() as BlockMeta[];
    this.list.forEach((b, i) => this.byBlock.set(b.block, i));
    this.readData = db.prepare(`SELECT data FROM ${tables.data} WHERE block = ?`).pluck();
    this.readKeys = db.prepare(`SELECT block FROM ${tables.keys} WHERE dim = ? AND key = ?`).pluck();
    this.keyList = db.prepare(`SELECT DISTINCT key FROM ${tables.keys} WHERE dim = ?`).pluck();
    this.keyRange = db.prepare(`SELECT DISTINCT key FROM ${tables.keys} WHERE dim = ? AND key >= ? AND key < ? ORDER BY key LIMIT ?`).pluck();
  }

  get events(): number {
    let n = 0;
    for (const b of this.list) n += b.count;
    return n;
  }

  /** The index in `list` of the block holding `seq`, or of the first block after it; list.length when past the end. */
  indexAtOrAfter(seq: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.list[mid]!.lastSeq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Indexes in `list` (ascending) of the blocks holding a key. */
  indexesWith(dim: KeyDim, key: string): number[] {
    const blocks = this.readKeys.all(dim, key) as number[];
    const out: number[] = [];
    for (const b of blocks) {
      const i = this.byBlock.get(b);
      if (i !== undefined) out.push(i);
    }
    return out.sort((a, b) => a - b);
  }

  /** Every distinct key of a dimension (the kinds an incident holds: a few dozen). */
  keysOf(dim: KeyDim): string[] {
    return this.keyList.all(dim) as string[];
  }

  /** Distinct keys of a dimension that start with `prefix`, in string order (every such string sorts in [prefix, prefix + U+FFFF)). */
  keysWithPrefix(dim: KeyDim, prefix: string, limit: number): string[] {
    return this.keyRange.all(dim, prefix, `${prefix}\uffff`, limit) as string[];
  }

  /** Block `index` of `list`, decoded (shared: valid until DECODED_KEPT other blocks have been read). */
  decode(index: number): DecodedBlock {
    const meta = this.list[index]!;
    const kept = this.decoded.get(meta.block);
    if (kept) {
      this.decoded.delete(meta.block);
      this.decoded.set(meta.block, kept);
      return kept;
    }
    const data = this.readData.get(meta.block) as Buffer;
    let into: DecodedBlock;
    if (this.decoded.size >= DECODED_KEPT) {
      const oldest = this.decoded.keys().next().value!;
      into = this.decoded.get(oldest)!;
      this.decoded.delete(oldest);
    } else into = new DecodedBlock(BLOCK_EVENTS);
    into.decode(data);
    this.decoded.set(meta.block, into);
    return into;
  }
}

interface CachedBlocks {
  version: number;
  blocks: EventBlocks;
}

const readers = new WeakMap<IncidentDb, CachedBlocks>();

/**
 * The live blocks of a connection. Re-read when another connection has
 * committed since (PRAGMA data_version); a connection that writes events
 * itself (the ingest) reads through its own EventBlocks instead.
 */
export function eventBlocks(db: IncidentDb): EventBlocks {
  const version = db.pragma("data_version", { simple: true }) as number;
  const cached = readers.get(db);
  if (cached && cached.version === version) return cached.blocks;
  const blocks = new EventBlocks(db);
  readers.set(db, { version, blocks });
  return blocks;
}

/** The connection's live blocks when they are read already and still current; null otherwise. */
export function currentEventBlocks(db: IncidentDb): EventBlocks | null {
  const cached = readers.get(db);
  return cached && cached.version === (db.pragma("data_version", { simple: true }) as number) ? cached.blocks : null;
}

/**
 * The live block holding `seq`, decoded, found through the first_seq index
 * alone: one seq on a fresh connection need not read the whole block list
 * (most of a cold lookup's time on a 6 M-event incident). Null when no block holds it.
 */
export function decodeBlockHolding(db: IncidentDb, seq: number): DecodedBlock | null {
  const row = db
    .prepare(
      `SELECT b.last_seq AS lastSeq, d.data AS data FROM ${LIVE_TABLES.blocks} b JOIN ${LIVE_TABLES.data} d ON d.block = b.block
       WHERE b.first_seq <= ? ORDER BY b.first_seq DESC LIMIT 1`,
    )
    .get(seq) as { lastSeq: number; data: Buffer } | undefined;
  if (row === undefined || row.lastSeq < seq) return null;
  return new DecodedBlock(BLOCK_EVENTS).decode(row.data);
}

export { KeyDim };
