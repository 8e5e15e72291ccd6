// Dumped pages' bytes in the incident (issue 15): one row per page-dump index
// record that could be read, keyed by the record's provenance (the index
// source and its line, which is also the `page.dump` event's), its bytes
// compressed (./codec.ts). What the page is (room, side, layer, pos, dtype)
// lives in that event; this table holds only what the event cannot.

import { compress, decompress } from "./codec.js";
import type { IncidentDb } from "./db.js";

export const PAGES_TABLE = `
  -- file: the bytes' file as the incident names it; offset and length as the index record gave them.
  CREATE TABLE pages (
    source_id  INTEGER NOT NULL,
    line       INTEGER NOT NULL,
    file       TEXT NOT NULL,
    offset     INTEGER NOT NULL,
    length     INTEGER NOT NULL,
    bytes      BLOB NOT NULL,
    PRIMARY KEY (source_id, line)
  ) WITHOUT ROWID;
`;

export interface NewPage {
  sourceId: number;
  line: number;
  file: string;
  offset: number;
  bytes: Uint8Array;
}

export interface StoredPage {
  /** Its provenance: the index record (source and line) it was read through. */
  sourceId: number;
  line: number;
  file: string;
  offset: number;
  bytes: Uint8Array;
}

/** Stores pages; a record stored before (a repeated ingest) keeps its row. */
export function insertPages(db: IncidentDb, pages: readonly NewPage[]): void {
  const insert = db.prepare("INSERT OR IGNORE INTO pages (source_id, line, file, offset, length, bytes) VALUES (?, ?, ?, ?, ?, ?)");
  for (const p of pages) insert.run(p.sourceId, p.line, p.file, p.offset, p.bytes.length, compress(p.bytes));
}

interface PageRow {
  sourceId: number;
  line: number;
  file: string;
  offset: number;
  bytes: Buffer;
}

function toStored(r: PageRow): StoredPage {
  return { sourceId: r.sourceId, line: r.line, file: r.file, offset: r.offset, bytes: decompress(r.bytes) };
}

/** Every stored page, decompressed, in (source, line) order. */
export function allPages(db: IncidentDb): StoredPage[] {
  const rows = db.prepare("SELECT source_id AS sourceId, line, file, offset, bytes FROM pages ORDER BY source_id, line").all() as PageRow[];
  return rows.map(toStored);
}
