// Opening an incident database named on the command line, with an error that
// names the file when it is missing or is not an incident database.

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { IncidentSchemaError, openIncident, type IncidentDb } from "../../store/db.js";

const SQLITE_MAGIC = "SQLite format 3\u0000";

/** True when the path is an existing SQLite file (an incident database rather than a log). */
export function isSqliteFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    const fd = openSync(path, "r");
    try {
      const buf = Buffer.alloc(SQLITE_MAGIC.length);
      return readSync(fd, buf, 0, buf.length, 0) === buf.length && buf.toString("latin1") === SQLITE_MAGIC;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

export function openIncidentFile(path: string, opts: { readonly: boolean }): IncidentDb {
  if (!isSqliteFile(path)) throw new Error(`${path}: not an incident database (expected a SQLite file made by \`kvrewind ingest\`)`);
  try {
    return openIncident(path, { readonly: opts.readonly });
  } catch (err) {
    if (err instanceof IncidentSchemaError) throw err;
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}
