// Writing an ingest into an incident database.
//
// One ingest is one exclusive transaction: a second ingest into the same file
// waits for it (up to a limit, then fails with a clear message), and an ingest
// killed at any point (kill -9 included) rolls back entirely on the next open,
// so a source is either complete or absent. For the bulk load the connection
// leaves WAL for a rollback journal: new pages are then written once (not to
// the WAL and again at checkpoint) and the journal holds only the few pages
// that existed before. synchronous=OFF is safe against a killed process (the
// OS still has every write); the database returns to WAL when the ingest ends.

import { readFileSync } from "node:fs";
import type { ClockAlignment } from "../domain/clockAnchors.js";
import type { Role } from "../domain/vocabulary.js";
import type { RowBatch } from "./rows.js";
import { TS_INFERRED, TS_TIMELESS, type RowSink } from "./rows.js";
import { BlockWriter } from "./blocks/blockWriter.js";
import { createBlockTables, dropBlockTables, KeyDim, LIVE_TABLES, renameBlockTables, SET_ASIDE_TABLES } from "./blocks/blockTables.js";
import { EventBlocks } from "./blocks/eventBlocks.js";
import { scanEvents } from "./blocks/scan.js";
import { getMetaJson, openIncident, setMeta, type IncidentDb } from "./db.js";
import type { SourceStats } from "./read/sources.js";
import { TextBlockWriter, type TextBlock } from "./eventText.js";
import { packageFile } from "./packageFiles.js";

export class DatabaseBusyError extends Error {
  readonly exitCode = 2;
}

/** An input as the writer records it; its statistics follow once it is loaded (store/read/sources.ts SourceRow). */
export interface NewSource {
  path: string;
  format: string;
  /** The container wrapper stripped from each line: none, cri, docker-json, kubectl, journald. */
  wrapper: string | null;
  host: string | null;
  role: string | null;
  sha256: string;
  bytes: number;
  /** The live file a rotated part was cut from (ingest/inputs/rotation.ts); absent: the source's own path. */
  stream?: string;
}

/** What makes a source the same as one already ingested: the same content under the same path. */
/** A source the incident holds, as an ingest that meets its file again reports it. */
export interface KnownSource {
  path: string;
  sha256: string;
  bytes: number;
  host: string | null;
  role: Role | null;
  lines: number;
}

export function sourceKey(path: string, sha256: string): string {
  return `${path}\u0000${sha256}`;
}

/** A file of page bytes read through a page-dump index: a complete source of pages, not of events. */
export interface PageByteSourceRow {
  path: string;
  format: string;
  host: string | null;
  sha256: string;
  bytes: number;
  pages: number;
  reason: string;
}

/** An input that was not ingested: it is recorded all the same, with why. */
export interface NotIngestedSource {
  path: string;
  format: string | null;
  host: string | null;
  role: string | null;
  sha256: string | null;
  bytes: number;
  lines: number;
  status: "skipped" | "refused";
  reason: string;
}

/** The settings an incident's logs were read with (meta `ingest_settings`). */
export interface IngestSettings {
  /** The --tz given, as written ("UTC" when none). */
  tz: string;
}

export interface StoredSourceRef {
  id: number;
  path: string;
  host: string | null;
  /** Some event of the source has a time (a file of timeless records has none). */
  timed: boolean;
  format: string | null;
}

const TOOL_VERSION = (JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { version: string }).version;
/**
 * SQLite page cache during the load (KiB, negative = size, not pages). Blocks
 * are appended, never revisited: a small cache spills them to the file as
 * they come instead of holding the whole load until the commit.
 */
const LOAD_CACHE_KIB = -2048;

export class IncidentWriter implements RowSink {
  /** Created when the transaction has begun: it continues after the stored events. */
  private blocks: BlockWriter | null = null;
  private readonly texts: TextBlockWriter;
  private readonly leftWal: boolean;
  private open = true;

  private constructor(
    readonly db: IncidentDb,
    readonly path: string,
  ) {
    this.leftWal = this.enterBulkJournal();
    db.pragma("synchronous = OFF");
    db.pragma(`cache_size = ${LOAD_CACHE_KIB}`);
    this.texts = new TextBlockWriter(db);
  }

  /** Opens (creating when new) an incident for writing; waits up to lockTimeoutMs for another writer. */
  static open(path: string, lockTimeoutMs: number): IncidentWriter {
    return whileBusy(path, lockTimeoutMs, (remainingMs) => {
      const db = openIncident(path, { busyTimeoutMs: remainingMs });
      try {
        return new IncidentWriter(db, path);
      } catch (e) {
        db.close();
        throw e;
      }
    });
  }

