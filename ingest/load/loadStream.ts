// The parse side of a load (runs in each load worker, or on the main thread
// for a small input): a source read and parsed once, its events packed in
// file order into row batches, with their texts in blocks, at their own
// times and with only what their lines say of who wrote them — the clock
// offsets and the source's identity are known only once every source is
// parsed (ingest/pipeline.ts), and ingest/load/runs.ts applies them as the runs
// are merged. The same pass gathers the source's facts (ingest/load/sourceFacts.ts).
// Memory stays bounded while parsing: a source holds one decoded chunk and its parsed events at a time.

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { LogKind, TelemetryKind } from "../../domain/kinds.js";
import type { FormatName, InputFormat, LineParser, ParseContext } from "../formats/format.js";
import { formatByName } from "../formats/index.js";
import type { DatingHints } from "../formats/log/dating.js";
import type { WrapperId } from "../formats/wrappers/index.js";
import { readFileSync } from "node:fs";
import { FactsReader, type SourceFacts } from "./sourceFacts.js";
import { MetRanks, SOURCE_RANK, neutralRankKey } from "../sources/sourceIdentity.js";
import { ChunkReader, forEachLine, MAX_LINE_BYTES } from "../inputs/lines.js";
import { Admit, SeamGate, type PartResult, type SourcePart } from "./seamGate.js";
import { RowBatchBuilder, type RowBatch } from "../../store/rows.js";
import type { WaitingBatch } from "./runStore.js";
import { TextBlockBuilder } from "../../store/eventText.js";
import { noSourceStats, type SourceStats } from "../../store/read/sources.js";
import { UnparsedShapes } from "../unparsedShapes.js";
import { fileWideIssues, noFileWideCounts, type FileWideCounts } from "./fileWideIssues.js";

export interface LoadSource {
  /** The source's place among the ingest's inputs: its rows and texts carry it until its id in the incident is known (ingest/load/runs.ts). */
  sourceId: number;
  plainPath: string;
  displayPath: string;
  format: FormatName;
  wrapper: WrapperId | null;
  /** Logs: times for records that carry none (ingest/pipeline.ts decides them from every source). */
  dating: DatingHints | null;
  tzGiven: boolean;
  tzOffsetMinutes: number;
  /** The file's size when the ingest began: all the load reads of it (a log still being written grows). */
  bytes: number;
}

/**
 * What a load worker counted of one source (or part of one): the store's
 * statistics of it (store/read/sources.ts), but for its first and last times
 * (aligned only as the runs are merged) and its ranks, named by what the
 * lines say (neutralRankKey) until the source's role and rank are known.
 */
export interface LoadedStats extends SourceStats {
  sourceId: number;
}

