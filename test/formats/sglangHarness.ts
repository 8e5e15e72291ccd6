// Feeds log text through the sglangLog parser the way the pipeline does: one
// line at a time (line endings stripped, 1-based numbers), then end().

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import type { Role } from "../../domain/vocabulary.js";
import type { DatingHints } from "../../ingest/formats/log/dating.js";
import type { InputFormat } from "../../ingest/formats/format.js";
import { sglangLog } from "../../ingest/formats/sglangLog.js";
import type { WrapperId } from "../../ingest/formats/wrappers/index.js";

export interface Parsed {
  events: ParsedEvent[];
  issues: ParseIssue[];
}

export interface ParseOptions {
  tzOffsetMinutes?: number;
  host?: string;
  role?: Role;
  dating?: DatingHints;
  wrapper?: WrapperId;
  rank?: { dp?: number; tp?: number };
}

export function parseLines(lines: readonly string[], opts: ParseOptions = {}): Parsed {
  const parser = sglangLog.createParser({
    sourcePath: "decode-0/tp0.log",
    tzOffsetMinutes: opts.tzOffsetMinutes ?? 0,
    host: opts.host,
    role: opts.role,
    ...(opts.dating !== undefined ? { dating: opts.dating } : {}),
    ...(opts.wrapper !== undefined ? { wrapper: opts.wrapper } : {}),
    ...(opts.rank !== undefined ? { rank: opts.rank } : {}),
  });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  lines.forEach((line, i) => parser.line(line, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}

/** Splits text on LF only, as the pipeline does before stripping a line's ending. */
export function parseText(text: string, opts: ParseOptions = {}): Parsed {
  return parseLines(text.split("\n"), opts);
}

/** The one event a single line makes (asserting there is exactly one and no issue). */
export function parseOne(line: string, opts: ParseOptions = {}): ParsedEvent {
  const { events, issues } = parseLines([line], opts);
  if (events.length !== 1 || issues.length !== 0) {
    throw new Error(`expected one event and no issue, got ${events.length} events, issues ${JSON.stringify(issues)}`);
  }
  return events[0];
}

/** Integer µs since the epoch of an ISO-8601 instant written with its zone (up to six decimals). */
export function us(iso: string): number {
  const m = /^([^.]*?)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  const secondsMs = m ? Date.parse(m[1] + m[3]) : NaN;
  if (m === null || Number.isNaN(secondsMs)) throw new Error(`bad ISO time ${iso}`);
  return secondsMs * 1000 + Number((m[2] ?? "").padEnd(6, "0"));
}

/** Feeds `text` through `format`'s parser line by line, as the pipeline does, in UTC; `host` as a path would give it. */
export function parseWith(format: InputFormat, text: string, host?: string): Parsed {
  const parser = format.createParser({ sourcePath: "bundle/x.txt", tzOffsetMinutes: 0, ...(host !== undefined && { host }) });
  const events: ParsedEvent[] = [];
  const issues: ParseIssue[] = [];
  text.split("\n").forEach((line, i) => parser.line(line, i + 1, events, issues));
  parser.end(events, issues);
  return { events, issues };
}
