// `events` as SQL sees it: a virtual table over the blocks (better-sqlite3
// `db.table`), one row per event with the columns of the old events table
// (rooms as their exact decimal strings, attrs as JSON text), for users' own
// queries (`kvrewind query`, query/userQuery.ts); the store's own reads go
// to the blocks directly.
//
// A virtual table's rows are produced while SQLite runs the statement, when
// the connection may not run another; so the blocks are read through a
// second, read-only connection to the same file, opened on first use. It
// sees what is committed, which is all a query needs.

import Database from "better-sqlite3";
import type { IncidentDb } from "./db.js";
import { EventReader } from "./blocks/eventCursor.js";
import { eventBlocks } from "./blocks/eventBlocks.js";

export const EVENTS_TABLE_COLUMNS = [
  "seq", "ts_us", "ts_inferred", "source_id", "line", "host", "role", "dp", "pp", "tp", "kind", "room", "rid",
  "chunk", "layer", "page_lo", "page_hi", "state", "attrs",
] as const;

const blockReaders = new WeakMap<IncidentDb, IncidentDb>();

function blockReader(db: IncidentDb): IncidentDb {
  let reader = blockReaders.get(db);
  if (!reader || !reader.open) {
    reader = new Database(db.name, { readonly: true, fileMustExist: true });
    blockReaders.set(db, reader);
  }
  return reader;
}

const registered = new WeakSet<IncidentDb>();

/** Registers `events` on a connection, once (an eponymous virtual table: no schema change). */
export function registerEventsTable(db: IncidentDb): void {
  if (registered.has(db)) return;
  registered.add(db);
  db.table("events", {
    columns: [...EVENTS_TABLE_COLUMNS],
    rows: function* () {
      const reader = blockReader(db);
      const events = new EventReader(reader, eventBlocks(reader));
      const rows: unknown[][] = [];
      const list = events.blocks.list;
      for (const block of list) {
        rows.length = 0;
        events.forEach(block.firstSeq, block.lastSeq, (ev) => {
          const attrs = ev.attrs;
          rows.push([
            ev.seq, ev.tsUs, ev.tsInferred ? 1 : null, ev.sourceId, ev.line, ev.host, ev.role, ev.dp, ev.pp, ev.tp, ev.kind, ev.room, ev.rid,
            ev.chunk, ev.layer, ev.pageLo, ev.pageHi, ev.state, attrs === null ? null : JSON.stringify(attrs),
          ]);
        });
        yield* rows;
      }
    },
  });
}
