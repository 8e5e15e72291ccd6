// Findings and suspects as the page shows them: the stored JSON of each
// (DESIGN.md "Findings — the JSON contract") plus, per witness event, where it
// sits on the timeline, so a flag can be drawn and clicked without a lookup.

import type { IncidentDb } from "../../ingest/store/db.js";
import type { PlacedWitness } from "../wire.js";
import { positionOfSeq, type TimelineIndex } from "./timeline-index.js";


export interface FindingForUi {
  id: string;
  rule: string;
  severity: string;
  verdict: string;
  title: string;
  tsUs: number | null;
  body: Record<string, unknown>;
  placed: PlacedWitness[];
}

export interface SuspectForUi {
  rank: number;
  cause: string;
  confidence: number;
  body: Record<string, unknown>;
}

const SEVERITY_ORDER: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

export function readFindings(db: IncidentDb, idx: TimelineIndex): { findings: FindingForUi[]; suspects: SuspectForUi[] } {
  const rows = db.prepare("SELECT id, rule, severity, verdict, title, ts_us AS tsUs, witness, body FROM findings").all() as {
    id: string;
    rule: string;
    severity: string;
    verdict: string;
    title: string;
    tsUs: number | null;
    witness: string;
    body: string;
  }[];
  const findings = rows.map((r) => ({
    id: r.id,
    rule: r.rule,
    severity: r.severity,
    verdict: r.verdict,
    title: r.title,
    tsUs: r.tsUs,
    body: JSON.parse(r.body) as Record<string, unknown>,
    placed: placeWitness(idx, JSON.parse(r.witness) as number[]),
  }));
  findings.sort(
    (a, b) =>
      (SEVERITY_ORDER[a.severity] ?? 9) - (SEVERITY_ORDER[b.severity] ?? 9) || (a.tsUs ?? 0) - (b.tsUs ?? 0) || a.id.localeCompare(b.id),
  );
  const suspects = (db.prepare("SELECT rank, cause, confidence, body FROM suspects ORDER BY rank").all() as {
    rank: number;
    cause: string;
    confidence: number;
    body: string;
  }[]).map((s) => ({ ...s, body: JSON.parse(s.body) as Record<string, unknown> }));
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
