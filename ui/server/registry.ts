// The data directory: one folder per incident, each with its own SQLite file,
// its input files and a small `incident.json` that says where the incident
// stands. Incidents share nothing, so a broken upload can only fail its own
// folder.
//
//   <data-dir>/incidents/<id>/incident.json
//   <data-dir>/incidents/<id>/incident.db
//   <data-dir>/incidents/<id>/input/...

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileSchemaVersion, openIncident, type IncidentDb } from "../../store/db.js";
import { SCHEMA_VERSION } from "../../store/schema.js";
import type { TimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { IncidentRecord } from "./incidentRecord.js";
import { archiveStem } from "../../domain/archiveNames.js";
import { timelineIndexOf } from "../../analyzer/timeline/timelineStore.js";

export const INCIDENT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;

interface Opened {
  db: IncidentDb;
  index?: Promise<TimelineIndex>;
}

export class Registry {
  private readonly records = new Map<string, IncidentRecord>();
  private readonly opened = new Map<string, Opened>();
  private closed = false;

  readonly dataDir: string;

  constructor(dataDir: string) {
    if (existsSync(dataDir) && !statSync(dataDir).isDirectory()) {
      throw new Error(`${dataDir}: not a directory; the data directory is a folder where the server keeps its incidents (an incident file is read with \`kvrewind analyze\` or \`query\`)`);
    }
    // Absolute, because background jobs run with their incident's input folder as working directory.
    this.dataDir = resolve(dataDir);
    mkdirSync(this.incidentsDir, { recursive: true });
    // Uploads a previous server was receiving when it stopped.
    rmSync(join(this.dataDir, "staging"), { recursive: true, force: true });
    for (const id of readdirSync(this.incidentsDir)) {
      const file = join(this.incidentsDir, id, "incident.json");
      if (!INCIDENT_ID.test(id) || !existsSync(file)) continue;
      const parsed = IncidentRecord.safeParse(JSON.parse(readFileSync(file, "utf8")));
      if (parsed.success) this.records.set(id, parsed.data);
    }
  }

  get incidentsDir(): string {
    return join(this.dataDir, "incidents");
  }

  dirOf(id: string): string {
    return join(this.incidentsDir, id);
  }

  dbPathOf(id: string): string {
    return join(this.dirOf(id), "incident.db");
  }

  inputDirOf(id: string): string {
    return join(this.dirOf(id), "input");
  }

  list(): IncidentRecord[] {
    return [...this.records.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  get(id: string): IncidentRecord | undefined {
    return this.records.get(id);
  }

  /** A fresh incident folder with an empty input folder; `preferredId` is used when free, else suffixed. */
  create(name: string, preferredId?: string): IncidentRecord {
    const id = this.freeId(preferredId ?? slug(name));
    mkdirSync(this.inputDirOf(id), { recursive: true });
    const record: IncidentRecord = {
      id,
      name,
      createdAt: new Date().toISOString(),
      status: "receiving",
      inputBytes: 0,
      inputFiles: 0,
    };
    this.save(record);
    return record;
  }

  /** A new incident whose input folder is `inputDir` (moved into place). */
  adopt(name: string, inputDir: string, received: { files: number; bytes: number; unpacked: number; warnings: string[] }): IncidentRecord {
    const id = this.freeId(slug(name));
    mkdirSync(this.dirOf(id), { recursive: true });
    renameSync(inputDir, this.inputDirOf(id));
    const record: IncidentRecord = {
      id,
      name: archiveStem(name),
      createdAt: new Date().toISOString(),
      status: "receiving",
      inputBytes: received.bytes,
      inputFiles: received.files,
      ...(received.unpacked > 0 && { unpackedBytes: received.unpacked }),
      ...(received.warnings.length && { uploadWarnings: received.warnings, warnings: received.warnings }),
    };
    this.save(record);
    return record;
  }

  /** A private folder for an upload in progress, on the same file system as the incidents. */
  stagingDir(): string {
    mkdirSync(join(this.dataDir, "staging"), { recursive: true });
    return mkdtempSync(join(this.dataDir, "staging", "upload-"));
  }

  private freeId(base: string): string {
    let id = base;
    for (let n = 2; this.records.has(id) || existsSync(this.dirOf(id)); n++) id = `${base.slice(0, 56)}-${n}`;
    return id;
  }

  /** Changes a record; `persist: false` keeps a change (like progress) in memory only, and still writes a status change. */
  update(id: string, patch: Partial<Omit<IncidentRecord, "id">>, opts: { persist?: boolean } = {}): IncidentRecord {
    const current = this.records.get(id);
    if (!current) throw new Error(`no incident ${id}`);
    const next: IncidentRecord = { ...current, ...patch };
    const statusChanged = patch.status !== undefined && patch.status !== current.status;
    if (statusChanged) {
      if (patch.status !== "failed") delete next.error;
      if (patch.status === "ready" || patch.status === "failed") delete next.progress;
      this.close(id);
    }
    if (opts.persist === false && !statusChanged) this.records.set(id, next);
    else this.save(next);
    return next;
  }

  /**
   * What the incident's database is: "current"; "older" or "newer" when
   * kvrewind wrote it under another schema, which is not migrated
   * (store/schema.ts) but rebuilt from the input folder the incident keeps
   * (server.ts discards it and queues the incident's job); "foreign" for a
   * SQLite file that is not a kvrewind incident, which is never discarded or
   * changed. An incident with no database yet is "current": its job makes it.
   */
  databaseState(id: string): "current" | "other-schema" | "foreign" {
    const found = fileSchemaVersion(this.dbPathOf(id));
    if (found === null) return "foreign";
    return found === undefined || found === SCHEMA_VERSION ? "current" : "other-schema";
  }

  /**
   * Removes the incident's database, so that the next job ingests its input
   * folder into a new one; with it the timeline index servers before the
   * timeline moved into the incident file kept beside it.
   */
  discardDatabase(id: string): void {
    this.close(id);
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${this.dbPathOf(id)}${suffix}`, { force: true });
    rmSync(join(this.dirOf(id), "timeline.idx"), { force: true });
  }

  /** Removes an incident's folder entirely (an upload that never completed). */
  remove(id: string): void {
    this.close(id);
    this.records.delete(id);
    rmSync(this.dirOf(id), { recursive: true, force: true });
  }

  /** The read-only connection the API and time travel read through; only for a ready incident. */
  db(id: string): IncidentDb {
    return this.openedOf(id).db;
  }

  /**
   * A read on a connection of its own while the incident's job still writes
   * (WAL: it sees what the job has committed), closed after the read, so no
   * connection or index of a half-derived file is kept for the ready incident.
   */
  withEarlyReader<T>(id: string, read: (db: IncidentDb) => T): T {
    if (this.closed) throw new Error("the server is shutting down");
    const db = openIncident(this.dbPathOf(id), { readonly: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  }

  /**
   * The incident's timeline index: read from the incident file, where the
   * derive step stored it for the current events; built in memory, and not
   * stored, when the file holds none for them.
   */
  timeline(id: string): Promise<TimelineIndex> {
    const o = this.openedOf(id);
    o.index ??= Promise.resolve()
      .then(() => timelineIndexOf(o.db))
      .catch((err: unknown) => {
        delete o.index;
        throw err;
      });
    return o.index;
  }

  /** Closes every database; the registry answers no more reads. */
  closeAll(): void {
    this.closed = true;
    for (const id of [...this.opened.keys()]) this.close(id);
  }

  private openedOf(id: string): Opened {
    if (this.closed) throw new Error("the server is shutting down");
    let o = this.opened.get(id);
    if (!o) {
      o = { db: openIncident(this.dbPathOf(id), { readonly: true }) };
      this.opened.set(id, o);
    }
    return o;
  }

  private close(id: string): void {
    const o = this.opened.get(id);
    if (!o) return;
    o.db.close();
    this.opened.delete(id);
  }

  private save(record: IncidentRecord): void {
    this.records.set(record.id, record);
    const file = join(this.dirOf(record.id), "incident.json");
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify(record, null, 2));
    renameSync(tmp, file);
  }
}

export function slug(name: string): string {
  const s = archiveStem(name)
    .toLowerCase()
    .replace(/\.(log|jsonl)$/, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return s || "incident";
}
