// The derive step's writes (analyzer/derive.ts): the model snapshots and the
// web UI's timeline columns, each replaced as a whole (store/read/derived.ts
// reads them back).

import { compress } from "./codec.js";
import { setMeta, type IncidentDb } from "./db.js";
import { TIMELINE_HEADER } from "./read/derived.js";

export const TIMELINE_TABLE = `
  -- The timeline columns of analyzer/timeline/timelineIndex.ts, replaced as a whole.
  -- The row named '' holds the JSON header, with the events' fingerprint.
  CREATE TABLE timeline_columns (
    name  TEXT PRIMARY KEY,
    data  BLOB NOT NULL
  ) WITHOUT ROWID;
`;

/** Replaces every stored snapshot with these, and records `meta` under `metaKey`, in one transaction. */
export function replaceSnapshots(db: IncidentDb, blobs: ReadonlyMap<number, Buffer>, metaKey: string, meta: string): void {
  const insert = db.prepare("INSERT INTO snapshots (seq, state) VALUES (?, ?)");
  db.transaction(() => {
    db.exec("DELETE FROM snapshots");
    for (const [seq, blob] of blobs) insert.run(seq, blob);
    setMeta(db, metaKey, meta);
  })();
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
    put(TIMELINE_HEADER, Buffer.from(JSON.stringify({ fingerprint, header })));
    for (const [name, col] of Object.entries(columns)) {
      if (name === TIMELINE_HEADER) throw new Error("a timeline column needs a name");
      put(name, new Uint8Array(col.buffer, col.byteOffset, col.byteLength));
    }
  })();
  return bytes;
}
