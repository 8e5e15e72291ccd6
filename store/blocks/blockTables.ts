// The tables that hold the events (DESIGN.md "Canonical store"; docs/store.md):
// the blocks, and small side tables that say what each block holds, so that
// a seq, a time window, a room, a rank, a kind or a source is found by
// reading the few blocks that can hold it, without a B-tree per event.

/** What a block's members are keyed by in `event_block_keys`. */
export const KeyDim = { kind: 0, rank: 1, source: 2, room: 3 } as const;
export type KeyDim = (typeof KeyDim)[keyof typeof KeyDim];

/** The names of one set of event tables: the live one, or the one set aside while an ingest rebuilds the order. */
export interface BlockTables {
  blocks: string;
  data: string;
  keys: string;
}

export const LIVE_TABLES: BlockTables = { blocks: "event_blocks", data: "event_block_data", keys: "event_block_keys" };
export const SET_ASIDE_TABLES: BlockTables = { blocks: "event_blocks_prev", data: "event_block_data_prev", keys: "event_block_keys_prev" };

/** Events per block: a window, a room or a seq decodes a few of them. */
export const BLOCK_EVENTS = 4096;

export function createBlockTables(t: BlockTables): string {
  return `
  -- One row per block of events in seq order: its seq and time range.
  CREATE TABLE ${t.blocks} (
    block      INTEGER PRIMARY KEY,
    first_seq  INTEGER NOT NULL,
    last_seq   INTEGER NOT NULL,
    count      INTEGER NOT NULL,
    min_ts_us  INTEGER NOT NULL,
    max_ts_us  INTEGER NOT NULL,
    bytes      INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX ${t.blocks}_seq ON ${t.blocks}(first_seq);
  -- The compressed block (store/blocks/blockCodec.ts), apart from the
  -- small rows above so that listing blocks reads no block.
  CREATE TABLE ${t.data} (
    block  INTEGER PRIMARY KEY,
    data   BLOB NOT NULL
  );
  -- dim (KeyDim): 0 kind, 1 rank (host, role, tp joined by U+0001; U+0000 for NULL), 2 source id, 3 room (decimal string);
  -- one row per distinct key a block holds.
  CREATE TABLE ${t.keys} (
    dim    INTEGER NOT NULL,
    key    TEXT NOT NULL,
    block  INTEGER NOT NULL,
    PRIMARY KEY (dim, key, block)
  ) WITHOUT ROWID;
  `;
}

export function dropBlockTables(t: BlockTables): string {
  return `DROP TABLE IF EXISTS ${t.blocks}; DROP TABLE IF EXISTS ${t.data}; DROP TABLE IF EXISTS ${t.keys};`;
}

export function renameBlockTables(from: BlockTables, to: BlockTables): string {
  return [
    `DROP INDEX IF EXISTS ${from.blocks}_seq`,
    `ALTER TABLE ${from.blocks} RENAME TO ${to.blocks}`,
    `CREATE UNIQUE INDEX ${to.blocks}_seq ON ${to.blocks}(first_seq)`,
    `ALTER TABLE ${from.data} RENAME TO ${to.data}`,
    `ALTER TABLE ${from.keys} RENAME TO ${to.keys}`,
  ].join(";\n");
}

/** The key of a rank in `event_block_keys`: host, role and TP rank as events name them (null: absent). */
export function rankKey(host: string | null, role: string | null, tp: number | null): string {
  return `${host ?? "\u0000"}\u0001${role ?? "\u0000"}\u0001${tp ?? "\u0000"}`;
}
