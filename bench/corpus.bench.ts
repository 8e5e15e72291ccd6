// Real-log corpus benchmark: how kvrewind does on log excerpts users pasted
// into public GitHub issues (test/corpus/, its README says how they were
// collected). For each excerpt it runs the built CLI as a user would —
// `kvrewind analyze <file> --json --db <fresh temp dir>/incident.db` — then
// lists the incident's events with `kvrewind query`, and prints per half of
// the corpus (manifest `half`, a rule on the id alone), and per batch within
// each half (manifest `batch`):
//
//   - failure excerpts flagged: a finding with verdict `violated` and
//     severity medium or above, over the failure excerpts;
//   - healthy excerpts flagged: the same (a violated finding above `low`),
//     over the healthy excerpts — false positives;
//   - error-level lines unread: lines that look error-level (ERROR_LEVEL
//     below) and ended in a `log.unparsed` record, over all error-level lines;
//   - all lines unread: lines that ended in a `log.unparsed` record (no
//     dialect, no level, no template), over all lines;
//   - lines no template interpreted: the same with `log.message` records too
//     (their time, rank and level were read, their words were not).
//
// A line "ended in a log.unparsed record" when the record it belongs to is a
// log.unparsed event: a record runs from its event's line to the line before
// the next event's (the reader folds continuation lines — indented, blank,
// traceback, dump — into the record above). Lines before the first event, and
// every line of an excerpt the CLI refused (exit 2) or failed on (no report on stdout), count as unread too.
//
// Only the working half is listed excerpt by excerpt (its missed failures
// with their class, its flagged healthy excerpts); the held-back half prints
// totals only, so that nobody tunes templates to it.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ERROR_LEVEL, excerptOutcome, linesOf, type CorpusEntry as Entry, type ExcerptOutcome, type FindingVerdict } from "./corpusOutcome.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CORPUS = join(ROOT, "test", "corpus");
const CLI = join(ROOT, "dist", "bundle", "main.js");

