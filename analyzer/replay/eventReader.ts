// Walks an incident's events in seq order through ONE reusable event object,
// a cursor over the decoded column chunk: each field is a getter that reads
// the current row's column only when the model asks for it (most kinds are
// skipped after reading `kind`), `attrs` is built once per event when read
// (`attr(key)` reads one attribute without building it), and `text` is
// fetched from the store only when read. The model must
// therefore copy what it keeps from an event, never the event itself, and
// must not modify `attrs`.

import type { Role } from "../../ingest/event.js";
import type { IncidentDb } from "../../ingest/store/db.js";
import { eventTexts, type EventTexts } from "../../ingest/store/eventText.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { DecodedChunk } from "./columnCodec.js";
import type { PackedColumn } from "./packedColumn.js";
import { CHUNK_EVENTS, EventColumns } from "./eventColumns.js";

export class EventCursor implements StoredEvent {
  /** The column cache does not carry it: the model does not look at it, and witnesses are read through the store. */
  readonly tsInferred = false;
  private i = 0;
  private attrsBuilt = false;
  private attrsObject: Record<string, unknown> | null = null;
  private dicts: DecodedChunk["dicts"];
  private readonly texts: EventTexts;
  private readonly n: DecodedChunk["num"];
  private readonly ids: DecodedChunk["ids"];

  /** `data` is decoded into again and again; call `rebind` after each decode. */
  constructor(
    db: IncidentDb,
    private readonly data: DecodedChunk,
  ) {
    this.texts = eventTexts(db);
    this.n = data.num;
    this.ids = data.ids;
    this.dicts = data.dicts;
  }

  /** The chunk was decoded anew: its string dictionaries changed. */
  rebind(): void {
    this.dicts = this.data.dicts;
  }

  /** Points the cursor at row `i` of the chunk. */
  moveTo(i: number): void {
    this.i = i;
    this.attrsBuilt = false;
  }

  get seq(): number {
    return this.n.seq.at(this.i);
  }
  get tsUs(): number {
    return this.n.tsUs.at(this.i);
  }
  get sourceId(): number {
    return this.n.sourceId.at(this.i);
  }
  get line(): number {
    return this.n.line.at(this.i);
  }
  get dp(): number | null {
    return orNull(this.n.dp.at(this.i));
  }
  get pp(): number | null {
    return orNull(this.n.pp.at(this.i));
  }
  get tp(): number | null {
    return orNull(this.n.tp.at(this.i));
  }
  get chunk(): number | null {
    return orNull(this.n.chunk.at(this.i));
  }
  get layer(): number | null {
    return orNull(this.n.layer.at(this.i));
  }
  get pageLo(): number | null {
    return orNull(this.n.pageLo.at(this.i));
  }
  get pageHi(): number | null {
    return orNull(this.n.pageHi.at(this.i));
  }
  get state(): number | null {
    return orNull(this.n.state.at(this.i));
  }
  get kind(): string {
    return this.dicts.kind[this.ids.kind.at(this.i)]!;
  }
  get host(): string | null {
    return word(this.dicts.host, this.ids.host.at(this.i));
  }
  get role(): Role | null {
    return word(this.dicts.role, this.ids.role.at(this.i)) as Role | null;
  }
  get room(): string | null {
    return word(this.dicts.room, this.ids.room.at(this.i));
  }
  get rid(): string | null {
    return word(this.dicts.rid, this.ids.rid.at(this.i));
  }

  get attrs(): Record<string, unknown> | null {
    if (!this.attrsBuilt) {
      this.attrsObject = this.data.attrs.object(this.i, this.n.pageLo.at(this.i), this.n.pageHi.at(this.i));
      this.attrsBuilt = true;
    }
    return this.attrsObject;
  }

  /** `attrs?.[key]` without building the object: the model reads a few attributes of many events. */
  attr(key: string): unknown {
    if (this.attrsBuilt) return this.attrsObject?.[key];
    return this.data.attrs.value(this.i, key, this.n.pageLo.at(this.i), this.n.pageHi.at(this.i));
  }

  get text(): string {
    return this.texts.text(this.sourceId, this.line);
  }
}

function orNull(v: number): number | null {
  return v === v ? v : null;
}

function word(dict: readonly string[], id: number): string | null {
  return id === id ? dict[id]! : null;
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
      if (chunks[c]!.firstSeq < fromSeq) while (i < d.count && seqs.at(i) < fromSeq) i++;
      // A chunk that ends within the range needs no per-event bound check.
      const end = chunks[c]!.lastSeq <= toSeq ? d.count : upperBound(seqs, i, d.count, toSeq);
      for (; i < end; i++) {
        this.cursor.moveTo(i);
        visit(this.cursor);
        visited++;
      }
      if (end < d.count) return visited;
    }
    return visited;
  }

  private decoded(index: number): DecodedChunk {
    if (this.loaded !== index) {
      this.columns.load(index, this.chunk);
      this.cursor.rebind();
      this.loaded = index;
    }
    return this.chunk;
  }
}

/** The first row in [from, to) whose seq is above `seq` (rows are in seq order), else `to`. */
function upperBound(seqs: PackedColumn, from: number, to: number, seq: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqs.at(mid) <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
