// What the ingest reports of each input (`kvrewind ingest`'s summary, the
// upload's warnings): what became of it — ingested, a duplicate, skipped or
// refused, and why — with what was read or decided of it, and the row an
// input not ingested leaves in the incident's sources table.

import type { Role } from "../domain/vocabulary.js";
import type { FormatName } from "./formats/format.js";
import type { PageBytesFormat } from "./inputs/pageDumps.js";
import type { Candidate } from "./sources/candidates.js";
import { noSourceStats, type SourceStats } from "../store/read/sources.js";
import type { KnownSource, NotIngestedSource } from "../store/writer.js";

export type SourceStatus = "ingested" | "duplicate" | "skipped" | "refused";

/** An input as the ingest reports it: what became of it and its statistics (store/read/sources.ts SourceStats), its times as text. */
export interface SourceSummary extends Omit<SourceStats, "firstTsUs" | "lastTsUs"> {
  path: string;
  status: SourceStatus;
  /** Why a source was not ingested. */
  reason?: string;
  format: FormatName | PageBytesFormat | null;
  /** The container wrapper around each line, when the file has one. */
  wrapper: string | null;
  host: string | null;
  role: Role | null;
  /** Pages read from a file of page bytes; 0 for other sources. */
  pages: number;
  /** First and last event time (aligned), ISO 8601 UTC with microseconds. */
  first: string | null;
  last: string | null;
  bytes: number;
  sha256: string | null;
}

/** Why an input the incident holds already is not ingested again. */
export const DUPLICATE_REASON = "already in this incident (same path, same sha256)";

/** An input's summary with nothing read of it yet. */
export function emptySummary(path: string, status: SourceStatus, reason: string, bytes = 0): SourceSummary {
  const { firstTsUs: _first, lastTsUs: _last, ...stats } = noSourceStats();
  return { ...stats, path, status, reason, format: null, wrapper: null, host: null, role: null, pages: 0, first: null, last: null, bytes, sha256: null };
}

/** Why an ingest found nothing to read: every input was empty, binary or unreadable. */
export function nothingReadable(paths: readonly string[], notRead: readonly SourceSummary[]): string {
  if (notRead.length === 0) return `no file to ingest in ${paths.join(", ")} (an empty directory or archive)`;
  const why = notRead.slice(0, 5).map((s) => `${s.path}: ${s.reason}`);
  const more = notRead.length > 5 ? `; and ${notRead.length - 5} more` : "";
  return `no readable file to ingest (${why.join("; ")}${more})`;
}

/** A candidate's summary once parsed and decided: what it is and who wrote it. */
export function summaryOf(c: Candidate, status: SourceStatus, reason?: string): SourceSummary {
  const facts = c.parsed!.facts;
  const summary: SourceSummary = {
    ...emptySummary(c.file.displayPath, status, reason ?? "", facts.bytes),
    format: c.sniff.format,
    wrapper: c.sniff.wrapper,
    host: c.identity?.host ?? null,
    role: c.identity?.role ?? null,
    lines: c.parsed!.stats.lines,
    sha256: facts.sha256 || null,
  };
  if (reason === undefined) delete summary.reason;
  return summary;
}

/** A file the incident holds already, reported as it was stored when it was ingested. */
export function knownSummary(c: Candidate, stored: KnownSource): SourceSummary {
  return {
    ...emptySummary(c.file.displayPath, "duplicate", DUPLICATE_REASON, stored.bytes),
    format: c.sniff.format,
    wrapper: c.sniff.wrapper,
    host: stored.host,
    role: stored.role,
    lines: stored.lines,
    sha256: stored.sha256,
  };
}

/** A skipped or refused input as the incident records it (duplicates within one ingest are skipped). */
export function notIngestedRow(s: SourceSummary): NotIngestedSource {
  return {
    path: s.path,
    format: s.format,
    host: s.host,
    role: s.role,
    sha256: s.sha256,
    bytes: s.bytes,
    lines: s.lines,
    status: s.status === "refused" ? "refused" : "skipped",
    reason: s.reason ?? "",
  };
}
