// `events` as SQL sees it: a virtual table over the blocks (better-sqlite3
// `db.table`), one row per event with the columns users' SQL names (rooms
// as their exact decimal strings, attrs as JSON text), for users' own
// queries (`kvrewind query`, query/userQuery.ts); the store's own reads go
// to the blocks directly.
//
// A virtual table's rows are produced while SQLite runs the statement, when
// the connection may not run another; so the blocks are read through a
// second, read-only connection to the same file, opened on first use. It
// sees what is committed, which is all a query needs.

import Database from "better-sqlite3";
import type { IncidentDb } from "./db.js";
import { EventReader, type EventCursor } from "./blocks/eventCursor.js";
import { eventBlocks } from "./blocks/eventBlocks.js";
import { TS_INFERRED, TS_TIMELESS } from "./rows.js";

export const EVENTS_TABLE_COLUMNS = [
  "seq", "ts_us", "ts_inferred", "source_id", "line", "host", "role", "dp", "pp", "tp", "kind", "room", "rid",
  "chunk", "layer", "page_lo", "page_hi", "state", "attrs",
] as const;

export type EventsColumn = (typeof EVENTS_TABLE_COLUMNS)[number];

/** Each column's value for the event under the cursor (the query's rows and the export's columns: read/eventColumns.ts). */
export const EVENTS_COLUMN_VALUE: Record<EventsColumn, (ev: EventCursor) => unknown> = {
  seq: (ev) => ev.seq,
  ts_us: (ev) => ev.tsUs,
  ts_inferred: (ev) => (ev.timeless ? TS_TIMELESS : ev.tsInferred ? TS_INFERRED : null),
  source_id: (ev) => ev.sourceId,
  line: (ev) => ev.line,
  host: (ev) => ev.host,
  role: (ev) => ev.role,
  dp: (ev) => ev.dp,
  pp: (ev) => ev.pp,
  tp: (ev) => ev.tp,
  kind: (ev) => ev.kind,
  room: (ev) => ev.room,
  rid: (ev) => ev.rid,
  chunk: (ev) => ev.chunk,
  layer: (ev) => ev.layer,
  page_lo: (ev) => ev.pageLo,
  page_hi: (ev) => ev.pageHi,
  state: (ev) => ev.state,
  attrs: (ev) => ev.attrsJson,
};

const blockReaders = new WeakMap<IncidentDb, IncidentDb>();

function blockReader(db: IncidentDb): IncidentDb {
  let reader = blockReaders.get(db);
  if (!reader || !reader.open) {
    reader = new Database(db.name, { readonly: true, fileMustExist: true });
    blockReaders.set(db, reader);
  }
  return reader;
}

/** Every event as a row of the columns in `read`; the other columns are NULL, and with none to read no block is decoded. */
function* eventRows(db: IncidentDb, read: ReadonlySet<EventsColumn>): Generator<unknown[]> {
  const reader = blockReader(db);
  const events = new EventReader(reader, eventBlocks(reader));
  // better-sqlite3 copies a yielded row before asking for the next, so one array serves every row.
  const row = new Array<unknown>(EVENTS_TABLE_COLUMNS.length).fill(null);
  const at = EVENTS_TABLE_COLUMNS.flatMap((c, k) => (read.has(c) ? [k] : []));
  const values = at.map((k) => EVENTS_COLUMN_VALUE[EVENTS_TABLE_COLUMNS[k]!]);
  const list = events.blocks.list;
  const cursor = events.cursor;
  for (let c = 0; c < list.length; c++) {
    if (at.length === 0) {
      for (let i = 0; i < list[c]!.count; i++) yield row;
      continue;
    }
    const block = events.blocks.decode(c);
    cursor.bind(block);
    for (let i = 0; i < block.count; i++) {
      cursor.moveTo(i);
      for (let j = 0; j < at.length; j++) row[at[j]!] = values[j]!(cursor);
      yield row;
    }
  }
}

const registered = new WeakSet<IncidentDb>();

/**
 * Registers `events` on a connection, once (an eponymous virtual table: no
 * schema change). `read` is the columns the connection's statements read
 * (query/columnsRead.ts); the others read as NULL, so a connection registered
 * for fewer than all columns serves the statement they were found in only.
 */
export function registerEventsTable(db: IncidentDb, read: ReadonlySet<EventsColumn> = new Set(EVENTS_TABLE_COLUMNS)): void {
  if (registered.has(db)) return;
  registered.add(db);
  db.table("events", {
    columns: [...EVENTS_TABLE_COLUMNS],
    rows: function* () {
      yield* eventRows(db, read);
    },
  });
}
