// The line an incident gets in the incident list, computed once when its
// analysis finishes and kept in incident.json.

import { openIncident } from "../../ingest/store/db.js";
import { eventCount, listSources } from "../../ingest/store/queries.js";
import { rankLabel } from "../../analyzer/replay/eventRefs.js";
import type { IncidentSummary } from "./registry.js";

export function summarize(dbPath: string): IncidentSummary {
  const db = openIncident(dbPath, { readonly: true });
  try {
    const sources = listSources(db);
    // Ranks as the replay names them ("p0/prefill/tp3"): a log and a probe of one rank count once.
    const rankRows = db.prepare("SELECT DISTINCT host, role, tp FROM events WHERE tp IS NOT NULL").all() as { host: string | null; role: string | null; tp: number }[];
    const ranks = rankRows.map((r) => rankLabel(r.host, r.role, r.tp)!).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
    const span = db.prepare("SELECT MIN(ts_us) AS first, MAX(ts_us) AS last FROM events").get() as {
      first: number | null;
      last: number | null;
    };
    const findings: Record<string, number> = {};
    for (const row of db.prepare("SELECT severity, COUNT(*) AS n FROM findings WHERE verdict = 'violated' GROUP BY severity").all() as {
      severity: string;
      n: number;
    }[]) {
      findings[row.severity] = row.n;
    }
    const top = db.prepare("SELECT cause, confidence, body FROM suspects ORDER BY rank LIMIT 1").get() as
      | { cause: string; confidence: number; body: string }
      | undefined;
    return {
      events: eventCount(db),
      sources: sources.length,
      ranks,
      firstTsUs: span.first,
      lastTsUs: span.last,
      findings,
      topSuspect: top
        ? { cause: top.cause, confidence: top.confidence, summary: String((JSON.parse(top.body) as { summary?: unknown }).summary ?? "") }
        : null,
    };
  } finally {
    db.close();
  }
}
