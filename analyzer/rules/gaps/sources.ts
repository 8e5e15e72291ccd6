// Sources that did not give the analysis all they hold: inputs skipped or
// refused at ingest (binary content, archive rules), sources with lines that
// could not be read, and sources whose last line was cut mid-record.

import type { Evidence } from "../evidence.js";
import { rulesOfSource, type Gap } from "./gap.js";

export function skippedSources(evidence: Evidence): Gap[] {
  return evidence.allSources().filter((s) => s.status === "skipped" || s.status === "refused").map((s) => ({
    severity: "medium" as const,
    witness: [],
    gap: {
      kind: "skipped-source" as const,
      source: s.path,
      blinds: rulesOfSource(s.role),
      detail: `${s.path} was ${s.status} at ingest${s.reason ? ` (${s.reason})` : ""}: none of its content is in the evidence`,
    },
  }));
}

export function parseErrors(evidence: Evidence): Gap[] {
  return evidence.sources().filter((s) => s.errorCount > 0).map((s) => ({
    severity: "low" as const,
    witness: [],
    gap: {
      kind: "parse-errors" as const,
      source: s.path,
      weakens: rulesOfSource(s.role),
      detail: `${s.path} has ${s.errorCount} line(s) that could not be read (first: line ${s.errors[0]?.line ?? "?"}: ${s.errors[0]?.message ?? "?"})`,
    },
  }));
}

/** A source whose last line could not be read: the file was cut mid-record. */
export function truncatedSources(evidence: Evidence): Gap[] {
  return evidence.sources().flatMap((s) => {
    const last = s.errors.find((e) => e.line === s.lines);
    if (!last) return [];
    return [{
      severity: "low" as const,
      witness: [],
      gap: { kind: "truncated-source" as const, source: s.path, weakens: rulesOfSource(s.role), detail: `${s.path} ends mid-record: its last line (${s.lines}) could not be read (${last.message})` },
    }];
  });
}
