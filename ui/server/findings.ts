// Findings and suspects as the page shows them: the stored JSON of each
// (DESIGN.md "Findings — the JSON contract") plus, per witness event, where it
// sits on the timeline, so a flag can be drawn and clicked without a lookup.

import type { IncidentDb } from "../../ingest/store/db.js";
import type { Finding, PlacedWitness, Suspect } from "../wire.js";
import { positionOfSeq, type TimelineIndex } from "./timeline-index.js";

const SEVERITY_ORDER: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** A findings row: the stored JSON columns still as text. */
type FindingRow = Omit<Finding, "body" | "placed"> & { witness: string; body: string };

export function readFindings(db: IncidentDb, idx: TimelineIndex): { findings: Finding[]; suspects: Suspect[] } {
  const rows = db.prepare("SELECT id, rule, severity, verdict, title, ts_us AS tsUs, witness, body FROM findings").all() as FindingRow[];
  const findings = rows.map(({ witness, body, ...r }): Finding => ({
    ...r,
    body: JSON.parse(body) as Finding["body"],
    placed: placeWitness(idx, JSON.parse(witness) as number[]),
  }));
  findings.sort(
    (a, b) =>
      (SEVERITY_ORDER[a.severity] ?? 9) - (SEVERITY_ORDER[b.severity] ?? 9) || (a.tsUs ?? 0) - (b.tsUs ?? 0) || a.id.localeCompare(b.id),
  );
  const suspectRows = db.prepare("SELECT rank, cause, confidence, body FROM suspects ORDER BY rank").all() as (Omit<Suspect, "body"> & { body: string })[];
  const suspects = suspectRows.map((s): Suspect => ({ ...s, body: JSON.parse(s.body) as Suspect["body"] }));
  return { findings, suspects };
}

function placeWitness(idx: TimelineIndex, seqs: number[]): PlacedWitness[] {
  const placed: PlacedWitness[] = [];
  for (const seq of seqs) {
    const pos = positionOfSeq(idx, seq);
    if (pos !== undefined) placed.push({ seq, tsUs: idx.ts[pos]!, lane: idx.lane[pos]! });
  }
  return placed;
}