/** A parsed source: its rows in file order (kept packed until the merge: ingest/load/runStore.ts), its statistics and its facts. */
export interface ParsedSource {
  stats: LoadedStats;
  facts: SourceFacts;
  batches: WaitingBatch[];
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
  private readonly stats: LoadedStats;
  private readonly ranks = new Set<string>();
  private readonly metRanks = new MetRanks();
  private readonly facts: FactsReader;
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
    readBytes: number,
    readonly part?: SourcePart,
  ) {
    this.sourceId = src.sourceId;
    this.format = formatByName(src.format);
    // A whole text file is hashed as it is read; a binary one as it is read whole; a cut one apart (ingest/load/workers.ts).
    this.facts = new FactsReader(src.format, src.tzOffsetMinutes, part === undefined);
    const onRead = part === undefined && this.format.parseBytes === undefined ? this.facts.onBytes : undefined;
    // The bytes the file had when the ingest began, no more: a log still being written has grown since.
    this.reader = new ChunkReader(src.plainPath, onRead, readBytes, part?.startByte ?? 0, part?.firstLine ?? 1, src.bytes);
    const ctx = this.parseContext();
    if (part?.zoneFixMinutes !== undefined) ctx.zoneFixMinutes = part.zoneFixMinutes;
    this.parser = this.format.parseBytes !== undefined ? null : this.format.createParser(ctx);
    this.gate = part !== undefined ? new SeamGate(this.format, ctx, part) : null;
    this.texts = new TextBlockBuilder(src.sourceId);
    this.stats = { sourceId: src.sourceId, ...noSourceStats() };
  }

  private parseContext(): ParseContext {
    const src = this.src;
    // No host or role: the events carry what their lines say, the source's are given after (ingest/load/runs.ts).
    return {
      sourcePath: src.displayPath,
      ...(src.wrapper !== null ? { wrapper: src.wrapper } : {}),
      rank: { dp: SOURCE_RANK, tp: SOURCE_RANK },
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
    this.head = this.pending[this.pos]!;
    return true;
  }

  /** Appends the head event's row (and its text) and accounts for it. */
  emitHead(rows: RowBatchBuilder): void {
    const ev = this.head!;
    rows.pushEvent(ev, this.sourceId, ev.tsUs, ev.host ?? null, ev.role ?? null);
    this.facts.onEvent(ev);
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
    if (this.metRanks.isNew(ev.role, ev.dp, ev.pp, ev.tp)) this.ranks.add(neutralRankKey(ev.role, ev.dp, ev.pp, ev.tp));
  }

  private parseChunk(): void {
    if (this.format.parseBytes !== undefined) return this.parseWhole();
    const chunk = this.reader.next();
    if (!chunk) return this.endOfInput();
    this.bytesRead += chunk.bytes;
    this.facts.onText(chunk.text);
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
    const bytes = readFileSync(this.src.plainPath);
    this.facts.onBytes(bytes);
    try {
      this.format.parseBytes!(bytes, this.parseContext(), this.pending, this.issues);
    } catch (e) {
      this.issues.push({ line: 1, message: `the ${this.src.format} reader failed: ${(e as Error).message}` });
    }
    this.bytesRead = bytes.length;
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
    if (this.part === undefined) {
      const issues = fileWideIssues(this.fileWideCounts());
      this.errorCount += issues.length;
      this.kept.push(...issues);
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

  private fileWideCounts(): FileWideCounts {
    const counts = { ...noFileWideCounts(), badUtf8Lines: this.badUtf8Lines, firstBadUtf8: this.firstBadUtf8 };
    const { nulLines, nulBytes } = this.reader;
    for (let i = 0; i < nulLines.length; i++) {
      if (this.gate !== null && !this.gate.owns(nulLines[i]!)) continue;
      if (counts.nulBytes === 0) counts.firstNul = nulLines[i]!;
      counts.nulBytes += nulBytes[i]!;
    }
    return counts;
  }

  /** What the pass learnt of the source besides its events (once it is exhausted). */
  sourceFacts(): SourceFacts {
    return this.facts.result();
  }

  /** A part's finish: its shapes whole and its time tally, to be added up with the other parts (ingest/load/sourceParts.ts). */
  finishPart(): Omit<PartResult, "index"> {
    const stats = this.finish();
    return { stats, shapes: this.shapes.all(), tally: this.parser?.timeTally?.() ?? null, fileWide: this.fileWideCounts(), facts: this.sourceFacts() };
  }
}

/** Rows handed out by a load worker one batch at a time; `last` on the final batch. */
export interface RowStream {
  next(): { batch: RowBatch; last: boolean };
  progress(): LoadProgress;
}

/** One whole source's rows, a batch of `batchRows` rows at a time, in file order. */
export class SourceRows implements RowStream {
  private readonly stream: SourceStream;
  private readonly rows: RowBatchBuilder;
  private alive: boolean;

  constructor(source: LoadSource, batchRows: number, readBytes: number) {
    this.stream = new SourceStream(source, readBytes);
    this.rows = new RowBatchBuilder(batchRows);
    this.alive = this.stream.advance();
  }

  next(): { batch: RowBatch; last: boolean } {
    const { stream, rows } = this;
    while (this.alive && !rows.full) {
      stream.emitHead(rows);
      this.alive = stream.advance();
    }
    if (this.alive) return { batch: rows.take(), last: false };
    const texts = stream.lastTexts();
    if (texts) rows.addTexts([texts]);
    return { batch: rows.take(), last: true };
  }

  progress(): LoadProgress {
    return { bytes: this.stream.bytesRead, lines: this.stream.linesRead };
  }

  /** The source's statistics and facts, once the last batch is out. */
  result(): Omit<ParsedSource, "batches"> {
    return { stats: this.stream.finish(), facts: this.stream.sourceFacts() };
  }
}
