// What the derive step stored for readers (store/writeDerived.ts writes it;
// analyzer/derive.ts decides when): the model snapshots for time travel
// (analyzer/replay/snapshots.ts says what they hold and when they are
// valid) and the web UI's timeline columns (analyzer/timeline/timelineStore.ts says
// what they mean). The timeline columns belong to the events of one
// fingerprint (analyzer/replay/fingerprint.ts): after an ingest changes the
// events, a reader finds none until the derive step builds them again. The
// version signs are kept in meta (analyzer/replay/derivedSigns.ts).

import { decompress } from "../codec.js";
import type { IncidentDb } from "../db.js";

/** The seqs of the stored snapshots, ascending. */
export function snapshotSeqs(db: IncidentDb): number[] {
  return db.prepare("SELECT seq FROM snapshots ORDER BY seq").pluck().all() as number[];
}

/** The stored state after `seq`, undefined when there is none. */
export function snapshotState(db: IncidentDb, seq: number): Buffer | undefined {
  return db.prepare("SELECT state FROM snapshots WHERE seq = ?").pluck().get(seq) as Buffer | undefined;
}

/** The name of the timeline's JSON header row; every other row is a column. */
export const TIMELINE_HEADER = "";

export interface TimelineColumns {
  header: unknown;
  /** Each column's bytes, in a buffer of its own (aligned for any typed array). */
  columns: Map<string, ArrayBuffer>;
}

/** The stored timeline's header when it was built from the events of `fingerprint`, else undefined; reads no column. */
export function readTimelineHeader(db: IncidentDb, fingerprint: string): unknown {
  const head = db.prepare("SELECT data FROM timeline_columns WHERE name = ?").get(TIMELINE_HEADER) as { data: Buffer } | undefined;
  if (!head) return undefined;
  const stored = JSON.parse(Buffer.from(decompress(head.data)).toString("utf8")) as { fingerprint: string; header: unknown };
  return stored.fingerprint === fingerprint ? stored.header : undefined;
}

/** The stored timeline when it was built from the events of `fingerprint`, else undefined. */
export function readTimelineColumns(db: IncidentDb, fingerprint: string): TimelineColumns | undefined {
  const header = readTimelineHeader(db, fingerprint);
  if (header === undefined) return undefined;
  const rows = db.prepare("SELECT name, data FROM timeline_columns WHERE name <> ?").all(TIMELINE_HEADER) as { name: string; data: Buffer }[];
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
