// A large file cut into parts that load workers parse side by side
// (ingest/load/workers.ts plans the cut). The cut points are byte offsets at line
// starts; a part does not begin there but at the first seam after it — a
// line where a fresh parser reads what a parser that read the whole file
// above it would (InputFormat.isSeam: for logs a dated SGLang line, outside
// any record and any partial wrapped line) — and it runs past its end to the
// next part's seam, which it reads too (so that the records held above it
// for a time are timed, ingest/formats/log/dating.ts) and then drops. Every
// record is therefore read whole by exactly one part, and each part's events
// are those of one reading of the whole file, line numbers included: a
// worker counts the lines of its parts before it parses, and a part's first
// line number is the sum of the counts before it.

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { formatByName, isLogFormat } from "../formats/index.js";
import { ChunkReader, countLinesInRange, forEachLine } from "../inputs/lines.js";
import { SourceStream, type LoadProgress, type LoadSource, type RowStream } from "./loadStream.js";
import { RowBatchBuilder, type RowBatch } from "../../store/rows.js";
import type { PartJob, PartResult, SourcePart } from "./seamGate.js";

/** One batch of a part's rows; `done` with the part's last batch, `last` with the worker's last part. */
export interface PartBatch {
  batch: RowBatch;
  index: number;
  done: PartResult | null;
  last: boolean;
}

/**
 * The parts of one file a worker is given, in file order, a batch at a time.
 * `counts` (shared by the workers, -1 until known) holds the lines of each
 * part; counting this worker's parts first means no worker ever waits on
 * another's parse, only on its count.
 */
export class PartRowStream implements RowStream {
  private readonly rows: RowBatchBuilder;
  private current: SourceStream | null = null;
  private alive = false;
  private job = 0;
  private bytesDone = 0;
  private linesDone = 0;

  constructor(
    private readonly jobs: readonly PartJob[],
    private readonly counts: Int32Array,
    batchRows: number,
    private readonly readBytes: number,
  ) {
    this.rows = new RowBatchBuilder(batchRows);
    for (const j of jobs) {
      Atomics.store(counts, j.index, countLinesInRange(j.source.plainPath, j.startByte, j.endByte ?? j.source.bytes));
      Atomics.notify(counts, j.index);
    }
  }

  next(): PartBatch {
    const stream = this.current ?? this.open();
    const rows = this.rows;
    while (this.alive && !rows.full) {
      stream.emitHead(rows);
      this.alive = stream.advance();
    }
    const index = this.jobs[this.job]!.index;
    if (this.alive) return { batch: rows.take(), index, done: null, last: false };
    const texts = stream.lastTexts();
    if (texts) rows.addTexts([texts]);
    const done = { index, ...stream.finishPart() };
    this.bytesDone += this.ownBytes(this.jobs[this.job]!, stream.bytesRead);
    this.linesDone += done.stats.lines;
    this.current = null;
    this.job++;
    return { batch: rows.take(), index, done, last: this.job === this.jobs.length };
  }

  progress(): LoadProgress {
    const current = this.current === null ? 0 : this.ownBytes(this.jobs[this.job]!, this.current.bytesRead);
    return { bytes: this.bytesDone + current, lines: this.linesDone };
  }

  /** A part reads on past its end to the next part's seam; progress counts only its own bytes, so the parts add up to the file. */
  private ownBytes(job: PartJob, bytesRead: number): number {
    return Math.min(bytesRead, (job.endByte ?? job.source.bytes) - job.startByte);
  }

  private open(): SourceStream {
    const job = this.jobs[this.job]!;
    const part: SourcePart = {
      index: job.index,
      startByte: job.startByte,
      firstLine: this.linesBefore(job.index) + 1,
      lines: Atomics.load(this.counts, job.index),
      last: job.endByte === null,
    };
    const zoneFix = job.index > 0 ? zoneFixAbove(job.source, job.startByte) : undefined;
    if (zoneFix !== undefined) part.zoneFixMinutes = zoneFix;
    this.current = new SourceStream(job.source, this.readBytes, part);
    this.alive = this.current.advance();
    return this.current;
  }

  /** Lines of the file before part `index` (waits for the other worker's counts). */
  private linesBefore(index: number): number {
    let lines = 0;
    for (let i = 0; i < index; i++) {
      let n = Atomics.load(this.counts, i);
      while (n < 0) {
        Atomics.wait(this.counts, i, n);
        n = Atomics.load(this.counts, i);
      }
      lines += n;
    }
    return lines;
  }
}

/**
 * A wrapped log's zone fix (ingest/formats/log/prefixZone.ts) as its
 * first wrapped prefix line decides it, when that line lies above `beforeByte`;
 * undefined otherwise (the part then decides it from its own lines, as a
 * reading of the whole file would).
 */
function zoneFixAbove(src: LoadSource, beforeByte: number): number | undefined {
  if (src.wrapper === null || !isLogFormat(src.format)) return undefined;
  const parser = formatByName(src.format).createParser({
    sourcePath: src.displayPath,
    wrapper: src.wrapper,
    tzOffsetMinutes: src.tzOffsetMinutes,
    tzGiven: src.tzGiven,
  });
  const reader = new ChunkReader(src.plainPath);
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  try {
    let read = 0;
    for (let chunk = reader.next(); chunk !== null && read < beforeByte; chunk = reader.next()) {
      read += chunk.bytes;
      const decided = { minutes: null as number | null };
      forEachLine(chunk, (line, no) => {
        if (decided.minutes !== null) return;
        parser.line(line, no, events, issues);
        decided.minutes = parser.settledZoneFixMinutes ?? null;
        events.length = 0;
        issues.length = 0;
      });
      if (decided.minutes !== null) return decided.minutes;
    }
    return undefined;
  } finally {
    reader.close();
  }
}
