// Opening an incident database: WAL, the current schema for a new file, the
// meta table. A file of another schema is refused, never changed
// (store/schema.ts): readers open read-only, and only the ingest, the derive
// step and the analysis write.

import Database from "better-sqlite3";
import { CURRENT_SCHEMA, SCHEMA_VERSION } from "./schema.js";

export type IncidentDb = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** Milliseconds to wait for another writer before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/** A file this kvrewind does not read: another schema, or not an incident at all. Nothing in it was changed. */
export class IncidentSchemaError extends Error {
  constructor(
    readonly path: string,
    readonly found: number | null,
  ) {
    super(schemaMessage(path, found));
    this.name = "IncidentSchemaError";
  }
}

function schemaMessage(path: string, found: number | null): string {
  if (found === null) return `${path}: not a kvrewind incident file (a SQLite file without kvrewind's tables); it was left as it was`;
  const by = found > SCHEMA_VERSION ? "a newer kvrewind" : "an older kvrewind";
  return (
    `${path}: written by ${by} (incident schema ${found}; this kvrewind reads schema ${SCHEMA_VERSION}). ` +
    "Incident files are not migrated before 1.0, and this one was left as it was. " +
    "Rebuild it by ingesting the original logs again: kvrewind ingest <logs...> --db <new file>"
  );
}

export function openIncident(path: string, opts: OpenOptions = {}): IncidentDb {
  const readonly = opts.readonly ?? false;
  // A file that is there is judged through a read-only connection first: one that is refused is never opened for writing.
  if (!readonly) {
    const found = fileSchemaVersion(path);
    if (found !== undefined && found !== 0 && found !== SCHEMA_VERSION) throw new IncidentSchemaError(path, found);
  }
  const db = new Database(path, { readonly, fileMustExist: readonly });
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 30_000}`);
    if (readonly) requireCurrentSchema(db, path);
    else {
      // Checked before the journal mode is set: a refused file is not touched.
      requireCurrentSchema(db, path, { allowEmpty: true });
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      createSchemaIfEmpty(db, path);
    }
  } catch (e) {
    // A connection that could not be set up (busy, another schema) is not left open.
    db.close();
    throw e;
  }
  return db;
}

/**
 * The schema a file was written under: its `meta.schema_version`; 0 for a
 * file with no table at all (a new incident); null for a SQLite file of
 * something else.
 */
export function schemaVersion(db: IncidentDb): number | null {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length === 0) return 0;
  if (!tables.includes("meta")) return null;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row && /^\d+$/.test(row.value) ? Number(row.value) : null;
}

/**
 * The schema of the file at `path` (schemaVersion), read without changing
 * it; undefined when there is no such file or it cannot be read as SQLite
 * (whoever opens it next reports why).
 */
export function fileSchemaVersion(path: string): number | null | undefined {
  let db: IncidentDb;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch {
    return undefined;
  }
  try {
    return schemaVersion(db);
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

function requireCurrentSchema(db: IncidentDb, path: string, opts: { allowEmpty?: boolean } = {}): void {
  const found = schemaVersion(db);
  if (found === SCHEMA_VERSION || (found === 0 && opts.allowEmpty)) return;
  throw new IncidentSchemaError(path, found === 0 ? null : found);
}

/** A new file gets the current schema; the check runs again under the write lock, for two processes creating one incident at once. */
function createSchemaIfEmpty(db: IncidentDb, path: string): void {
  if (schemaVersion(db) === SCHEMA_VERSION) return;
  db.transaction(() => {
    if (schemaVersion(db) !== 0) return requireCurrentSchema(db, path);
    db.exec(CURRENT_SCHEMA);
    setMeta(db, "schema_version", String(SCHEMA_VERSION));
  }).immediate();
}

export function getMeta(db: IncidentDb, key: string): string | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value;
}

export function setMeta(db: IncidentDb, key: string, value: string): void {
  db.prepare("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}

export function getMetaJson<T>(db: IncidentDb, key: string): T | undefined {
  const v = getMeta(db, key);
  return v === undefined ? undefined : (JSON.parse(v) as T);
}
