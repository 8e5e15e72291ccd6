// Schema 2 → 3: event texts leave the events rows for the event_text blocks
// (store/eventText.ts). Runs inside the migration's transaction.

import type { IncidentDb } from "./db.js";
import { TextBlockBuilder, TextBlockWriter } from "./eventText.js";

const PAGE_ROWS = 4096;

export function moveTextOutOfEvents(db: IncidentDb): void {
  const writer = new TextBlockWriter(db);
  const sources = db.prepare("SELECT DISTINCT source_id FROM events ORDER BY source_id").pluck().all() as number[];
  // Paged by line through the schema-2 index events_source_line (the writer
  // cannot run while a read is open on the same connection).
  const page = db.prepare(`SELECT line, text FROM events WHERE source_id = ? AND line > ? ORDER BY line LIMIT ${PAGE_ROWS}`).raw();
  for (const sourceId of sources) {
    const builder = new TextBlockBuilder(sourceId);
    for (let after = 0; ; ) {
      const rows = page.all(sourceId, after) as [number, string][];
      if (rows.length === 0) break;
      for (const [line, text] of rows) {
        const full = builder.add(line, text);
        if (full) writer.write(full);
      }
      after = rows[rows.length - 1]![0];
    }
    const last = builder.close();
    if (last) writer.write(last);
  }
  db.exec("DROP INDEX IF EXISTS events_source_line");
  db.exec("ALTER TABLE events DROP COLUMN text");
}
