// The `snapshots` table: serialized model states for time travel
// (analyzer/replay/snapshots.ts decides what they hold and when they are valid).

import { setMeta, type IncidentDb } from "./db.js";

/** The seqs of the stored snapshots, ascending. */
export function snapshotSeqs(db: IncidentDb): number[] {
  return db.prepare("SELECT seq FROM snapshots ORDER BY seq").pluck().all() as number[];
}

/** The stored state after `seq`, undefined when there is none. */
export function snapshotState(db: IncidentDb, seq: number): Buffer | undefined {
  return db.prepare("SELECT state FROM snapshots WHERE seq = ?").pluck().get(seq) as Buffer | undefined;
}

/** Replaces every stored snapshot with these, and records `meta` under `metaKey`, in one transaction. */
export function replaceSnapshots(db: IncidentDb, blobs: ReadonlyMap<number, Buffer>, metaKey: string, meta: string): void {
  const insert = db.prepare("INSERT INTO snapshots (seq, state) VALUES (?, ?)");
  db.transaction(() => {
    db.exec("DELETE FROM snapshots");
    for (const [seq, blob] of blobs) insert.run(seq, blob);
    setMeta(db, metaKey, meta);
  })();
}
