// The events as the columns of `kvrewind query`'s `events` table
// (eventsTable.ts: the same names and the same values, rooms as their exact
// strings, attrs as JSON text), one stored block at a time: what an export
// writes as one row group, so that no more than a block of events is held
// at once whatever the incident's size.

import { EventReader } from "../blocks/eventCursor.js";
import type { IncidentDb } from "../db.js";
import { EVENTS_COLUMN_VALUE, EVENTS_TABLE_COLUMNS, type EventsColumn } from "../eventsTable.js";

export interface EventColumnBlock {
  /** Events in the block (~4,096: store/blocks/blockTables.ts BLOCK_EVENTS). */
  count: number;
  /** One array per column, `count` values each, null for NULL. */
  columns: Record<EventsColumn, unknown[]>;
}

/** Every stored block in seq order, each as fresh column arrays (the caller may keep them). */
export function* eventColumnBlocks(db: IncidentDb): Generator<EventColumnBlock> {
  const events = new EventReader(db);
  const cursor = events.cursor;
  for (let c = 0; c < events.blocks.list.length; c++) {
    const block = events.blocks.decode(c);
    cursor.bind(block);
    const columns = {} as Record<EventsColumn, unknown[]>;
    for (const name of EVENTS_TABLE_COLUMNS) {
      const value = EVENTS_COLUMN_VALUE[name];
      const out = new Array<unknown>(block.count);
      for (let i = 0; i < block.count; i++) {
        cursor.moveTo(i);
        out[i] = value(cursor);
      }
      columns[name] = out;
    }
    yield { count: block.count, columns };
  }
}
