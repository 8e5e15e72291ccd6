// Findings and suspects through the store's typed functions: a real incident
// file, rows checked by zod on the way in and out, one transaction per write.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openIncident } from "../../store/db.js";
import { readAnalysisRows, type FindingRow } from "../../store/read/analysis.js";
import { writeAnalysisRows } from "../../store/writeAnalysis.js";
import { scratchDir } from "../scratchDir.js";

const ROOM = "8972542885242963296";

function row(id: string, verdict: string, tsUs: number | null): FindingRow {
  return {
    id, rule: "transfer-stall", severity: "high", verdict, title: `room ${ROOM} timed out`, room: ROOM, ranks: ["d0/decode/tp3"], tsUs,
    witnessSeqs: [12, 40], body: { id, room: ROOM, note: "kept whole" },
  };
}

test("an incident with no analysis reads back none; a written analysis reads back in id order, rooms exact", () => {
  const db = openIncident(join(scratchDir("kvrewind-store-"), "incident.db"));
  assert.equal(readAnalysisRows(db), undefined);
  const rows = [row("F10", "violated", 1_764_421_512_000_000), row("F2", "consistent", null), row("F1", "violated", null)];
  writeAnalysisRows(db, { header: { incident: { name: "x" } }, findings: rows, suspects: [{ rank: 1, cause: "transfer-saturation", confidence: 0.5, body: { rank: 1 } }] });
  const back = readAnalysisRows(db)!;
  assert.deepEqual(back.findings.map((f) => f.id), ["F1", "F2", "F10"], "F10 after F2, not after F1");
  assert.deepEqual(back.findings[2], rows[0]);
  assert.equal((back.findings[0]!.body as { room: string }).room, ROOM);
  assert.deepEqual(back.header, { incident: { name: "x" } });
  assert.deepEqual(back.suspects, [{ rank: 1, cause: "transfer-saturation", confidence: 0.5, body: { rank: 1 } }]);
  db.close();
});

test("a malformed row is refused before anything is written: the previous analysis stays", () => {
  const db = openIncident(join(scratchDir("kvrewind-store-"), "incident.db"));
  writeAnalysisRows(db, { header: { n: 1 }, findings: [row("F1", "violated", null)], suspects: [] });
  const bad = { ...row("F2", "violated", null), tsUs: 1.5 };
  assert.throws(() => writeAnalysisRows(db, { header: { n: 2 }, findings: [bad], suspects: [] }), /tsUs|int/i);
  const back = readAnalysisRows(db)!;
  assert.deepEqual([back.header, back.findings.map((f) => f.id)], [{ n: 1 }, ["F1"]]);
  db.close();
});

test("a second write replaces the first, findings and suspects both", () => {
  const db = openIncident(join(scratchDir("kvrewind-store-"), "incident.db"));
  writeAnalysisRows(db, { header: {}, findings: [row("F1", "violated", null), row("F2", "violated", null)], suspects: [{ rank: 1, cause: "c", confidence: 1, body: {} }] });
  writeAnalysisRows(db, { header: {}, findings: [row("F1", "consistent", null)], suspects: [] });
  const back = readAnalysisRows(db)!;
  assert.deepEqual([back.findings.map((f) => [f.id, f.verdict]), back.suspects], [[["F1", "consistent"]], []]);
  db.close();
});
