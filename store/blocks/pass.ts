// One pass over the event blocks for several readers at once: each block that
// holds a kind some reader wants is read, decompressed and decoded once, and
// every row is handed to each reader that wants its kind. A reader sees its
// kinds' events in seq order, as a scan of its own (scan.ts) would show them,
// so stages that each used to scan the blocks can share the decoding.

import type { IncidentDb } from "../db.js";
import { KeyDim } from "./blockTables.js";
import { EventCursor } from "./eventCursor.js";
import { eventBlocks, type EventBlocks } from "./eventBlocks.js";

/** A consumer of one pass: the kinds it wants (null: every event) and what it does with each such event (through the shared cursor: copy what you keep). */
export interface BlockReader {
  readonly kinds: readonly string[] | null;
  visit(ev: EventCursor): void;
}

/** Readers whose events, once all read, give one result. */
export interface Reading<T> {
  readonly readers: readonly BlockReader[];
  finish(): T;
}

/** Feeds every reader its kinds' events in seq order, decoding each block once. */
export function readBlocksOnce(db: IncidentDb, readers: readonly BlockReader[]): void {
  if (readers.length === 0) return;
  const blocks = eventBlocks(db);
  const cursor = new EventCursor(db);
  if (readers.length === 1 && readers[0]!.kinds === null) return readEvery(blocks, cursor, readers[0]!);
  for (const index of blocksWithKinds(blocks, readers)) {
    const block = blocks.decode(index);
    cursor.bind(block);
    // Per kind of the block's dictionary, the readers that want it: one lookup per distinct kind, not per row.
    const readersOfKind = block.dicts.kind.map((kind) => readers.filter((r) => r.kinds === null || r.kinds.includes(kind)));
    const kindIds = block.ids.kind;
    for (let row = 0; row < block.count; row++) {
      const wanting = readersOfKind[kindIds.at(row)];
      if (wanting === undefined || wanting.length === 0) continue;
      cursor.moveTo(row);
      for (const reader of wanting) reader.visit(cursor);
    }
  }
}

/** Every event to one reader (a replay's own pass): no row's kind need be looked at. */
function readEvery(blocks: EventBlocks, cursor: EventCursor, reader: BlockReader): void {
  for (let index = 0; index < blocks.list.length; index++) {
    const block = blocks.decode(index);
    cursor.bind(block);
    for (let row = 0; row < block.count; row++) {
      cursor.moveTo(row);
      reader.visit(cursor);
    }
  }
}

/** Runs one reading in a pass of its own and gives its result. */
export function readOnce<T>(db: IncidentDb, reading: Reading<T>): T {
  readBlocksOnce(db, reading.readers);
  return reading.finish();
}

/** Indexes (ascending) of the blocks holding any kind a reader wants. */
function blocksWithKinds(blocks: EventBlocks, readers: readonly BlockReader[]): number[] {
  if (readers.some((r) => r.kinds === null)) return blocks.list.map((_, i) => i);
  const kinds = new Set(readers.flatMap((r) => r.kinds ?? []));
  const indexes = new Set([...kinds].flatMap((k) => blocks.indexesWith(KeyDim.kind, k)));
  return [...indexes].sort((a, b) => a - b);
}
