// Users' own SQL over an incident (`kvrewind query`, GET /api/incidents/:id/query):
// one read-only statement that returns rows, on a read-only connection that
// has the `events` virtual table (eventsTable.ts) beside the other tables.
// Integers come back as BigInt (safeIntegers), so no 64-bit value is rounded.

import { openIncident } from "../db.js";
import { registerEventsTable } from "../eventsTable.js";
import { eventsColumnsRead } from "./columnsRead.js";

export interface QueryResult {
  columns: string[];
  rows: unknown[][];
  /** More rows matched than were returned (maxRows). */
  truncated: boolean;
}

/** A statement refused before it runs (it writes, or returns no rows), or one SQLite rejected. */
export class QueryError extends Error {
  readonly exitCode = 2;
}

/** Runs one read-only statement; throws QueryError for a statement that would write or that SQLite rejects. */
export function runUserQuery(path: string, sql: string, maxRows: number): QueryResult {
  const db = openIncident(path, { readonly: true });
  registerEventsTable(db, eventsColumnsRead(sql));
  try {
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (e) {
      throw new QueryError(`query: ${(e as Error).message}`);
    }
    if (!stmt.readonly || !stmt.reader) {
      throw new QueryError("query: only a read-only statement that returns rows is run (SELECT, WITH …, a read-only PRAGMA)");
    }
    stmt.safeIntegers(true).raw(true);
    const columns = stmt.columns().map((c) => c.name);
    const rows: unknown[][] = [];
    let truncated = false;
    try {
      for (const row of stmt.iterate() as Iterable<unknown[]>) {
        if (rows.length === maxRows) {
          truncated = true;
          break;
        }
        rows.push(row);
      }
    } catch (e) {
      throw new QueryError(`query: ${(e as Error).message}`);
    }
    return { columns, rows, truncated };
  } finally {
    db.close();
  }
}
