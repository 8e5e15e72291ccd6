// The parse side of a load (runs in each load worker, over its share of the
// sources): the sources are read and parsed in step, their events merged into
// the global order (ingest/load/merge.ts) with the clock offsets applied, and
// packed into row batches, with their texts in blocks, for the writer.
// Memory stays bounded: each source holds one decoded chunk and its parsed
// events at a time.

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { Role } from "../../domain/vocabulary.js";
import { LogKind, TelemetryKind } from "../../domain/kinds.js";
import type { FormatName, InputFormat, LineParser, ParseContext } from "../formats/format.js";
import { formatByName } from "../formats/index.js";
import type { DatingHints } from "../formats/log/dating.js";
import type { WrapperName } from "../formats/wrappers/index.js";
import { readFileSync } from "node:fs";
import { ChunkReader, forEachLine, MAX_LINE_BYTES, READ_BYTES } from "../inputs/lines.js";
import { Admit, SeamGate, type PartResult, type SourcePart } from "./seamGate.js";
import { keyBefore, MergeHeap } from "./merge.js";
import { rankName, RowBatchBuilder, type RowBatch } from "../../store/rows.js";
import { TextBlockBuilder } from "../../store/eventText.js";
import type { SourceStats } from "../../store/read/sources.js";
import { UnparsedShapes } from "../unparsedShapes.js";

export interface LoadSource {
  sourceId: number;
  plainPath: string;
  displayPath: string;
  format: FormatName;
  wrapper: WrapperName | null;
  host: string | null;
  role: Role | null;
  /** The rank of records that name none (a per-rank file). */
  rank: { dp?: number; tp?: number } | null;
  /** Logs: times for records that carry none (ingest/pipeline.ts decides them from every source). */
  dating: DatingHints | null;
  tzGiven: boolean;
  /** Clock domain of events that name no host: the host, or the source itself. */
  domain: string;
  tzOffsetMinutes: number;
  /** The bytes the scan read and hashed: all the load reads of the file. */
  bytes: number;
}

/** What a load worker counted of one source (or part of one): the store's statistics of it (store/read/sources.ts). */
export interface LoadedStats extends SourceStats {
  sourceId: number;
}

export interface LoadProgress {
  bytes: number;
  lines: number;
}

export const MAX_KEPT_ERRORS = 200;

/** Events a draining parser hands out at once: its events are built as the merge takes them, not all at end(). */
const DRAIN_EVENTS = 4096;

/** The source (or part of a source) a load worker streams: its events in file order. */
export class SourceStream {
  /** Merge key of the head event (aligned time). */
  tsUs = 0;
  line = 0;
  readonly sourceId: number;
  private readonly reader: ChunkReader;
  private readonly format: InputFormat;
  /** Null for a binary format (read whole). */
  private readonly parser: LineParser | null;
  private readonly issues: ParseIssue[] = [];
  private pending: ParsedEvent[] = [];
  private pos = -1;
  private done = false;
  /** The parser hands out the events it read at end() a batch at a time (LineParser.drain). */
  private draining = false;
  private head: ParsedEvent | undefined;
  private readonly sourceOffset: number;
  private readonly stats: LoadedStats;
  private readonly ranks = new Set<string>();
  private lastRank: { role: string | null; dp?: number; pp?: number; tp?: number } | undefined;
  private readonly kept: ParseIssue[] = [];
  private readonly texts: TextBlockBuilder;
  private readonly shapes = new UnparsedShapes();
  private errorCount = 0;
  private badUtf8Lines = 0;
  private firstBadUtf8 = 0;
  /** A part of a file: which of its lines are this stream's (null: the whole file). */
  private readonly gate: SeamGate | null;
  bytesRead = 0;

  get linesRead(): number {
    return this.stats.lines;
  }

  constructor(
    readonly src: LoadSource,
    private readonly offsets: Record<string, number>,
    readBytes: number,
    readonly part?: SourcePart,
  ) {
    this.sourceId = src.sourceId;
    // The bytes the scan read and hashed, no more: a log still being written has grown since, and its progress total is the scan's.
    this.reader = new ChunkReader(src.plainPath, undefined, readBytes, part?.startByte ?? 0, part?.firstLine ?? 1, src.bytes);
    this.format = formatByName(src.format);
    const ctx = this.parseContext();
    if (part?.zoneFixMinutes !== undefined) ctx.zoneFixMinutes = part.zoneFixMinutes;
    this.parser = this.format.parseBytes !== undefined ? null : this.format.createParser(ctx);
    this.gate = part !== undefined ? new SeamGate(this.format, ctx, part) : null;
    this.sourceOffset = offsets[src.domain] ?? 0;
    this.texts = new TextBlockBuilder(src.sourceId);
    this.stats = {
      sourceId: src.sourceId,
      lines: 0,
      events: 0,
      unparsed: 0,
      inferred: 0,
      unparsedShapes: [],
      timeOrigin: null,
      errors: [],
      errorCount: 0,
      firstTsUs: null,
      lastTsUs: null,
      ranks: [],
    };
  }

