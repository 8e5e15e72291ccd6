// Schema 4 → 5: the events table's rows move into column blocks, in seq
// order, and the event texts are compressed. Runs inside the migration's
// transaction; the replay's old column cache and the row indexes go with the
// table.

import type { IncidentDb } from "../db.js";
import { compressStoredTexts } from "../eventText.js";
import { BlockWriter } from "./blockWriter.js";
import { BLOCK_EVENTS, createBlockTables, LIVE_TABLES } from "./blockTables.js";

/** The old table's columns in store/rows.ts EVENT_COLUMNS order, then seq. */
const ROW_SQL =
  "ts_us, source_id, line, dp, pp, tp, chunk, layer, page_lo, page_hi, state, ts_inferred, host, role, kind, room, rid, attrs, seq";

export function moveEventsIntoBlocks(db: IncidentDb): void {
  db.exec(createBlockTables(LIVE_TABLES));
  const first = db.prepare("SELECT MIN(seq) FROM events").pluck().get() as number | null;
  const writer = new BlockWriter(db, LIVE_TABLES, { nextSeq: first ?? 1, nextBlock: 0 });
  // Paged by seq (the writer cannot run while a read is open on the same connection).
  const page = db.prepare(`SELECT ${ROW_SQL} FROM events WHERE seq > ? ORDER BY seq LIMIT ${BLOCK_EVENTS}`).raw();
  for (let after = -Infinity; ; ) {
    const rows = page.all(after) as unknown[][];
    if (rows.length === 0) break;
    for (const row of rows) {
      const seq = row[row.length - 1] as number;
      if (seq !== writer.seqAfter) throw new Error(`events: seq ${seq} follows ${writer.seqAfter - 1}; the seqs of an incident are dense`);
      writer.addValues(row);
    }
    after = rows[rows.length - 1]![rows[0]!.length - 1] as number;
  }
  writer.flush();
  db.exec("DROP TABLE events; DROP TABLE IF EXISTS event_columns; DELETE FROM meta WHERE key = 'event_columns';");
  compressStoredTexts(db);
}
