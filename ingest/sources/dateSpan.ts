// The first and last dates a log file holds, read cheaply as it is parsed (a
// regex over each chunk, not a parse): what the ingest needs before the load
// to date glog stamps (no year) and the records of files with no dated line
// (ingest/sources/timeHints.ts).

// `2026-06-11 14:03:07`, `2026-06-11T14:03:07` (ISO, wrappers) and `2026/06/11 14:03:07` (glog's file header).
const DATE = /(\d{4})[-/](\d\d)[-/](\d\d)[ T](\d\d):(\d\d):(\d\d)/;
const DATES = /(\d{4})[-/](\d\d)[-/](\d\d)[ T](\d\d):(\d\d):(\d\d)/g;
/** Bytes at the end of a chunk searched for its last date. */
const TAIL_CHARS = 8192;

function wallMs(m: RegExpExecArray): number {
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
}

/**
 * The first and last dates written in a log, wherever they stand in a line
 * (a prefix, a wrapper's stamp): a cheap reading beside the parse, for the year of
 * glog stamps and the anchors of undated files (ingest/pipeline.ts), not for
 * event times.
 */
export class DateSpan {
  firstWallMs: number | undefined;
  private lastWallMs: number | undefined;

  add(text: string): void {
    if (this.firstWallMs === undefined) {
      const m = DATE.exec(text);
      if (m === null) return;
      this.firstWallMs = wallMs(m);
      this.lastWallMs = this.firstWallMs;
    }
    DATES.lastIndex = Math.max(0, text.length - TAIL_CHARS);
    for (let m = DATES.exec(text); m; m = DATES.exec(text)) {
      const ms = wallMs(m);
      if (!Number.isNaN(ms)) this.lastWallMs = ms;
    }
  }

  span(tzOffsetMinutes: number): { firstUs: number; lastUs: number } | null {
    if (this.firstWallMs === undefined || this.lastWallMs === undefined || Number.isNaN(this.firstWallMs)) return null;
    const shift = tzOffsetMinutes * 60_000;
    return { firstUs: (this.firstWallMs - shift) * 1000, lastUs: (Math.max(this.firstWallMs, this.lastWallMs) - shift) * 1000 };
  }
}
