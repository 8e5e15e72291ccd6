// Walks an incident's events in seq order through ONE reusable event object,
// a cursor over a decoded event block: each field is a getter that reads
// the current row's column only when the model asks for it (most kinds are
// skipped after reading `kind`), `attrs` is built once per event when read
// (`attr(key)` reads one attribute without building it), and `text` is
// fetched from the store only when read. The model must
// therefore copy what it keeps from an event, never the event itself, and
// must not modify `attrs`.

import type { StoredEvent } from "../../domain/event.js";
import type { Role } from "../../domain/vocabulary.js";
import type { IncidentDb } from "../db.js";
import { TelemetryKind } from "../../domain/kinds.js";
import { eventTexts, sampleOwnText, spanOwnText, type EventTexts } from "../eventText.js";
import { DecodedBlock } from "./blockCodec.js";
import { eventBlocks, type EventBlocks } from "./eventBlocks.js";
import type { PackedColumn } from "./packedColumn.js";
import { TS_INFERRED, TS_TIMELESS } from "../rows.js";

export class EventCursor implements StoredEvent {
  private i = 0;
  private attrsBuilt = false;
  private attrsObject: Record<string, unknown> | null = null;
  private data: DecodedBlock;
  private dicts: DecodedBlock["dicts"];
  private n: DecodedBlock["num"];
  private ids: DecodedBlock["ids"];
  private readonly texts: EventTexts;

  constructor(db: IncidentDb) {
    this.texts = eventTexts(db);
    this.data = EMPTY_BLOCK;
    this.n = EMPTY_BLOCK.num;
    this.ids = EMPTY_BLOCK.ids;
    this.dicts = EMPTY_BLOCK.dicts;
  }

  /** Points the cursor at a decoded block (after each decode: its dictionaries change). */
  bind(block: DecodedBlock): void {
    this.data = block;
    this.n = block.num;
    this.ids = block.ids;
    this.dicts = block.dicts;
  }

  /** Points the cursor at row `i` of its block. */
  moveTo(i: number): void {
    this.i = i;
    this.attrsBuilt = false;
  }

  /** The current event as a plain object (a copy the caller may keep). */
  toStoredEvent(): StoredEvent {
    return {
      seq: this.seq, tsUs: this.tsUs, tsInferred: this.tsInferred, ...(this.timeless && { timeless: true as const }), sourceId: this.sourceId, line: this.line, host: this.host,
      role: this.role, dp: this.dp, pp: this.pp, tp: this.tp, kind: this.kind, room: this.room, rid: this.rid, chunk: this.chunk,
      layer: this.layer, pageLo: this.pageLo, pageHi: this.pageHi, state: this.state, attrs: this.attrs, text: this.text,
    };
  }

  get seq(): number {
    return this.n.seq.at(this.i);
  }
  get tsUs(): number {
    return this.n.tsUs.at(this.i);
  }
  /** The record has no time of its own (its time was interpolated at ingest, or it is timeless). */
  get tsInferred(): boolean {
    return this.n.tsInferred.at(this.i) >= TS_INFERRED;
  }
  /** Its time is unknown: tsUs is its place in the order only (domain/event.ts). */
  get timeless(): boolean {
    return this.n.tsInferred.at(this.i) === TS_TIMELESS;
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
      this.attrsObject = this.data.attrs.object(this.i);
      this.attrsBuilt = true;
    }
    return this.attrsObject;
  }

  /** JSON.stringify(attrs), written without building the object when it was not built. */
  get attrsJson(): string | null {
    if (this.attrsBuilt) return this.attrsObject === null ? null : JSON.stringify(this.attrsObject);
    return this.data.attrs.json(this.i);
  }

  /** `attrs?.[key]` without building the object: the model reads a few attributes of many events. */
  attr(key: string): unknown {
    if (this.attrsBuilt) return this.attrsObject?.[key];
    return this.data.attrs.value(this.i, key);
  }

  get text(): string {
    const stored = this.texts.text(this.sourceId, this.line);
    if (this.kind === TelemetryKind.span) return spanOwnText(stored, (k) => this.attr(k), this.tsUs);
    return this.kind === TelemetryKind.metricSample ? sampleOwnText(stored, (k) => this.attr(k), this.tsUs) : stored;
  }
}

function orNull(v: number): number | null {
  return v === v ? v : null;
}

function word(dict: readonly string[], id: number): string | null {
  return id === id ? dict[id]! : null;
}

const EMPTY_BLOCK = new DecodedBlock(0);

/** Reads events in seq order from the blocks, one decoded block at a time. */
export class EventReader {
  readonly cursor: EventCursor;
  readonly blocks: EventBlocks;

  constructor(db: IncidentDb, blocks?: EventBlocks) {
    this.blocks = blocks ?? eventBlocks(db);
    this.cursor = new EventCursor(db);
  }

  /**
   * Calls `visit(cursor)` for every event with fromSeq <= seq <= toSeq, in order.
   * Returns how many events it visited.
   */
  forEach(fromSeq: number, toSeq: number, visit: (ev: EventCursor) => void): number {
    let visited = 0;
    const list = this.blocks.list;
    for (let c = this.blocks.indexAtOrAfter(fromSeq); c < list.length && list[c]!.firstSeq <= toSeq; c++) {
      const d = this.blocks.decode(c);
      this.cursor.bind(d);
      const seqs = d.num.seq;
      let i = 0;
      if (list[c]!.firstSeq < fromSeq) while (i < d.count && seqs.at(i) < fromSeq) i++;
      // A block that ends within the range needs no per-event bound check.
      const end = list[c]!.lastSeq <= toSeq ? d.count : upperBound(seqs, i, d.count, toSeq);
      for (; i < end; i++) {
        this.cursor.moveTo(i);
        visit(this.cursor);
        visited++;
      }
      if (end < d.count) return visited;
    }
    return visited;
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
