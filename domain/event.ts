// The canonical event: the one row shape every input format is parsed into
// (the Perfetto idea: importers differ, the table does not).
//
// Time is `tsUs`, integer microseconds since the Unix epoch, UTC. Microseconds
// are exact for every input (log lines carry at most milliseconds, probe floats
// print six decimals) and stay below 2^53, so plain numbers hold them without
// loss; nanosecond probe stamps are truncated to the microsecond, which is far
// below the millisecond clock skew between hosts.
//
// `room` is SGLang's bootstrap_room, a 63-bit integer kept as its decimal
// string: it is beyond Number.MAX_SAFE_INTEGER and must never pass through a
// float.


import type { KernelLineMark } from "./kernelLines.js";
import type { Role } from "./vocabulary.js";

/**
 * How well an event's time is known (the store's ts_inferred column, the
 * timeline's marks): dated by its own line, inferred from its neighbours'
 * (its line has no time), or unknown (nothing in its file is dated; its time
 * is its place in the order only).
 */
export const TimeQuality = { known: 0, inferred: 1, unknown: 2 } as const;

export interface ParsedEvent {
  tsUs: number;
  /**
   * The record carries no time of its own (a traceback frame block, a line
   * with no stamp): `tsUs` was interpolated from its dated neighbours in the
   * file, or taken from the file's anchor (DESIGN.md "Inputs").
   */
  tsInferred?: boolean;
  /**
   * No time of its own and no dated neighbour (a file with no dated line):
   * its time is unknown, and `tsUs` only places it in the order (before its
   * host's dated records), never a time to show or compare (DESIGN.md "Who and when").
   */
  timeless?: boolean;
  /** 1-based line number of the record's first line in its source file. */
  line: number;
  kind: string;
  host?: string;
  role?: Role;
  dp?: number;
  pp?: number;
  tp?: number;
  room?: string;
  rid?: string;
  chunk?: number;
  layer?: number;
  /** Half-open page range [pageLo, pageHi); the hull when `attrs.pages` lists several. */
  pageLo?: number;
  pageHi?: number;
  /** A KVPoll value (0 Failed .. 4 Success) when the event carries one. */
  state?: number;
  /** Every field that has no column of its own; JSON-serialisable, rooms as strings. */
  attrs?: Record<string, unknown>;
  /** The raw record as it stood in the file (all lines of a multi-line record). */
  text: string;
  /**
   * An unparsed record's message without its wrapper and dialect prefix: what
   * the ingest summary's unparsed shapes are made of (ingest/unparsedShapes.ts).
   * Not stored.
   */
  unparsedMessage?: string;
  /** A kernel record's clock as its line states it, for the source's facts (ingest/formats/log/kernelClock.ts). Not stored. */
  kernelLine?: KernelLineMark;
}

/**
 * An event as the store gives it back: its place in the global order (`seq`,
 * the aligned `tsUs`), its source line, every column with null for absent,
 * and its raw text (store/read/events.ts reads it).
 */
export interface StoredEvent {
  seq: number;
  tsUs: number;
  /** The time was interpolated or anchored, not read from the record (ParsedEvent.tsInferred). */
  tsInferred: boolean;
  /** Its time is unknown: `tsUs` is its place in the order only (ParsedEvent.timeless). Absent: the event has a time. */
  timeless?: boolean;
  sourceId: number;
  line: number;
  host: string | null;
  role: Role | null;
  dp: number | null;
  pp: number | null;
  tp: number | null;
  kind: string;
  room: string | null;
  rid: string | null;
  chunk: number | null;
  layer: number | null;
  pageLo: number | null;
  pageHi: number | null;
  state: number | null;
  attrs: Record<string, unknown> | null;
  text: string;
}

/** A line that could not be turned into an event, reported with its place. */
export interface ParseIssue {
  line: number;
  message: string;
}

