// What `kvrewind ingest` prints: by default one screen — totals (inputs,
// lines, events, and the incident's ranks, hosts and time span), what was not
// understood (the most frequent unparsed shapes across every file), what was
// refused or skipped, the clock offsets; with --verbose, every input as well
// (DESIGN.md "CLI": default output fits a screen, detail behind --verbose/--json).

import { count, hostsPhrase, plural } from "../../analyzer/report/phrases.js";
import type { IngestSummary } from "../../ingest/pipeline.js";
import type { SourceSummary } from "../../ingest/sourceSummaries.js";

/** Unparsed shapes shown, per source with --verbose and across sources by default; --json has them all. */
const SHOWN_SHAPES = 5;
/** Refused or skipped inputs named by default before "… more" (stderr names every refused one). */
const SHOWN_OUTCOMES = 10;
/** Characters of a shape shown by default, so that each takes one line of a terminal; --verbose and --json have them whole. */
const SHAPE_CHARS = 90;

const clip = (shape: string): string => (shape.length > SHAPE_CHARS ? `${shape.slice(0, SHAPE_CHARS - 1)}…` : shape);

function sourceLine(s: SourceSummary): string {
  if (s.status !== "ingested") return `${s.status.padEnd(9)} ${s.path}: ${s.reason}`;
  const who = [s.host && `host ${s.host}`, s.role && `role ${s.role}`, s.ranks.length > 0 && `ranks ${s.ranks.join(",")}`].filter(Boolean).join("  ");
  const span = s.first && s.last ? `  ${s.first} .. ${s.last}` : "";
  const format = s.wrapper !== null ? `${s.format} in ${s.wrapper}` : s.format;
  const inferred = s.inferred > 0 ? `  inferred times ${s.inferred}` : "";
  const lines = [
    `ingested  ${s.path}  ${format}  ${who}  lines ${s.lines}  events ${s.events}  unparsed ${s.unparsed}${inferred}  errors ${s.errorCount}${span}`,
  ];
  for (const e of s.errors.slice(0, 5)) lines.push(`            line ${e.line}: ${e.message}`);
  if (s.errorCount > 5) lines.push(`            ... ${s.errorCount - 5} more`);
  if (s.timeOrigin !== null) lines.push(`            times: ${s.timeOrigin}`);
  const shapes = s.unparsedShapes.slice(0, SHOWN_SHAPES);
  if (shapes.length > 0) lines.push("            not understood (count, shape, first line):");
  for (const u of shapes) lines.push(`            ${String(u.count).padStart(7)}  ${u.shape}${u.line > 0 ? `  (line ${u.line})` : ""}`);
  const rest = s.unparsedShapes.slice(SHOWN_SHAPES).reduce((n, u) => n + u.count, 0);
  if (rest > 0) lines.push(`            ${String(rest).padStart(7)}  lines of other shapes (--json lists them)`);
  return lines.join("\n");
}

/** The most frequent unparsed shapes of the whole ingest, each with the first place it was seen. */
function topShapes(sources: readonly SourceSummary[]): { count: number; shape: string; where: string }[] {
  const byShape = new Map<string, { count: number; shape: string; where: string }>();
  for (const s of sources) {
    for (const u of s.unparsedShapes) {
      const seen = byShape.get(u.shape);
      if (seen) seen.count += u.count;
      else byShape.set(u.shape, { count: u.count, shape: u.shape, where: u.line > 0 ? `${s.path}:${u.line}` : s.path });
    }
  }
  return [...byShape.values()].sort((a, b) => b.count - a.count);
}

function outcomeLines(label: string, sources: readonly SourceSummary[]): string[] {
  if (sources.length === 0) return [];
  const shown = sources.slice(0, SHOWN_OUTCOMES).map((s) => `  ${s.path}: ${s.reason ?? ""}`);
  const more = sources.length > SHOWN_OUTCOMES ? [`  … ${count(sources.length - SHOWN_OUTCOMES)} more (--verbose)`] : [];
  return [`${label} ${plural(sources.length, "input")}:`, ...shown, ...more];
}