  private parseContext(): ParseContext {
    const src = this.src;
    return {
      sourcePath: src.displayPath,
      ...(src.host !== null ? { host: src.host } : {}),
      ...(src.role !== null ? { role: src.role } : {}),
      ...(src.wrapper !== null ? { wrapper: src.wrapper } : {}),
      ...(src.rank !== null ? { rank: src.rank } : {}),
      ...(src.dating !== null ? { dating: src.dating } : {}),
      tzOffsetMinutes: src.tzOffsetMinutes,
      tzGiven: src.tzGiven,
    };
  }

  /** Moves to the next event; false when the source is exhausted. */
  advance(): boolean {
    this.pos++;
    while (this.pos >= this.pending.length) {
      if (this.draining) {
        this.pending = [];
        this.pos = 0;
        this.drainParser();
        continue;
      }
      if (this.done) {
        this.head = undefined;
        return false;
      }
      this.pending = [];
      this.pos = 0;
      this.parseChunk();
    }
    const ev = this.pending[this.pos]!;
    this.head = ev;
    this.tsUs = ev.tsUs + (ev.host !== undefined && ev.host !== this.src.host ? (this.offsets[ev.host] ?? 0) : this.sourceOffset);
    this.line = ev.line;
    return true;
  }

  /** Appends the head event's row (and its text) and accounts for it. */
  emitHead(rows: RowBatchBuilder): void {
    const ev = this.head!;
    const host = ev.host ?? this.src.host;
    const role = ev.role ?? this.src.role;
    rows.pushEvent(ev, this.sourceId, this.tsUs, host, role);
    const text = this.texts.add(ev.line, ev.text);
    if (text) rows.addTexts([text]);
    const s = this.stats;
    s.events++;
    // The summary's "not interpreted" lines: no template read them, whether or not their dialect was read.
    // A series SGLang does not write is kept as a sample and counted here, its name as the shape (ingest/formats/metrics/series.ts).
    if (ev.kind === LogKind.unparsed || ev.kind === LogKind.message || (ev.kind === TelemetryKind.metricSample && ev.unparsedMessage !== undefined)) {
      s.unparsed++;
      this.shapes.add(ev.text, ev.line, ev.unparsedMessage);
    }
    if (ev.tsInferred === true) s.inferred++;
    // A timeless record's place in the order is no time of the source's.
    if (ev.timeless !== true) {
      if (s.firstTsUs === null || this.tsUs < s.firstTsUs) s.firstTsUs = this.tsUs;
      if (s.lastTsUs === null || this.tsUs > s.lastTsUs) s.lastTsUs = this.tsUs;
    }
    const r = this.lastRank;
    if (!r || r.role !== role || r.dp !== ev.dp || r.pp !== ev.pp || r.tp !== ev.tp) {
      this.lastRank = { role, dp: ev.dp, pp: ev.pp, tp: ev.tp };
      this.ranks.add(rankName(role, ev.dp, ev.pp, ev.tp));
    }
  }

  private parseChunk(): void {
    if (this.format.parseBytes !== undefined) return this.parseWhole();
    const chunk = this.reader.next();
    if (!chunk) return this.endOfInput();
    this.bytesRead += chunk.bytes;
    const pending = this.pending;
    const issues = this.issues;
    const parser = this.parser!;
    const gate = this.gate;
    forEachLine(chunk, (line, no) => {
      const admit = gate === null ? Admit.parse : gate.admit(line, no);
      if (admit === Admit.skip) return;
      if (admit === Admit.parse && chunk.invalidUtf8 && line.includes("\uFFFD") && this.badUtf8Lines++ === 0) this.firstBadUtf8 = no;
      try {
        parser.line(line, no, pending, issues);
      } catch (e) {
        issues.push({ line: no, message: `the ${this.src.format} parser failed on this line: ${(e as Error).message}` });
      }
    });
    this.stats.lines = this.reader.linesRead;
    if (chunk.cutLine !== undefined) {
      issues.push({ line: chunk.cutLine, message: `line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB; the rest of it was dropped` });
    }
    if (gate?.cut !== undefined) {
      // The next part's seam line was read to time the records above it; its events and issues are the next part's.
      this.endParser();
      gate.keepOwn(pending, issues);
      return this.endOfInput();
    }
    if (gate !== null) gate.keepOwn(pending, issues);
    this.absorbIssues();
  }

  private endOfInput(): void {
    if (this.gate?.cut === undefined) {
      this.endParser();
      this.draining = this.parser?.drain !== undefined;
    }
    this.done = true;
    this.reader.close();
    this.absorbIssues();
  }

