// Before the load: where a log's undated records and its glog stamps (no
// year) take their time from, decided from every source of the incident
// (DESIGN.md "Inputs": undated lines keep their place). In order of trust:
// the file's own dated lines, the same host's other files, the incident's
// other files, the file's modification time — and each choice says which.

import type { DatingHints } from "../formats/log/dating.js";
import { isoFromUs } from "../timeFormat.js";

export interface DatedSource {
  host: string | null;
  /** First and last dates written in the file (the scan's reading), null when none. */
  dated: { firstUs: number; lastUs: number } | null;
  mtimeUs: number;
}

export interface TimeSpan {
  firstUs: number;
  lastUs: number;
}

/** An mtime this far outside the incident's dated span is not taken as the time of its undated lines. */
const MTIME_SLACK_US = 3_600_000_000;

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
          : { yearNearUs: s.mtimeUs, yearOrigin: mtime };
  return { hasDatedLines: s.dated !== null, ...anchorFor(s, host, all, mtime), ...year };
}

/** The time of undated records in a file with no dated line. */
function anchorFor(s: DatedSource, host: TimeSpan | null, all: TimeSpan | null, mtime: string): { anchorUs: number; anchorOrigin: string } {
  if (s.dated !== null) return { anchorUs: s.dated.firstUs, anchorOrigin: "the file's first dated line" };
  if (all !== null && s.mtimeUs >= all.firstUs - MTIME_SLACK_US && s.mtimeUs <= all.lastUs + MTIME_SLACK_US) {
    return { anchorUs: s.mtimeUs, anchorOrigin: mtime };
  }
  if (host !== null) return { anchorUs: host.lastUs, anchorOrigin: `the time of host ${s.host}'s last dated line (${isoFromUs(host.lastUs)})` };
  if (all !== null) return { anchorUs: all.lastUs, anchorOrigin: `the time of the incident's last dated line (${isoFromUs(all.lastUs)})` };
  return { anchorUs: s.mtimeUs, anchorOrigin: `${mtime}; no file of the incident has a dated line` };
}
