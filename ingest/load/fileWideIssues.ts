// Issues counted over a whole file rather than a line: invalid UTF-8 and
// NUL bytes dropped (ingest/inputs/lines.ts). A file cut into parts
// (ingest/load/sourceParts.ts) counts them per part and adds them up, so it
// reports them as one reading of the whole file does: once, at the first
// line they touch.

import type { ParseIssue } from "../../domain/event.js";

export interface FileWideCounts {
  badUtf8Lines: number;
  /** The first line with invalid UTF-8 (0: none). */
  firstBadUtf8: number;
  nulBytes: number;
  /** The line of the first NUL byte dropped (0: none). */
  firstNul: number;
}

export const noFileWideCounts = (): FileWideCounts => ({ badUtf8Lines: 0, firstBadUtf8: 0, nulBytes: 0, firstNul: 0 });

/** Adds a later part's counts to `total`. */
export function addFileWideCounts(total: FileWideCounts, part: FileWideCounts): void {
  if (total.badUtf8Lines === 0) total.firstBadUtf8 = part.firstBadUtf8;
  total.badUtf8Lines += part.badUtf8Lines;
  if (total.nulBytes === 0) total.firstNul = part.firstNul;
  total.nulBytes += part.nulBytes;
}

export function fileWideIssues(c: FileWideCounts): ParseIssue[] {
  const issues: ParseIssue[] = [];
  if (c.badUtf8Lines > 0) {
    issues.push({ line: c.firstBadUtf8, message: `invalid UTF-8 on ${c.badUtf8Lines} line(s), read as U+FFFD (first at line ${c.firstBadUtf8})` });
  }
  if (c.nulBytes > 0) {
    issues.push({
      line: c.firstNul,
      message: `${c.nulBytes} NUL byte(s) dropped (first at line ${c.firstNul}): a hole, as a crash or a copytruncate rotation leaves; what was written there, if anything, is not in the file`,
    });
  }
  return issues;
}
