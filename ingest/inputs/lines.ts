// Reading a plain file as UTF-8 text in large chunks that end on line
// boundaries, in constant memory. Every chunk is decoded at a '\n' byte, so a
// multi-byte character is never cut; invalid UTF-8 is replaced by U+FFFD and
// reported; a line longer than MAX_LINE_BYTES is cut there and reported; a
// byte order mark at the file's start is dropped; NUL bytes (a hole that a
// crash or logrotate's `copytruncate` leaves) are dropped and counted, so the
// text after a hole is read as the lines it is.

import { closeSync, openSync, readSync } from "node:fs";
import { isUtf8 } from "node:buffer";

export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/**
 * Bytes read (and lines parsed) at a time. Small on purpose: a chunk's parsed
 * events live until they are packed into rows, and the events of a chunk of a
 * few MB outlive the parse workers' young generation, so each would be
 * promoted and collected again in the old one (bench/RESULTS.md, bench:ingest).
 */
export const READ_BYTES = 256 * 1024;
const NEWLINE = 10;

export interface TextChunk {
  /** Whole lines, each ended by '\n' except possibly the file's last line. */
  text: string;
  /** 1-based number of the chunk's first line. */
  firstLine: number;
  /** Raw bytes this chunk came from (for progress). */
  bytes: number;
  /** The chunk's bytes were not valid UTF-8 (the bad sequences read as U+FFFD). */
  invalidUtf8: boolean;
  /** Line number of a line cut at MAX_LINE_BYTES, if this chunk has one. */
  cutLine?: number;
}

export class ChunkReader {
  private readonly fd: number;
  private readonly buf: Buffer;
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /** Bytes of an over-long line still to skip up to its '\n'. */
  private skippingCut = false;
  private nextLine: number;
  private eof = false;
  private position: number;
  /** NUL bytes dropped, by line, in line order (a part of a file counts only its own lines'). */
  readonly nulLines: number[] = [];
  readonly nulBytes: number[] = [];
  /** Bytes dropped and not yet counted in a chunk's `bytes`. */
  private droppedUncounted = 0;
  /** The next read is the file's first bytes, where a byte order mark may be. */
  private atFileStart: boolean;

