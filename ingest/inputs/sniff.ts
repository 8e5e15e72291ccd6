// What the ingest reads of a file before its one pass (ingest/load/): its
// size, its format from its head bytes (or why it is not read), a log's
// container wrapper, and the first date of its first chunk, which sets the
// zone's offset the log is read in and, for a file with a date there, where
// its undated records stand (ingest/sources/timeHints.ts).

import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { FormatName, InputFormat } from "../formats/format.js";
import { detectBinaryFormat, detectFormat, HEAD_BYTES, isLogFormat, looksBinary } from "../formats/index.js";
import { wrapperOfHead } from "../formats/log/head.js";
import type { WrapperId } from "../formats/wrappers/index.js";
import { DateSpan } from "../sources/dateSpan.js";
import { ChunkReader, withoutBom } from "./lines.js";
import { otherPacking } from "./archive.js";
import { offsetMinutesForWallClock, type TimeZoneSpec } from "./pathIdentity.js";

export interface Sniff {
  /** The file's size: all the ingest reads of it. */
  bytes: number;
  /** The file's modification time (µs). */
  mtimeUs: number;
  /** Why the file is not ingested; null when it is read. */
  rejection: { kind: "empty" | "binary"; reason: string } | null;
  format: FormatName | null;
  /** The container wrapper around each line (CRI, docker json-file, kubectl, journald), null for none. */
  wrapper: WrapperId | null;
  tzOffsetMinutes: number;
  /** Logs: the first date written in the file's first chunk (µs, read in its zone); null when none. */
  firstDateUs: number | null;
}

const NUL_HEAD = Buffer.alloc(HEAD_BYTES);

/**
 * The file's first HEAD_BYTES; when they are all NUL, those from its first
 * byte that is not: a log whose start is a long hole of NULs (logrotate's
 * `copytruncate` leaves one up to the writer's offset) is told by the text
 * after it. Null for a file of NULs only.
 */
function readTextHead(path: string): Buffer | null {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    for (let at = 0; ; ) {
      const n = readSync(fd, buf, 0, HEAD_BYTES, at);
      if (n === 0) return at === 0 ? buf.subarray(0, 0) : null;
      const read = buf.subarray(0, n);
      if (!read.equals(NUL_HEAD.subarray(0, n))) return at === 0 ? read : read.subarray(read.findIndex((b) => b !== 0));
      at += n;
    }
  } finally {
    closeSync(fd);
  }
}

/** The format of a file from its first bytes (every text file has one), or why it is not read. */
function classify(head: Buffer): { format: InputFormat; headText: string } | { rejection: NonNullable<Sniff["rejection"]> } {
  if (head.length === 0) return { rejection: { kind: "empty", reason: "empty file" } };
  const binary = detectBinaryFormat(head);
  if (binary !== undefined) return { format: binary, headText: "" };
  const packing = otherPacking(head);
  if (packing !== undefined) return { rejection: { kind: "binary", reason: packing } };
  if (looksBinary(head)) return { rejection: { kind: "binary", reason: "binary content (NUL bytes); not a log, probe or dump file" } };
  const text = withoutBom(head);
  const headText = (text.includes(0) ? Buffer.from(text.filter((b) => b !== 0)) : text).toString("utf8");
  return { format: detectFormat(headText), headText };
}

export function sniffSource(plainPath: string, tz: TimeZoneSpec): Sniff {
  const st = statSync(plainPath);
  const sniff: Sniff = {
    bytes: st.size,
    mtimeUs: Math.round(st.mtimeMs * 1000),
    rejection: null,
    format: null,
    wrapper: null,
    tzOffsetMinutes: 0,
    firstDateUs: null,
  };
  const head = readTextHead(plainPath);
  if (head === null) return { ...sniff, rejection: { kind: "empty", reason: "only NUL bytes (a hole, as a crash or a copytruncate rotation leaves): nothing to read" } };
  const kind = classify(head);
  if ("rejection" in kind) return { ...sniff, rejection: kind.rejection };
  sniff.format = kind.format.name;
  if (kind.format.parseBytes !== undefined) return sniff;
  const isLog = isLogFormat(kind.format.name);
  if (isLog) sniff.wrapper = wrapperOfHead(kind.headText)?.name ?? null;
  const reader = new ChunkReader(plainPath, undefined, undefined, 0, 1, st.size);
  try {
    const first = reader.next();
    if (first === null) return sniff;
    const dates = new DateSpan();
    if (isLog) dates.add(first.text);
    sniff.tzOffsetMinutes = offsetMinutesForWallClock(tz, dates.firstWallMs ?? Date.now());
    sniff.firstDateUs = dates.span(sniff.tzOffsetMinutes)?.firstUs ?? null;
  } finally {
    reader.close();
  }
  return sniff;
}
