// The raw text of events (the log line, or every line of a multi-line record
// such as a traceback), kept out of the events rows: per source, the texts
// of consecutive events in blocks of the `event_text` table, found by
// (source_id, line). Kept apart from the event blocks, so that reading
// events never decompresses text; the text is read only where a line is
// shown (evidence, the UI), a block at a time.
//
// A text belongs to a (source, line): the one record that starts on that
// line. Events that share a line (a Flight Recorder entry gives an enter and
// an exit) share its text, and a text does not change when new sources
// reorder the events, so blocks are written once, at ingest. The text of a
// block is compressed (codec.ts) where the block is built, in the parse
// worker; lines and ends stay plain for the binary search.

import { isoFromUs } from "../domain/timeFormat.js";
import { compress, decompress } from "./codec.js";
import type { IncidentDb } from "./db.js";

export const EVENT_TEXT_TABLE = `
  -- lines: uint32 LE line of each text; ends: uint32 LE end offset of each
  -- text in the decompressed text (UTF-8, back to back; text is compressed).
  -- first/last_line bound the lines.
  CREATE TABLE event_text (
    id          INTEGER PRIMARY KEY,
    source_id   INTEGER NOT NULL,
    first_line  INTEGER NOT NULL,
    last_line   INTEGER NOT NULL,
    lines       BLOB NOT NULL,
    ends        BLOB NOT NULL,
    text        BLOB NOT NULL
  );
  CREATE INDEX event_text_lines ON event_text(source_id, first_line);
`;

export interface TextBlock {
  sourceId: number;
  firstLine: number;
  lastLine: number;
  lines: Uint32Array;
  ends: Uint32Array;
  /** The texts back to back, compressed. */
  text: Uint8Array;
}

/** A block is closed once its texts reach this many bytes or entries. */
const BLOCK_BYTES = 32 * 1024;
const BLOCK_ENTRIES = 512;

/** Collects the texts of one source's events, in the order they come, into blocks. */
export class TextBlockBuilder {
  private bytes = Buffer.allocUnsafeSlow(BLOCK_BYTES * 2);
  private used = 0;
  /** The block's entries so far: `count` lines and their texts' ends, in arrays reused from block to block. */
  private readonly lines = new Uint32Array(BLOCK_ENTRIES);
  private readonly ends = new Uint32Array(BLOCK_ENTRIES);
  private count = 0;
  private lastLine = -1;
  private sorted = true;

  constructor(private readonly sourceId: number) {}

  /** Adds the text of the record on `line`; returns a closed block when one is full. */
  add(line: number, text: string): TextBlock | undefined {
    // No text to keep (a sample whose text is rendered from its fields where it is shown): reading its line gives "".
    if (text.length === 0 || line === this.lastLine) return undefined;
    if (line < this.lastLine) this.sorted = false;
    this.lastLine = line;
    const room = text.length * 3;
    if (this.used + room > this.bytes.length) this.grow(this.used + room);
    this.used += this.bytes.write(text, this.used);
    this.lines[this.count] = line;
    this.ends[this.count++] = this.used;
    return this.used >= BLOCK_BYTES || this.count >= BLOCK_ENTRIES ? this.close() : undefined;
  }

  /** The block being built, if it holds any text. */
  close(): TextBlock | undefined {
    if (this.count === 0) return undefined;
    const block = this.sorted ? this.block() : this.sortedBlock();
    this.used = 0;
    this.count = 0;
    this.lastLine = -1;
    this.sorted = true;
    return block;
  }

  private block(): TextBlock {
    const n = this.count;
    return {
      sourceId: this.sourceId,
      firstLine: this.lines[0]!,
      lastLine: this.lines[n - 1]!,
      lines: this.lines.slice(0, n),
      ends: this.ends.slice(0, n),
      text: compressed(this.bytes.subarray(0, this.used)),
    };
  }

  /** Texts that came out of line order (a Flight Recorder dump is read in time order) sorted by line. */
  private sortedBlock(): TextBlock {
    const order = Array.from({ length: this.count }, (_, i) => i).sort((a, b) => this.lines[a]! - this.lines[b]!);
    const text = new Uint8Array(this.used);
    const ends = new Uint32Array(order.length);
    let at = 0;
    order.forEach((i, k) => {
      const start = i === 0 ? 0 : this.ends[i - 1]!;
      text.set(this.bytes.subarray(start, this.ends[i]!), at);
      at += this.ends[i]! - start;
      ends[k] = at;
    });
    const lines = Uint32Array.from(order, (i) => this.lines[i]!);
    return { sourceId: this.sourceId, firstLine: lines[0]!, lastLine: lines[lines.length - 1]!, lines, ends, text: compressed(text) };
  }

  private grow(need: number): void {
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, need));
    this.bytes.copy(bigger, 0, 0, this.used);
    this.bytes = bigger;
  }
}

/** A compressed copy in a buffer of its own (blocks are transferred between threads: never a view of a pool). */
function compressed(text: Uint8Array): Uint8Array {
  return new Uint8Array(compress(text));
}

/** Writes text blocks into an incident (inside the writer's transaction). */
export class TextBlockWriter {
  private readonly insert;