  /**
   * `onRead` sees every raw byte read once, in order (hashing). A part of a
   * file (ingest/load/sourceParts.ts) is read from byte `start`, a line's start, whose
   * line is numbered `firstLine`, up to byte `end` (a line's start; null: the end of the file).
   */
  constructor(
    path: string,
    private readonly onRead?: (bytes: Buffer) => void,
    readBytes = READ_BYTES,
    start = 0,
    firstLine = 1,
    private readonly end: number | null = null,
  ) {
    this.fd = openSync(path, "r");
    this.buf = Buffer.allocUnsafe(readBytes);
    this.position = start;
    this.atFileStart = start === 0;
    this.nextLine = firstLine;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Number of the last line handed out (the lines read so far, for a whole file). */
  get linesRead(): number {
    return this.nextLine - 1;
  }

  /** The next chunk, or null at the end of the file. */
  next(): TextChunk | null {
    while (!this.eof) {
      const want = this.end === null ? this.buf.length : Math.min(this.buf.length, this.end - this.position);
      const n = want > 0 ? readSync(this.fd, this.buf, 0, want, this.position) : 0;
      this.position += n;
      if (n === 0) {
        this.eof = true;
        break;
      }
      const data = this.buf.subarray(0, n);
      this.onRead?.(data);
      const text = this.atFileStart ? withoutBom(data) : data;
      this.atFileStart = false;
      this.droppedUncounted += data.length - text.length;
      const chunk = this.take(this.withoutNul(text));
      if (chunk) return chunk;
    }
    return this.flushLast();
  }

  /** Adds read bytes; returns a chunk when they complete at least one line. */
  private take(data: Buffer): TextChunk | null {
    let from = 0;
    if (this.skippingCut) {
      const nl = data.indexOf(NEWLINE);
      if (nl < 0) return null;
      this.skippingCut = false;
      from = nl + 1;
    }
    const lastNl = data.lastIndexOf(NEWLINE);
    if (lastNl < from) {
      this.keep(data.subarray(from));
      return this.carryBytes > MAX_LINE_BYTES ? this.cutOverlong() : null;
    }
    const head = this.carryBytes > 0 ? Buffer.concat([...this.carry, data.subarray(from, lastNl + 1)]) : data.subarray(from, lastNl + 1);
    this.carry = [];
    this.carryBytes = 0;
    this.keep(data.subarray(lastNl + 1));
    return this.decode(head, head.length);
  }

  /** The read bytes without their NULs (the same buffer when there are none). */
  private withoutNul(data: Buffer): Buffer {
    let nul = data.indexOf(0);
    if (nul < 0) return data;
    const out = Buffer.allocUnsafe(data.length);
    let length = 0;
    let from = 0;
    let line = this.nextLine;
    while (nul >= 0) {
      line += newlinesIn(data.subarray(from, nul));
      length += data.copy(out, length, from, nul);
      from = nul;
      while (from < data.length && data[from] === 0) from++;
      this.countNul(line, from - nul);
      nul = data.indexOf(0, from);
    }
    length += data.copy(out, length, from);
    this.droppedUncounted += data.length - length;
    return out.subarray(0, length);
  }

  private countNul(line: number, bytes: number): void {
    const last = this.nulLines.length - 1;
    if (last >= 0 && this.nulLines[last] === line) this.nulBytes[last] += bytes;
    else {
      this.nulLines.push(line);
      this.nulBytes.push(bytes);
    }
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.carry.push(Buffer.from(bytes));
    this.carryBytes += bytes.length;
  }

  /** A line past MAX_LINE_BYTES: its first MAX_LINE_BYTES become the line, the rest is skipped. */
  private cutOverlong(): TextChunk {
    const whole = Buffer.concat(this.carry);
    this.carry = [];
    this.carryBytes = 0;
    this.skippingCut = true;
    const line = this.nextLine;
    const chunk = this.decode(Buffer.concat([whole.subarray(0, MAX_LINE_BYTES), Buffer.from("\n")]), whole.length);
    chunk.cutLine = line;
    return chunk;
  }

  private flushLast(): TextChunk | null {
    if (this.carryBytes === 0) return null;
    const rest = Buffer.concat(this.carry);
    this.carry = [];
    this.carryBytes = 0;
    return this.decode(rest, rest.length);
  }

  private decode(bytes: Buffer, rawBytes: number): TextChunk {
    const text = bytes.toString("utf8");
    const chunk: TextChunk = { text, firstLine: this.nextLine, bytes: rawBytes + this.droppedUncounted, invalidUtf8: !isUtf8(bytes) };
    this.droppedUncounted = 0;
    this.nextLine += countLines(text);
    return chunk;
  }
}

/** A file's first bytes without the UTF-8 byte order mark an editor on Windows may have put there. */
export function withoutBom(head: Buffer): Buffer {
  return head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
}

function newlinesIn(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** Lines in a chunk: its '\n's, plus one for a last line without a '\n'. */
export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return text.length > 0 && text.charCodeAt(text.length - 1) !== NEWLINE ? n + 1 : n;
}

/**
 * Lines of the bytes [start, end) of a file (`end` null: to its end), as the
 * ChunkReader numbers them: its '\n's, plus one for a last line without one.
 */
export function countLinesInRange(path: string, start: number, end: number | null): number {
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(READ_BYTES);
  let lines = 0;
  let last = NEWLINE;
  try {
    for (let at = start; end === null || at < end; ) {
      const n = readSync(fd, buf, 0, end === null ? buf.length : Math.min(buf.length, end - at), at);
      if (n === 0) break;
      const data = buf.subarray(0, n);
      for (let i = data.indexOf(NEWLINE); i >= 0; i = data.indexOf(NEWLINE, i + 1)) lines++;
      last = data[n - 1]!;
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return last === NEWLINE ? lines : lines + 1;
}

/** Calls `each` for every line of a chunk, without its '\n' or a trailing '\r'. */
export function forEachLine(chunk: TextChunk, each: (line: string, lineNo: number) => void): void {
  const { text } = chunk;
  let lineNo = chunk.firstLine;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    each(text.slice(start, stop), lineNo++);
    start = end + 1;
  }
}

/** Bytes looked at past a cut offset for the next line start. */
const SEEK_BYTES = 64 * 1024;

/** 0, then the first line start after each multiple of `every` bytes of a file of `bytes` bytes. */
export function lineStartsEvery(path: string, bytes: number, every: number): number[] {
  const starts = [0];
  const fd = openSync(path, "r");
  const buf = Buffer.allocUnsafe(SEEK_BYTES);
  try {
    for (let at = every; at < bytes; ) {
      const n = readSync(fd, buf, 0, SEEK_BYTES, at);
      const nl = buf.subarray(0, n).indexOf(10);
      const start = at + nl + 1;
      if (nl >= 0 && start < bytes) starts.push(start);
      // The next cut lies `every` bytes further on, and never inside the line just found.
      at = Math.max(at + every, nl >= 0 ? start : at + n);
    }
  } finally {
    closeSync(fd);
  }
  return starts;
}
