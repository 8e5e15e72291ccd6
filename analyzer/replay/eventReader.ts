// Walks an incident's events in seq order through ONE reusable event object:
// its fields are overwritten for each event, `attrs` is built only when read
// (once per event), and `text` is fetched from the store only when read. The
// model must therefore copy what it keeps from an event, never the event
// itself, and must not modify `attrs`.

import type { Role } from "../../ingest/event.js";
import type { IncidentDb } from "../../ingest/store/db.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { DecodedChunk } from "./columnCodec.js";
import { CHUNK_EVENTS, EventColumns } from "./eventColumns.js";

export class EventCursor implements StoredEvent {
  seq = 0;
  tsUs = 0;
  sourceId = 0;
  line = 0;
  host: string | null = null;
  role: Role | null = null;
  dp: number | null = null;
  pp: number | null = null;
  tp: number | null = null;
  kind = "";
  room: string | null = null;
  rid: string | null = null;
  chunk: number | null = null;
  layer: number | null = null;
  pageLo: number | null = null;
  pageHi: number | null = null;
  state: number | null = null;
  private index = 0;
  private attrsBuilt = false;
  private attrsObject: Record<string, unknown> | null = null;
  private data: DecodedChunk;
  private readonly textStmt;

  constructor(db: IncidentDb, data: DecodedChunk) {
    this.data = data;
    this.textStmt = db.prepare("SELECT text FROM events WHERE seq = ?").pluck();
  }

  get attrs(): Record<string, unknown> | null {
    if (!this.attrsBuilt) {
      this.attrsObject = this.data.attrs.object(this.index, this.pageLo ?? NaN, this.pageHi ?? NaN);
      this.attrsBuilt = true;
    }
    return this.attrsObject;
  }

  get text(): string {
    return this.textStmt.get(this.seq) as string;
  }

  /** Points the cursor at row `i` of the decoded chunk `d`. */
  moveTo(d: DecodedChunk, i: number): void {
    this.data = d;
    const num = d.num;
    const ids = d.ids;
    const dicts = d.dicts;
    this.seq = num.seq[i]!;
    this.tsUs = num.tsUs[i]!;
    this.sourceId = num.sourceId[i]!;
    this.line = num.line[i]!;
    this.dp = orNull(num.dp[i]!);
    this.pp = orNull(num.pp[i]!);
    this.tp = orNull(num.tp[i]!);
    this.chunk = orNull(num.chunk[i]!);
    this.layer = orNull(num.layer[i]!);
    this.pageLo = orNull(num.pageLo[i]!);
    this.pageHi = orNull(num.pageHi[i]!);
    this.state = orNull(num.state[i]!);
    this.kind = dicts.kind[ids.kind[i]!]!;
    this.host = word(dicts.host, ids.host[i]!);
    this.role = word(dicts.role, ids.role[i]!) as Role | null;
    this.room = word(dicts.room, ids.room[i]!);
    this.rid = word(dicts.rid, ids.rid[i]!);
    this.index = i;
    this.attrsBuilt = false;
  }
}

function orNull(v: number): number | null {
  return v === v ? v : null;
}

function word(dict: readonly string[], id: number): string | null {
  return id < 0 ? null : dict[id]!;
}

/** Reads events in seq order from the column cache, one decoded chunk at a time. */
export class EventReader {
  readonly cursor: EventCursor;
  private readonly chunk = new DecodedChunk(CHUNK_EVENTS);
  private loaded = -1;

  constructor(
    db: IncidentDb,
    readonly columns: EventColumns,
  ) {
    this.cursor = new EventCursor(db, this.chunk);
  }

  /**
   * Calls `visit(cursor)` for every event with fromSeq <= seq <= toSeq, in order.
   * Returns how many events it visited.
   */
  forEach(fromSeq: number, toSeq: number, visit: (ev: EventCursor) => void): number {
    let visited = 0;
    const chunks = this.columns.chunks;
    for (let c = this.columns.chunkAtOrAfter(fromSeq); c < chunks.length && chunks[c]!.firstSeq <= toSeq; c++) {
      const d = this.decoded(c);
      const seqs = d.num.seq;
      let i = 0;
      if (chunks[c]!.firstSeq < fromSeq) while (i < d.count && seqs[i]! < fromSeq) i++;
      for (; i < d.count; i++) {
        if (seqs[i]! > toSeq) return visited;
        this.cursor.moveTo(d, i);
        visit(this.cursor);
        visited++;
      }
    }
    return visited;
  }

  private decoded(index: number): DecodedChunk {
    if (this.loaded !== index) {
      this.columns.load(index, this.chunk);
      this.loaded = index;
    }
    return this.chunk;
  }
}
