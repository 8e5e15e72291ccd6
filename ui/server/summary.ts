// The line an incident gets in the incident list, computed once when its
// analysis finishes and kept in incident.json.

import { openIncident } from "../../store/db.js";
import { eventCount } from "../../store/read/incident.js";
import { listSources } from "../../store/read/sources.js";
import { summaryFigures } from "../../store/read/incident.js";
import { rankLabel } from "../../analyzer/replay/eventRefs.js";
import type { IncidentSummary } from "./incidentRecord.js";

export function summarize(dbPath: string): IncidentSummary {
  const db = openIncident(dbPath, { readonly: true });
  try {
    const figures = summaryFigures(db);
    // Ranks as the replay names them ("p0/prefill/tp3"): a log and a probe of one rank count once.
    const ranks = figures.ranks.map((r) => rankLabel(r.host, r.role, r.tp)!).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    return {
      events: eventCount(db),
      sources: listSources(db).length,
      ranks,
      firstTsUs: figures.firstTsUs,
      lastTsUs: figures.lastTsUs,
      findings: figures.violatedBySeverity,
      topSuspect: figures.topSuspect ?? null,
    };
  } finally {
    db.close();
  }
}