/** What was read, and what the incident now holds: its events, ranks, hosts and time span. */
function totals(summary: IngestSummary): string[] {
  const read = summary.sources.filter((s) => s.status === "ingested");
  const lines = read.reduce((n, s) => n + s.lines, 0);
  const { ranks, hosts, first, last } = summary.incident;
  return [
    `${summary.db}: ingested ${count(read.length)} of ${plural(summary.sources.length, "input")} (${plural(lines, "line")}); ` +
      `${plural(summary.eventsTotal, "event")} (${count(summary.eventsAdded)} added)`,
    `  ${plural(ranks.length, "rank")}, ${hostsPhrase(hosts)}; ${spanText(first, last)}`,
  ];
}

/** "2026-06-23T14:40:31Z → 2026-06-23T14:48:11Z (7 min 40 s)". */
function spanText(first: string | null, last: string | null): string {
  if (first === null || last === null) return "no dated record";
  const short = (iso: string): string => iso.replace(/\.0+Z$/, "Z");
  return `${short(first)} → ${short(last)} (${durationText((Date.parse(last) - Date.parse(first)) / 1000)})`;
}

function durationText(seconds: number): string {
  if (seconds < 60) return `${Number(seconds.toFixed(seconds < 10 ? 3 : 0))} s`;
  const s = Math.round(seconds);
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

function notUnderstood(sources: readonly SourceSummary[]): string[] {
  const read = sources.filter((s) => s.status === "ingested");
  const unparsed = read.reduce((n, s) => n + s.unparsed, 0);
  // A metrics file holds more samples than lines (an HTTP API answer is one line): its records are its events.
  const records = read.reduce((n, s) => n + Math.max(s.lines, s.events), 0);
  if (unparsed === 0) return ["every line understood"];
  const files = read.filter((s) => s.unparsed > 0).length;
  const share = records > 0 ? ` (${((100 * unparsed) / records).toFixed(1)} % of records)` : "";
  const shapes = topShapes(read);
  const rest = shapes.slice(SHOWN_SHAPES).reduce((n, u) => n + u.count, 0);
  return [
    `not understood: ${plural(unparsed, "line")}${share} in ${plural(files, "file")} (kept as log.message, log.unparsed or metric.sample); the most frequent:`,
    ...shapes.slice(0, SHOWN_SHAPES).map((u) => `  ${count(u.count).padStart(9)}  ${clip(u.shape)}  (${u.where})`),
    ...(rest > 0 ? [`  ${count(rest).padStart(9)}  lines of other shapes (--verbose or --json)`] : []),
  ];
}

function unreadLines(sources: readonly SourceSummary[]): string[] {
  const partly = sources.filter((s) => s.status === "ingested" && s.errorCount > 0);
  if (partly.length === 0) return [];
  return [`lines that could not be read: ${partly.map((s) => `${s.path} ${count(s.errorCount)}`).join(", ")}`];
}

export function renderSummary(summary: IngestSummary, verbose: boolean): string {
  const offsets = Object.entries(summary.clockOffsetsUs)
    .map(([host, us]) => `${host} ${us >= 0 ? "+" : ""}${us} us`)
    .join(", ");
  const inferred = summary.sources.filter((s) => s.inferred > 0);
  const lines = [
    ...(verbose ? [...summary.sources.map(sourceLine), ""] : []),
    ...totals(summary),
    ...notUnderstood(summary.sources),
    ...unreadLines(summary.sources),
    ...outcomeLines("refused", summary.sources.filter((s) => s.status === "refused")),
    ...outcomeLines("skipped", summary.sources.filter((s) => s.status === "skipped" || s.status === "duplicate")),
    ...(inferred.length > 0 ? [`times inferred for ${plural(inferred.reduce((n, s) => n + s.inferred, 0), "record")} in ${plural(inferred.length, "file")} (no time of their own)`] : []),
    ...(offsets ? [`clock offsets: ${offsets}`] : []),
    ...(verbose ? [] : ["--verbose lists every input; --json gives everything"]),
    "",
  ];
  return lines.join("\n");
}