  /** A binary source, read whole. */
  private parseWhole(): void {
    try {
      this.format.parseBytes!(readFileSync(this.src.plainPath), this.parseContext(), this.pending, this.issues);
    } catch (e) {
      this.issues.push({ line: 1, message: `the ${this.src.format} reader failed: ${(e as Error).message}` });
    }
    this.bytesRead = this.src.bytes;
    this.done = true;
    this.reader.close();
    this.absorbIssues();
  }

  /** The parser's end(); a failure there is an issue at the last line, not a lost load. */
  private endParser(): void {
    try {
      this.parser!.end(this.pending, this.issues);
    } catch (e) {
      this.issues.push({ line: this.reader.linesRead, message: `the ${this.src.format} parser failed at the end of the file: ${(e as Error).message}` });
    }
  }

  /** The next batch of a draining parser's events; a failure there ends the source with an issue. */
  private drainParser(): void {
    try {
      this.draining = this.parser!.drain!(this.pending, DRAIN_EVENTS);
    } catch (e) {
      this.draining = false;
      this.issues.push({ line: this.reader.linesRead, message: `the ${this.src.format} parser failed at the end of the file: ${(e as Error).message}` });
    }
    this.absorbIssues();
  }

  /** Keeps the first MAX_KEPT_ERRORS issues and counts the rest (memory stays bounded). */
  private absorbIssues(): void {
    for (const issue of this.issues) {
      this.errorCount++;
      if (this.kept.length < MAX_KEPT_ERRORS) this.kept.push(issue);
    }
    this.issues.length = 0;
  }

  /** The text block still open once the source is exhausted. */
  lastTexts(): ReturnType<TextBlockBuilder["close"]> {
    return this.texts.close();
  }

  finish(): LoadedStats {
    if (this.badUtf8Lines > 0 && this.part === undefined) {
      this.errorCount++;
      this.kept.push({
        line: this.firstBadUtf8,
        message: `invalid UTF-8 on ${this.badUtf8Lines} line(s), read as U+FFFD (first at line ${this.firstBadUtf8})`,
      });
    }
    this.kept.sort((a, b) => a.line - b.line);
    this.stats.errorCount = this.errorCount;
    this.stats.errors = this.kept;
    this.stats.ranks = [...this.ranks].sort();
    this.stats.unparsedShapes = this.shapes.top();
    this.stats.timeOrigin = this.parser?.timeOrigin?.() ?? null;
    if (this.part !== undefined) this.stats.lines = this.part.lines;
    return this.stats;
  }

  /** A part's finish: its shapes whole and its time tally, to be added up with the other parts (ingest/load/sourceParts.ts). */
  finishPart(): Omit<PartResult, "index"> {
    const stats = this.finish();
    return { stats, shapes: this.shapes.all(), tally: this.parser?.timeTally?.() ?? null, badUtf8: { lines: this.badUtf8Lines, first: this.firstBadUtf8 } };
  }
}

/** Rows handed out by a load worker one batch at a time; `last` on the final batch. */
export interface RowStream {
  next(): { batch: RowBatch; last: boolean };
  progress(): LoadProgress;
}

/**
 * Parses and merges whole sources into the global order, a batch of
 * `batchRows` rows at a time. `readBudget` bounds the raw bytes read ahead
 * across the sources; stats() gives each source's statistics once the last
 * batch is out.
 */
export class MergedRowStream implements RowStream {
  private readonly streams: SourceStream[];
  private readonly heap = new MergeHeap<SourceStream>((s) => s);
  private readonly rows: RowBatchBuilder;

  constructor(sources: LoadSource[], offsets: Record<string, number>, batchRows: number, readBudget: number) {
    // Every source holds a chunk and its parsed events at once: share a fixed budget.
    const readBytes = Math.max(64 * 1024, Math.min(READ_BYTES, Math.floor(readBudget / Math.max(1, sources.length))));
    this.streams = sources.map((s) => new SourceStream(s, offsets, readBytes));
    for (const s of this.streams) if (s.advance()) this.heap.push(s);
    this.rows = new RowBatchBuilder(batchRows);
  }

  next(): { batch: RowBatch; last: boolean } {
    const { heap, rows } = this;
    while (heap.size > 0) {
      const top = heap.peek()!;
      const second = heap.runnerUp();
      let alive = true;
      do {
        top.emitHead(rows);
        alive = top.advance();
      } while (alive && !rows.full && (second === undefined || keyBefore(top, second)));
      if (alive) heap.topChanged();
      else {
        heap.pop();
        const last = top.lastTexts();
        if (last) rows.addTexts([last]);
      }
      if (rows.full) return { batch: rows.take(), last: false };
    }
    return { batch: rows.take(), last: true };
  }

  progress(): LoadProgress {
    let bytes = 0;
    let lines = 0;
    for (const s of this.streams) {
      bytes += s.bytesRead;
      lines += s.linesRead;
    }
    return { bytes, lines };
  }

  stats(): LoadedStats[] {
    return this.streams.map((s) => s.finish());
  }
}
