// The web UI's timeline columns, kept in the incident file by the derive step
// after ingest (the UI's windows come from what the store holds, not from a
// private index beside it). The store keeps them as named, zstd-compressed column blobs and
// one JSON header; what they mean is the UI server's (ui/server/timeline-index.ts).
// They belong to the events of one fingerprint (analyzer/replay/fingerprint.ts):
// after an ingest changes the events, the reader finds none until the derive
// step builds them again.

import { compress, decompress } from "./codec.js";
import type { IncidentDb } from "./db.js";

export const TIMELINE_TABLE = `
  -- The timeline columns of ui/server/timeline-index.ts, replaced as a whole.
  -- The row named '' holds the JSON header, with the events' fingerprint.
  CREATE TABLE timeline_columns (
    name  TEXT PRIMARY KEY,
    data  BLOB NOT NULL
  ) WITHOUT ROWID;
`;

const HEADER = "";

export interface TimelineColumns {
  header: unknown;
  /** Each column's bytes, in a buffer of its own (aligned for any typed array). */
  columns: Map<string, ArrayBuffer>;
}

/** Replaces the stored timeline with these columns, built from the events of `fingerprint`; returns the bytes stored. */
export function writeTimelineColumns(db: IncidentDb, fingerprint: string, header: unknown, columns: Record<string, ArrayBufferView>): number {
  let bytes = 0;
  db.transaction(() => {
    db.prepare("DELETE FROM timeline_columns").run();
    const insert = db.prepare("INSERT INTO timeline_columns (name, data) VALUES (?, ?)");
    const put = (name: string, data: Uint8Array) => {
      const packed = compress(data);
      bytes += packed.byteLength;
      insert.run(name, packed);
    };
    put(HEADER, Buffer.from(JSON.stringify({ fingerprint, header })));
    for (const [name, col] of Object.entries(columns)) {
      if (name === HEADER) throw new Error("a timeline column needs a name");
      put(name, new Uint8Array(col.buffer, col.byteOffset, col.byteLength));
    }
  })();
  return bytes;
}

/** The stored timeline's header when it was built from the events of `fingerprint`, else undefined; reads no column. */
export function readTimelineHeader(db: IncidentDb, fingerprint: string): unknown {
  const head = db.prepare("SELECT data FROM timeline_columns WHERE name = ?").get(HEADER) as { data: Buffer } | undefined;
  if (!head) return undefined;
  const stored = JSON.parse(Buffer.from(decompress(head.data)).toString("utf8")) as { fingerprint: string; header: unknown };
  return stored.fingerprint === fingerprint ? stored.header : undefined;
}

/** The stored timeline when it was built from the events of `fingerprint`, else undefined. */
export function readTimelineColumns(db: IncidentDb, fingerprint: string): TimelineColumns | undefined {
  const header = readTimelineHeader(db, fingerprint);
  if (header === undefined) return undefined;
  const rows = db.prepare("SELECT name, data FROM timeline_columns WHERE name <> ?").all(HEADER) as { name: string; data: Buffer }[];
  const columns = new Map<string, ArrayBuffer>();
  for (const row of rows) {
    const bytes = decompress(row.data);
    // A copy of its own: a decompressed Buffer may sit at an offset no Float64Array can start at.
    const own = new Uint8Array(bytes.byteLength);
    own.set(bytes);
    columns.set(row.name, own.buffer);
  }
  return { header, columns };
}