  constructor(db: IncidentDb) {
    this.insert = db.prepare("INSERT INTO event_text (source_id, first_line, last_line, lines, ends, text) VALUES (?, ?, ?, ?, ?, ?)");
  }

  write(b: TextBlock): void {
    this.insert.run(b.sourceId, b.firstLine, b.lastLine, bytesOf(b.lines), bytesOf(b.ends), bytesOf(b.text));
  }
}

function bytesOf(a: Uint32Array | Uint8Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

interface StoredBlock {
  firstLine: number;
  lastLine: number;
  lines: Buffer;
  ends: Buffer;
  text: Buffer;
}

/**
 * Reads event texts by (source_id, line). The last block read of each source
 * is kept, so reading the events of a source in order decodes each block once.
 */
export class EventTexts {
  private readonly find;
  private readonly recent = new Map<number, StoredBlock>();

  constructor(db: IncidentDb) {
    this.find = db.prepare(
      "SELECT first_line AS firstLine, last_line AS lastLine, lines, ends, text FROM event_text " +
        "WHERE source_id = ? AND first_line <= ? AND last_line >= ? ORDER BY first_line DESC",
    );
  }

  /** The text of the record on `line` of source `sourceId`; "" when the store has none. */
  text(sourceId: number, line: number): string {
    const cached = this.recent.get(sourceId);
    if (cached && line >= cached.firstLine && line <= cached.lastLine) {
      const text = textOf(cached, line);
      if (text !== undefined) return text;
    }
    // Candidates come latest first; blocks of a source overlap only where its
    // records came out of line order, so the first candidate holds the line
    // otherwise: stop there (reading on would walk every earlier block).
    for (const stored of this.find.iterate(sourceId, line, line) as Iterable<StoredBlock>) {
      const block = { ...stored, text: decompressedText(stored.text) };
      const text = textOf(block, line);
      if (text !== undefined) {
        this.recent.set(sourceId, block);
        return text;
      }
    }
    return "";
  }
}

/** Binary search of a block's lines for the text on `line`. */
function textOf(block: StoredBlock, line: number): string | undefined {
  let lo = 0;
  let hi = block.lines.length / 4 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = block.lines.readUInt32LE(mid * 4);
    if (at < line) lo = mid + 1;
    else if (at > line) hi = mid - 1;
    else {
      const start = mid === 0 ? 0 : block.ends.readUInt32LE((mid - 1) * 4);
      return block.text.toString("utf8", start, block.ends.readUInt32LE(mid * 4));
    }
  }
  return undefined;
}

/**
 * A span's own text. An OTLP/JSON line holds a whole export batch of spans,
 * and a text belongs to its line (above): a span whose line's text is
 * another span's is shown as its own OTLP span object, rebuilt from its
 * fields (ingest/formats/traces/spanTree.ts), with its time as nanoseconds.
 */
export function spanOwnText(stored: string, attr: (key: string) => unknown, endUs: number): string {
  const spanId = attr("spanId");
  if (typeof spanId !== "string" || stored.includes(`"${spanId}"`)) return stored;
  const ns = (us: unknown) => (typeof us === "number" ? `${us}000` : undefined);
  return JSON.stringify({
    traceId: attr("traceId"),
    spanId,
    parentSpanId: attr("parentSpanId"),
    name: attr("name"),
    startTimeUnixNano: ns(attr("startUs")),
    endTimeUnixNano: ns(endUs),
    attributes: attr("spanAttrs"),
  });
}

/**
 * A Prometheus sample's text where its source stored none (an HTTP API
 * answer is one line of JSON: ingest/formats/metrics/promApi.ts): its series,
 * value and time, as a scrape would print it.
 */
export function sampleOwnText(stored: string, attr: (key: string) => unknown, tsUs: number): string {
  if (stored !== "") return stored;
  const value = attr("value") ?? attr("nonFinite");
  return `${String(attr("series"))} ${String(value)} @${isoFromUs(tsUs)}`;
}

const readers = new WeakMap<IncidentDb, EventTexts>();

/** The text reader of a connection (one per connection, so its block cache is shared). */
export function eventTexts(db: IncidentDb): EventTexts {
  let r = readers.get(db);
  if (!r) {
    r = new EventTexts(db);
    readers.set(db, r);
  }
  return r;
}

function decompressedText(stored: Uint8Array): Buffer {
  const raw = decompress(stored);
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
}

/** A source's texts as stored, text decompressed. */
export interface TextSlice {
  sourceId: number;
  lines: Buffer;
  ends: Buffer;
  text: Buffer;
}

/** Every text block, by source and first line, decompressed one at a time. */
export function* textBlocks(db: IncidentDb, sourceId?: number): Generator<TextSlice> {
  const ids = (
    sourceId === undefined ? db.prepare("SELECT id FROM event_text ORDER BY source_id, first_line") : db.prepare("SELECT id FROM event_text WHERE source_id = ? ORDER BY first_line")
  )
    .pluck()
    .all(...(sourceId === undefined ? [] : [sourceId])) as number[];
  const read = db.prepare("SELECT source_id AS sourceId, lines, ends, text FROM event_text WHERE id = ?");
  for (const id of ids) {
    const b = read.get(id) as TextSlice;
    yield { ...b, text: decompressedText(b.text) };
  }
}
