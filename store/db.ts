// Opening an incident database: WAL, forward migrations, the meta table.

import Database from "better-sqlite3";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";

export type IncidentDb = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
  /** Milliseconds to wait for another writer before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

export function openIncident(path: string, opts: OpenOptions = {}): IncidentDb {
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 30_000}`);
    if (!opts.readonly) {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      migrate(db);
    } else {
      const version = schemaVersion(db);
      if (version !== SCHEMA_VERSION) {
        throw new Error(`${path}: schema version ${version}, this kvrewind reads ${SCHEMA_VERSION}; open it once read-write to migrate`);
      }
    }
  } catch (e) {
    // A connection that could not be set up (busy, an old schema) is not left open.
    db.close();
    throw e;
  }
  return db;
}

/**
 * A read-only connection to a database an older kvrewind may have written:
 * such a database is migrated first, once, on a read-write connection.
 */
export function openIncidentForReading(path: string): IncidentDb {
  const probe = new Database(path, { readonly: true, fileMustExist: true });
  const version = schemaVersion(probe);
  probe.close();
  if (version < SCHEMA_VERSION) openIncident(path).close();
  return openIncident(path, { readonly: true });
}

export function schemaVersion(db: IncidentDb): number {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

function migrate(db: IncidentDb): void {
  if (schemaVersion(db) === SCHEMA_VERSION) return;
  // Each step re-reads the version under the write lock: two processes opening a
  // new incident at once must not both run the same migration.
  for (;;) {
    const done = db
      .transaction(() => {
        const from = schemaVersion(db);
        if (from > SCHEMA_VERSION) {
          throw new Error(`database schema version ${from} is newer than this kvrewind (${SCHEMA_VERSION})`);
        }
        if (from === SCHEMA_VERSION) return true;
        const step = MIGRATIONS[from]!;
        if (typeof step === "string") db.exec(step);
        else step(db);
        setMeta(db, "schema_version", String(from + 1));
        return false;
      })
      .immediate();
    if (done) return;
  }
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
