// The replay's column cache of an incident's events (see columnCodec.ts for
// why it exists): built once from `events` in seq order, stored in the
// `event_columns` table with the events' fingerprint in meta, reused by every
// replay and time-travel query until the events change. A read-only database
// gets the same cache built in memory instead.

import type { Statement } from "better-sqlite3";
import type { IncidentDb } from "../../ingest/store/db.js";
import { getMetaJson, setMeta } from "../../ingest/store/db.js";
import { REPLAY_CACHE_TABLES } from "../../ingest/store/schema.js";
import { DecodedChunk, encodeChunk, EVENT_ROW_SQL, type EventRow } from "./columnCodec.js";
import { eventsFingerprint } from "./fingerprint.js";

/** Events per chunk: small enough that a time-travel query decodes little, large enough to amortise a read. */
export const CHUNK_EVENTS = 16_384;

const META_KEY = "event_columns";
/** Bump when columnCodec.ts or attrsCodec.ts change the chunk layout (3: ts_inferred). */
const COLUMNS_FORMAT = 3;

interface ColumnsMeta {
  format: number;
  fingerprint: string;
  chunkEvents: number;
  events: number;
  bytes: number;
}

export interface ChunkEntry {
  firstSeq: number;
  lastSeq: number;
  count: number;
}

export interface ColumnsInfo {
  events: number;
  chunks: number;
  bytes: number;
  /** True when this call built the cache (stored, or in memory for a read-only database). */
  built: boolean;
  stored: boolean;
}

export class EventColumns {
  /** Reads one stored chunk; prepared on first use (a replay reads hundreds of chunks). */
  private chunkStmt: Statement | null = null;

  /** Use `EventColumns.open`. */
  constructor(
    private readonly db: IncidentDb,
    readonly fingerprint: string,
    readonly chunks: readonly ChunkEntry[],
    private readonly memory: Buffer[] | null,
    readonly info: ColumnsInfo,
  ) {}

  /** The cache for the current events, building it when missing or stale. */
  static open(db: IncidentDb, onProgress?: (eventsDone: number) => void): EventColumns {
    const fingerprint = eventsFingerprint(db);
    if (!db.readonly) db.exec(REPLAY_CACHE_TABLES);
    const meta = db.readonly ? undefined : readMeta(db);
    if (meta && meta.format === COLUMNS_FORMAT && meta.fingerprint === fingerprint && meta.chunkEvents === CHUNK_EVENTS) {
      const chunks = db
        .prepare("SELECT first_seq AS firstSeq, last_seq AS lastSeq, count FROM event_columns ORDER BY first_seq")
        .all() as ChunkEntry[];
      const info = { events: meta.events, chunks: chunks.length, bytes: meta.bytes, built: false, stored: true };
      return new EventColumns(db, fingerprint, chunks, null, info);
    }
    return db.readonly ? buildInMemory(db, fingerprint, onProgress) : buildStored(db, fingerprint, onProgress);
  }

  get events(): number {
    return this.info.events;
  }

  /** Decodes chunk `index` into `into` (whose arrays are reused). */
  load(index: number, into: DecodedChunk): DecodedChunk {
    if (this.memory) return into.decode(this.memory[index]!);
    this.chunkStmt ??= this.db.prepare("SELECT data FROM event_columns WHERE first_seq = ?").pluck();
    return into.decode(this.chunkStmt.get(this.chunks[index]!.firstSeq) as Buffer);
  }

  /** The index of the chunk holding `seq`, or of the first chunk after it; chunks.length when past the end. */
  chunkAtOrAfter(seq: number): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.chunks[mid]!.lastSeq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function readMeta(db: IncidentDb): ColumnsMeta | undefined {
  return getMetaJson<ColumnsMeta>(db, META_KEY);
}

function* encodedChunks(db: IncidentDb, onProgress?: (eventsDone: number) => void): Generator<[ChunkEntry, Buffer]> {
  const stmt = db.prepare(`SELECT ${EVENT_ROW_SQL} FROM events WHERE seq > ? ORDER BY seq LIMIT ${CHUNK_EVENTS}`).raw();
  let after = -Infinity;
  let done = 0;
  for (;;) {
    const rows = stmt.all(after) as EventRow[];
    if (rows.length === 0) return;
    const firstSeq = rows[0]![0];
    after = rows[rows.length - 1]![0];
    done += rows.length;
    yield [{ firstSeq, lastSeq: after, count: rows.length }, encodeChunk(rows)];
    onProgress?.(done);
  }
}

function buildStored(db: IncidentDb, fingerprint: string, onProgress?: (n: number) => void): EventColumns {
  const insert = db.prepare("INSERT INTO event_columns (first_seq, last_seq, count, data) VALUES (?, ?, ?, ?)");
  const chunks: ChunkEntry[] = [];
  let bytes = 0;
  db.transaction(() => {
    db.exec("DELETE FROM event_columns");
    for (const [entry, blob] of encodedChunks(db, onProgress)) {
      insert.run(entry.firstSeq, entry.lastSeq, entry.count, blob);
      chunks.push(entry);
      bytes += blob.byteLength;
    }
    const events = chunks.reduce((n, c) => n + c.count, 0);
    setMeta(db, META_KEY, JSON.stringify({ format: COLUMNS_FORMAT, fingerprint, chunkEvents: CHUNK_EVENTS, events, bytes } satisfies ColumnsMeta));
  })();
  const events = chunks.reduce((n, c) => n + c.count, 0);
  return new EventColumns(db, fingerprint, chunks, null, { events, chunks: chunks.length, bytes, built: true, stored: true });
}

function buildInMemory(db: IncidentDb, fingerprint: string, onProgress?: (n: number) => void): EventColumns {
  const chunks: ChunkEntry[] = [];
  const memory: Buffer[] = [];
  let bytes = 0;
  for (const [entry, blob] of encodedChunks(db, onProgress)) {
    chunks.push(entry);
    memory.push(blob);
    bytes += blob.byteLength;
  }
  const events = chunks.reduce((n, c) => n + c.count, 0);
  return new EventColumns(db, fingerprint, chunks, memory, { events, chunks: chunks.length, bytes, built: true, stored: false });
}
