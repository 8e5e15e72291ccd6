// Before the load: where a log's undated records and its glog stamps (no
// year) take their time from, decided from every source of the incident
// (DESIGN.md "Inputs": undated lines keep their place). In order of trust:
// the file's own dated lines, the same host's other files, the incident's
// other files, the file's modification time — and each choice says which.
// A file with no dated line gives its records no time (they are timeless):
// only their place in the order.

import type { DatingHints } from "../formats/log/dating.js";
import { isoFromUs } from "../../domain/timeFormat.js";

export interface DatedSource {
  host: string | null;
  /** First and last dates written in the file (ingest/sources/dateSpan.ts), null when none. */
  dated: { firstUs: number; lastUs: number } | null;
  mtimeUs: number;
}

export interface TimeSpan {
  firstUs: number;
  lastUs: number;
}

function widen(span: TimeSpan | null, s: TimeSpan | null): TimeSpan | null {
  if (s === null) return span;
  if (span === null) return { ...s };
  return { firstUs: Math.min(span.firstUs, s.firstUs), lastUs: Math.max(span.lastUs, s.lastUs) };
}

/** The dating hints of each source, in order; `stored` is the span of the incident's events already in the database. */
export function datingHints(sources: readonly DatedSource[], stored: TimeSpan | null): DatingHints[] {
  let all: TimeSpan | null = stored;
  const byHost = new Map<string, TimeSpan>();
  for (const s of sources) {
    all = widen(all, s.dated);
    if (s.host !== null && s.dated !== null) byHost.set(s.host, widen(byHost.get(s.host) ?? null, s.dated)!);
  }
  return sources.map((s) => hintsFor(s, s.host !== null ? (byHost.get(s.host) ?? null) : null, all));
}

function hintsFor(s: DatedSource, host: TimeSpan | null, all: TimeSpan | null): DatingHints {
  const mtime = `the file's modification time (${isoFromUs(s.mtimeUs)})`;
  const year =
    s.dated !== null
      ? { yearNearUs: s.dated.firstUs, yearOrigin: "the file's own dated lines" }
      : host !== null
        ? { yearNearUs: host.firstUs, yearOrigin: `host ${s.host}'s dated lines in other files` }
        : all !== null
          ? { yearNearUs: all.firstUs, yearOrigin: "the incident's other dated files" }
          : { yearNearUs: s.mtimeUs, yearOrigin: mtime, yearAtMostUs: s.mtimeUs };
  return { hasDatedLines: s.dated !== null, ...anchorFor(s, host, all, mtime), ...year };
}

/**
 * Where a file's undated records stand: after its own first dated line's
 * time; in a file with no dated line, where its timeless records are placed
 * in the order (they have no time): before the same host's dated records,
 * else before the incident's, so that a death is never drawn after what it caused.
 */
function anchorFor(s: DatedSource, host: TimeSpan | null, all: TimeSpan | null, mtime: string): { anchorUs: number; anchorOrigin: string } {
  if (s.dated !== null) return { anchorUs: s.dated.firstUs, anchorOrigin: "the file's first dated line" };
  if (host !== null) return { anchorUs: host.firstUs, anchorOrigin: `before host ${s.host}'s first dated line (${isoFromUs(host.firstUs)})` };
  if (all !== null) return { anchorUs: all.firstUs, anchorOrigin: `before the incident's first dated line (${isoFromUs(all.firstUs)})` };
  return { anchorUs: s.mtimeUs, anchorOrigin: `at ${mtime}; no file of the incident has a dated line` };
}
