// What kvrewind made of one excerpt of the real-log corpus (test/corpus/), the
// one reading shared by `npm run bench:corpus` (which runs the CLI as a user
// would) and the corpus test (which runs ingest and analysis in-process):
//
//   - flagged: a finding with verdict `violated` and severity medium or
//     above (for a healthy excerpt: above low — a false positive);
//   - error-level lines unread: lines that look error-level (ERROR_LEVEL
//     below) and ended in a `log.unparsed` record;
//   - lines unread: lines that ended in a `log.unparsed` record (no dialect,
//     no level, no template); lines uninterpreted: the same with `log.message`
//     records too (their time, rank and level were read, their words were not).
//
// A line "ended in" the record of the last event at or above it: the reader
// folds continuation lines (indented, blank, traceback, dump) into the record
// above. Lines before the first event count as unread.

import { atOrAbove, type Severity } from "../domain/vocabulary.js";

export interface CorpusEntry {
  id: string;
  source: string;
  url?: string;
  title: string;
  failure: boolean;
  class: string;
  /** Decided by the id alone, by its batch's rule (test/corpus/README.md "The split"). */
  half: "working" | "held-back";
  /** 1: the first 85 excerpts; 2: the 37 added on 2026-12-05; 3: the 47 added on 2026-12-06; 4: the 42 added later that day; 5: the 40 added later still that day; 6: the 40 added after that; 7: the 34 added after batch 6; each later batch split by its own rule before any tuning. */
  batch: number;
}

export interface FindingVerdict {
  rule: string;
  verdict: string;
  severity: Severity;
}

export interface ExcerptOutcome {
  flagged: boolean;
  /** Violated findings `rule/severity` at the flagging threshold. */
  violated: string[];
  lines: number;
  unread: number;
  uninterpreted: number;
  unreadText: string[];
  errorLines: number;
  errorUnread: number;
}

/**
 * What counts as an error-level line, whatever wraps it (a `service-1  | `
 * prefix, a `> ` quote, a CRI timestamp): a glog/torch E or F prefix
 * (`E0612 14:05:26.17…`, `[E321 02:07:08…`, `E20260530 21:16:47…`), an
 * ERROR/CRITICAL/FATAL level word, a Python traceback head, a `…Error:` /
 * `…Error(` / `…Exception:` name or the word `Exception`, `Fatal Python
 * error`, `Segmentation fault`, `terminate called`, `Assertion … failed`,
 * `timed out`. Written before any template, from the classes.
 */
export const ERROR_LEVEL = new RegExp(
  [
    String.raw`\b[EF]\d{4}(?:\d{4})? \d{2}:\d{2}:\d{2}`,
    String.raw`\b(?:ERROR|CRITICAL|FATAL)\b`,
    String.raw`Traceback \(most recent call last\)`,
    String.raw`\w(?:Error|Exception)[:(]`,
    String.raw`\bException\b`,
    String.raw`Fatal Python error`,
    String.raw`Segmentation fault`,
    String.raw`terminate called`,
    String.raw`\bAssertion\b.*\bfailed\b`,
    String.raw`timed out`,
  ].join("|"),
);

/** Splits a file into its lines as the reader numbers them (1-based; a final newline ends the last line). */
export function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The outcome of one excerpt from its lines, the report's findings, and each event's line and kind (one source). */
export function excerptOutcome(lines: readonly string[], findings: readonly FindingVerdict[], events: Iterable<readonly [number, string]>): ExcerptOutcome {
  // Medium or above flags a failure; for a healthy excerpt it is a false positive (above low).
  const violated = findings.filter((f) => f.verdict === "violated" && atOrAbove(f.severity, "medium"));
  const kindAt = new Map<number, string[]>();
  for (const [line, kind] of events) {
    const ks = kindAt.get(line);
    if (ks) ks.push(kind);
    else kindAt.set(line, [kind]);
  }
  let unread = 0;
  let uninterpreted = 0;
  let errorLines = 0;
  let errorUnread = 0;
  const unreadText: string[] = [];
  let current: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    current = kindAt.get(i + 1) ?? current;
    const isError = ERROR_LEVEL.test(lines[i]!);
    if (isError) errorLines++;
    if (current === null || current.every((k) => k === "log.unparsed" || k === "log.message")) uninterpreted++;
    // A line is read when its record holds any event other than log.unparsed.
    if (current === null || current.every((k) => k === "log.unparsed")) {
      unread++;
      unreadText.push(lines[i]!);
      if (isError) errorUnread++;
    }
  }
  return { flagged: violated.length > 0, violated: violated.map((f) => `${f.rule}/${f.severity}`), lines: lines.length, unread, uninterpreted, unreadText, errorLines, errorUnread };
}
