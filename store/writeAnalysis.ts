// Writing an analysis's findings and suspects (store/read/analysis.ts reads
// them): one transaction that replaces the previous analysis. The analysis
// step is the one reader of an incident that writes.

import { z } from "zod";
import { setMeta, type IncidentDb } from "./db.js";
import { ANALYSIS_META, findingRowSchema, suspectRowSchema, type AnalysisRows } from "./read/analysis.js";

/** Replaces the incident's stored findings, suspects and analysis header. */
export function writeAnalysisRows(db: IncidentDb, rows: AnalysisRows): void {
  const findings = z.array(findingRowSchema).parse(rows.findings);
  const suspects = z.array(suspectRowSchema).parse(rows.suspects);
  const insertFinding = db.prepare(
    "INSERT INTO findings (id, rule, severity, verdict, title, room, ranks, ts_us, witness, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertSuspect = db.prepare("INSERT INTO suspects (rank, cause, confidence, body) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    db.prepare("DELETE FROM findings").run();
    db.prepare("DELETE FROM suspects").run();
    for (const f of findings) {
      insertFinding.run(f.id, f.rule, f.severity, f.verdict, f.title, f.room, JSON.stringify(f.ranks), f.tsUs, JSON.stringify(f.witnessSeqs), JSON.stringify(f.body));
    }
    for (const s of suspects) insertSuspect.run(s.rank, s.cause, s.confidence, JSON.stringify(s.body));
    setMeta(db, ANALYSIS_META, JSON.stringify(rows.header));
  })();
}
