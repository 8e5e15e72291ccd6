// Findings and suspects as the page shows them: the stored JSON of each
// (DESIGN.md "Findings — the JSON contract") plus, per witness event, where it
// sits on the timeline, so a flag can be drawn and clicked without a lookup.

import type { IncidentDb } from "../../store/db.js";
import { readAnalysisRows } from "../../store/read/analysis.js";
import type { Finding, Suspect } from "../wire.js";
import { placeEvents, type TimelineIndex } from "../../analyzer/timeline/timelineIndex.js";
import { excerpt, FIELD_EXCERPT } from "./excerpt.js";
import { groupFindings, roomsOfFinding } from "../view/findingGroups.js";

/** The rooms "in" finding `id` as the page shows them (its group's and its own); null when there is no such finding. */
export function findingRooms(db: IncidentDb, idx: TimelineIndex, id: string): string[] | null {
  const { findings, suspects } = readFindings(db, idx);
  const f = findings.find((x) => x.id === id);
  return f === undefined ? null : roomsOfFinding(groupFindings(findings, suspects), f);
}

const SEVERITY_ORDER: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** The stored findings and suspects; with `idx` null (the timeline not indexed yet) no witness is placed. */
export function readFindings(db: IncidentDb, idx: TimelineIndex | null): { findings: Finding[]; suspects: Suspect[] } {
  const stored = readAnalysisRows(db);
  if (!stored) return { findings: [], suspects: [] };
  const findings = stored.findings.map(({ id, rule, severity, verdict, title, tsUs, witnessSeqs, body }): Finding => ({
    id,
    rule,
    severity,
    verdict,
    title,
    tsUs,
    body: withBoundedWitness(body as Finding["body"]),
    placed: idx === null ? [] : placeEvents(idx, witnessSeqs),
  }));
  findings.sort(
    (a, b) =>
      (SEVERITY_ORDER[a.severity] ?? 9) - (SEVERITY_ORDER[b.severity] ?? 9) || (a.tsUs ?? 0) - (b.tsUs ?? 0) || a.id.localeCompare(b.id),
  );
  const suspects = stored.suspects.map((s): Suspect => ({ ...s, body: s.body as Suspect["body"] }));
  return { findings, suspects };
}

/** Witness lines cut to FIELD_EXCERPT characters, each saying its full length when cut (the event has the rest). */
function withBoundedWitness(body: Finding["body"]): Finding["body"] {
  if (!body.witness) return body;
  return {
    ...body,
    witness: body.witness.map((w) => (w.text.length > FIELD_EXCERPT ? { ...w, text: excerpt(w.text, FIELD_EXCERPT), textLength: w.text.length } : w)),
  };
}