  /** Leaves WAL for the load when no other connection holds the file; false when it stays in WAL. */
  private enterBulkJournal(): boolean {
    const timeout = this.db.pragma("busy_timeout", { simple: true }) as number;
    this.db.pragma("busy_timeout = 50");
    try {
      return this.db.pragma("journal_mode = DELETE", { simple: true }) === "delete";
    } catch {
      return false;
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  /** Takes the write lock for the whole ingest (waits for a running ingest to finish). */
  begin(lockTimeoutMs: number): void {
    whileBusy(this.path, lockTimeoutMs, (remainingMs) => {
      this.db.pragma(`busy_timeout = ${remainingMs}`);
      this.db.exec("BEGIN EXCLUSIVE");
    });
  }

  commit(): void {
    this.db.exec("COMMIT");
  }

  rollback(): void {
    if (this.db.inTransaction) this.db.exec("ROLLBACK");
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.rollback();
    if (this.leftWal) {
      try {
        this.db.pragma("journal_mode = WAL");
      } catch {
        // Another connection now holds the file; the next openIncident restores WAL.
      }
    }
    this.db.close();
  }

  /** Every complete source, keyed by (path, sha256) as `sourceKey` makes them: what an ingest of the same file again reports. */
  knownSources(): Map<string, KnownSource> {
    const rows = this.db.prepare("SELECT path, sha256, bytes, host, role, lines FROM sources WHERE status = 'complete'").all() as KnownSource[];
    return new Map(rows.map((r) => [sourceKey(r.path, r.sha256), r]));
  }

  storedSources(): StoredSourceRef[] {
    const rows = this.db.prepare("SELECT id, path, host, format, first_ts_us IS NOT NULL AS timed FROM sources WHERE status = 'complete' ORDER BY id").all() as (Omit<StoredSourceRef, "timed"> & { timed: number })[];
    return rows.map((r) => ({ ...r, timed: r.timed === 1 }));
  }

  /** Events in the incident (seqs are dense from 1), those of this ingest included. */
  eventCount(): number {
    if (this.blocks) return this.blocks.seqAfter - 1;
    return this.storedBlocks().list.at(-1)?.lastSeq ?? 0;
  }

  hasEvents(): boolean {
    return this.eventCount() > 0;
  }

  private storedBlocks(): EventBlocks {
    return new EventBlocks(this.db, LIVE_TABLES);
  }

  /** The block writer, continuing after the stored events. */
  private blockWriter(): BlockWriter {
    if (!this.blocks) {
      const list = this.storedBlocks().list;
      const last = list.at(-1);
      this.blocks = new BlockWriter(this.db, LIVE_TABLES, { nextSeq: (last?.lastSeq ?? 0) + 1, nextBlock: last === undefined ? 0 : Math.max(...list.map((b) => b.block)) + 1 });
    }
    return this.blocks;
  }

  addSource(s: NewSource): number {
    const info = this.db
      .prepare(
        "INSERT INTO sources (path, format, wrapper, host, role, sha256, bytes, stream, status, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'ingesting', ?)",
      )
      .run(s.path, s.format, s.wrapper, s.host, s.role, s.sha256, s.bytes, s.stream ?? s.path, new Date().toISOString());
    return Number(info.lastInsertRowid);
  }

  /**
   * Records a file of page bytes, unless the incident already holds the
   * same content under the same path (a repeated ingest is a no-op); the
   * same bytes under another path are another rank's dump, a source of their own.
   */
  addPageByteSource(s: PageByteSourceRow): void {
    const known = this.db.prepare("SELECT 1 FROM sources WHERE path = ? AND sha256 = ? AND status = 'complete'").get(s.path, s.sha256);
    if (known !== undefined) return;
    this.db
      .prepare("INSERT INTO sources (path, format, host, sha256, bytes, pages, stream, status, reason, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?)")
      .run(s.path, s.format, s.host, s.sha256, s.bytes, s.pages, s.path, s.reason, new Date().toISOString());
  }

  /**
   * Records an input that was skipped or refused, unless the incident already
   * records the same path, content and outcome (a repeated ingest is a no-op).
   * True when a row was added.
   */
  recordNotIngested(s: NotIngestedSource): boolean {
    const sha = s.sha256 ?? "";
    const known = this.db.prepare("SELECT 1 FROM sources WHERE path = ? AND sha256 = ? AND status = ?").get(s.path, sha, s.status);
    if (known !== undefined) return false;
    this.db
      .prepare(
        "INSERT INTO sources (path, format, host, role, sha256, bytes, lines, stream, status, reason, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(s.path, s.format ?? "none", s.host, s.role, sha, s.bytes, s.lines, s.path, s.status, s.reason, new Date().toISOString());
    return true;
  }

  completeSource(id: number, t: SourceStats): void {
    this.db
      .prepare(
        "UPDATE sources SET lines = ?, events = ?, unparsed = ?, inferred = ?, errors = ?, error_count = ?, unparsed_shapes = ?, " +
          "time_origin = ?, first_ts_us = ?, last_ts_us = ?, ranks = ?, status = 'complete' WHERE id = ?",
      )
      .run(
        t.lines,
        t.events,
        t.unparsed,
        t.inferred,
        JSON.stringify(t.errors),
        t.errorCount,
        JSON.stringify(t.unparsedShapes),
        t.timeOrigin,
        t.firstTsUs,
        t.lastTsUs,
        JSON.stringify(t.ranks),
        id,
      );
  }

  /** Appends row i of a batch; rows take the next seqs in the order they are added. */
  addRow(batch: RowBatch, i: number): void {
    this.blockWriter().addRow(batch, i);
  }

  /** Appends a row given as its values in store/rows.ts EVENT_COLUMNS order. */
  addValues(row: readonly unknown[]): void {
    this.blockWriter().addValues(row);
  }

  addTexts(blocks: readonly TextBlock[]): void {
    for (const b of blocks) this.texts.write(b);
  }

  /** Writes the rows added and not yet written (the last, short block). */
  flushRows(): void {
    this.blocks?.flush();
  }

  /**
   * Moves the stored events aside so that the event blocks can be rebuilt in
   * the new global order (new sources interleave with the old in time, and the
   * clock offsets may change). Their seqs change, so the analysis of the
   * incident (findings, suspects, snapshots) is dropped with them.
   */
  setAsideEvents(): void {
    this.db.exec(renameBlockTables(LIVE_TABLES, SET_ASIDE_TABLES));
    this.db.exec(createBlockTables(LIVE_TABLES));
    this.db.exec("DELETE FROM findings; DELETE FROM suspects; DELETE FROM snapshots;");
    this.blocks = null;
    this.previous = new EventBlocks(this.db, SET_ASIDE_TABLES);
  }

  private previous: EventBlocks | null = null;

  /**
   * The set-aside events of one source, in their order, as row pages (store/rows.ts
   * EVENT_COLUMNS order). The sources are merged in step, so the blocks they
   * share are decoded once (EventBlocks keeps the recent ones).
   */
  *previousEvents(sourceId: number): Generator<unknown[][]> {
    const previous = this.previous!;
    for (const i of previous.indexesWith(KeyDim.source, String(sourceId))) {
      const page: unknown[][] = [];
      const b = previous.list[i]!;
      scanEvents(
        this.db,
        { sourceId, fromSeq: b.firstSeq, toSeq: b.lastSeq },
        (ev) => {
          page.push([
            ev.tsUs, ev.sourceId, ev.line, ev.dp, ev.pp, ev.tp, ev.chunk, ev.layer, ev.pageLo, ev.pageHi, ev.state, ev.timeless ? TS_TIMELESS : ev.tsInferred ? TS_INFERRED : null,
            ev.host, ev.role, ev.kind, ev.room, ev.rid, ev.attrs,
          ]);
        },
        { blocks: previous },
      );
      if (page.length > 0) yield page;
    }
  }

  dropPreviousEvents(): void {
    this.db.exec(dropBlockTables(SET_ASIDE_TABLES));
    this.previous = null;
  }

  /** The zone the incident's logs were read in, null for an incident written before it was recorded. */
  ingestSettings(): IngestSettings | null {
    return getMetaJson<IngestSettings>(this.db, "ingest_settings") ?? null;
  }

  saveIngestSettings(settings: IngestSettings): void {
    setMeta(this.db, "ingest_settings", JSON.stringify(settings));
  }

  /** First and last event time of the ingested sources, null when there are none. */
  ingestedSpan(): { firstUs: number; lastUs: number } | null {
    const row = this.db
      .prepare("SELECT MIN(first_ts_us) AS firstUs, MAX(last_ts_us) AS lastUs FROM sources WHERE status = 'complete' AND first_ts_us IS NOT NULL")
      .get() as { firstUs: number | null; lastUs: number | null };
    return row.firstUs === null || row.lastUs === null ? null : { firstUs: row.firstUs, lastUs: row.lastUs };
  }

  clockOffsets(): Record<string, number> {
    return getMetaJson<Record<string, number>>(this.db, "clock_offsets") ?? {};
  }

  /** Records the clock offsets now applied to the stored times. */
  saveClock(alignment: ClockAlignment): void {
    setMeta(this.db, "clock_offsets", JSON.stringify(alignment.offsetsUs));
    setMeta(this.db, "clock_alignment", JSON.stringify({ consistent: alignment.consistent, pairs: alignment.pairs }));
    setMeta(this.db, "tool_version", TOOL_VERSION);
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: string }).code;
  return code !== undefined && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Pause between tries when SQLite answers busy without waiting. */
const BUSY_RETRY_MS = 50;

/**
 * Runs `attempt` (given the milliseconds left) until it stops failing busy,
 * for `timeoutMs` in all. SQLite waits in its busy handler for most locks,
 * but answers busy at once in some states (a deadlock it avoids, another
 * connection changing the file's journal mode — the writer leaves WAL for a
 * load): an ingest started beside two others failed that way in CI, seconds
 * into its ten minutes.
 */
function whileBusy<T>(path: string, timeoutMs: number, attempt: (remainingMs: number) => T): T {
  const start = Date.now();
  for (;;) {
    try {
      return attempt(Math.max(0, timeoutMs - (Date.now() - start)));
    } catch (e) {
      const waitedMs = Date.now() - start;
      if (!isBusy(e)) throw e;
      if (waitedMs >= timeoutMs) {
        throw new DatabaseBusyError(
          `${path}: another process is writing this incident (waited ${Math.round(waitedMs / 1000)} s); try again when it has finished`,
        );
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(BUSY_RETRY_MS, timeoutMs - waitedMs));
    }
  }
}