interface Outcome extends ExcerptOutcome {
  refused: string | null;
}

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function analyzeExcerpt(entry: Entry): Outcome {
  const file = join(CORPUS, "excerpts", `${entry.id}.log`);
  const lines = linesOf(readFileSync(file, "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "kvrewind-corpus-"));
  try {
    const db = join(dir, "incident.db");
    const a = run(["analyze", file, "--json", "--db", db]);
    // Exit 1 is a report with violated findings; an uncaught exception exits 1 too, with no report on stdout.
    // Exit 3 is a report too: nothing at or above --fail-on, but some lines could not be read (cli/exitCodes.ts).
    const report = a.status === 0 || a.status === 1 || a.status === 3 ? reportOf(a.stdout) : null;
    if (report === null) {
      // The error's own line, not Node's version banner that ends an uncaught exception's output.
      const errLines = a.stderr.trim().split("\n");
      const why = (errLines.find((l) => /Error\b/.test(l)) ?? errLines.pop() ?? "").slice(0, 160) || `exit ${a.status}`;
      const errorLines = lines.filter((l) => ERROR_LEVEL.test(l)).length;
      return { flagged: false, violated: [], lines: lines.length, unread: lines.length, uninterpreted: lines.length, unreadText: lines, errorLines, errorUnread: errorLines, refused: why };
    }
    const q = run(["query", db, "SELECT line, kind FROM events WHERE line IS NOT NULL ORDER BY line, seq", "--json", "--max-rows", "1000000"]);
    if (q.status !== 0) throw new Error(`${entry.id}: query failed: ${q.stderr.trim()}`);
    const rows = (JSON.parse(q.stdout) as { rows: [number, string][] }).rows.map(([line, kind]) => [Number(line), kind] as const);
    return { ...excerptOutcome(lines, report.findings, rows), refused: null };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The `analyze --json` report, or null when stdout holds none (the CLI failed). */
function reportOf(stdout: string): { findings: FindingVerdict[] } | null {
  try {
    return JSON.parse(stdout) as { findings: FindingVerdict[] };
  } catch {
    return null;
  }
}

function pct(n: number, d: number): string {
  return d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`;
}

function main(): void {
  // CORPUS_HALF=working runs the working half alone (to tune on); the held-back half is never listed line by line.
  const only = process.env.CORPUS_HALF;
  const manifest = (JSON.parse(readFileSync(join(CORPUS, "manifest.json"), "utf8")) as Entry[]).filter((e) => only === undefined || e.half === only);
  const results = new Map<string, Outcome>();
  const t0 = Date.now();
  for (const entry of manifest) results.set(entry.id, analyzeExcerpt(entry));
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);

  console.log(`kvrewind on the real-log corpus: ${manifest.length} excerpts, ${seconds} s`);
  const of = (e: Entry): Outcome => results.get(e.id)!;
  for (const half of ["working", "held-back"] as const) {
    const entries = manifest.filter((e) => e.half === half);
    if (entries.length === 0) continue;
    printTotals(`${half} half`, entries, of);
    // Each batch apart too: batches after the first were added later, and the newest batch's held-back excerpts are the ones no earlier tuning saw.
    const batches = [...new Set(manifest.map((e) => e.batch))].sort((a, b) => a - b);
    for (const batch of batches) printTotals(`${half} half, batch ${batch}`, entries.filter((e) => e.batch === batch), of);
    if (half === "working") listWorking(entries, of);
  }
}

function printTotals(label: string, entries: Entry[], of: (e: Entry) => Outcome): void {
  if (entries.length === 0) return;
  const failures = entries.filter((e) => e.failure);
  const healthy = entries.filter((e) => !e.failure);
  const sum = (f: (o: Outcome) => number): number => entries.reduce((n, e) => n + f(of(e)), 0);
  const caught = failures.filter((e) => of(e).flagged).length;
  const falsePos = healthy.filter((e) => of(e).flagged).length;
  const errLines = sum((o) => o.errorLines);
  const errUnread = sum((o) => o.errorUnread);
  const allLines = sum((o) => o.lines);
  const allUnread = sum((o) => o.unread);
  const allUninterpreted = sum((o) => o.uninterpreted);
  const refused = entries.filter((e) => of(e).refused !== null).length;
  console.log(`\n${label}: ${entries.length} excerpts (${failures.length} failure, ${healthy.length} healthy)`);
  console.log(`  failure excerpts flagged (violated, >= medium): ${caught}/${failures.length} (${pct(caught, failures.length)})`);
  console.log(`  healthy excerpts flagged (violated, above low): ${falsePos}/${healthy.length} (${pct(falsePos, healthy.length)})`);
  console.log(`  error-level lines unread (log.unparsed): ${errUnread}/${errLines} (${pct(errUnread, errLines)})`);
  console.log(`  all lines unread (log.unparsed): ${allUnread}/${allLines} (${pct(allUnread, allLines)})`);
  console.log(`  lines no template interpreted (log.unparsed or log.message): ${allUninterpreted}/${allLines} (${pct(allUninterpreted, allLines)})`);
  console.log(`  excerpts the CLI refused or failed on (no report; counted unflagged and unread): ${refused}`);
}

/** The working half excerpt by excerpt: missed failures, unread lines (CORPUS_UNREAD=1), flagged healthy excerpts. */
function listWorking(entries: Entry[], of: (e: Entry) => Outcome): void {
  const missed = entries.filter((e) => e.failure && !of(e).flagged);
  console.log(`\n  working-half failures not flagged (${missed.length}):`);
  for (const e of missed) {
    const o = of(e);
    const note = o.refused !== null ? `  [refused: ${o.refused}]` : `  [${o.errorUnread}/${o.errorLines} error-level lines unread]`;
    console.log(`    ${e.id}: ${e.class}${note}`);
  }
  if (process.env.CORPUS_UNREAD === "1") {
    for (const e of entries.filter((x) => of(x).unreadText.length > 0)) {
      console.log(`  unread in ${e.id}:`);
      for (const line of of(e).unreadText) console.log(`    | ${line.slice(0, 160)}`);
    }
  }
  const fp = entries.filter((e) => !e.failure && of(e).flagged);
  console.log(`  working-half healthy excerpts flagged (${fp.length}):`);
  for (const e of fp) console.log(`    ${e.id}: ${of(e).violated.join(", ")}`);
}

main();
