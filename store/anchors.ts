// Clock anchors in the incident's `clock_anchors`: each ingest folds in the
// anchors its parse gathered of the new sources (ingest/load/sourceFacts.ts),
// per room or collective and host, and the bounds between hosts are derived
// there (ingest/sources/clock.ts).

import type { AnchorAgg, UpperBound } from "../domain/clockAnchors.js";
import type { IncidentDb } from "./db.js";

/** Folds new sources' anchors into the incident's clock_anchors: per (key, domain), the earliest and latest befores and the earliest after. */
export function addAnchors(db: IncidentDb, aggs: readonly AnchorAgg[]): void {
  const upsert = db.prepare(
    `INSERT INTO clock_anchors (key, domain, rel, min_before, max_before, min_after) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (key, domain) DO UPDATE SET
       min_before = coalesce(min(min_before, excluded.min_before), min_before, excluded.min_before),
       max_before = coalesce(max(max_before, excluded.max_before), max_before, excluded.max_before),
       min_after  = coalesce(min(min_after, excluded.min_after), min_after, excluded.min_after)`,
  );
  for (const a of aggs) upsert.run(a.key, a.domain, a.rel, a.minBefore, a.maxBefore, a.minAfter);
}

/** Clock domains named by the incident's anchors. */
export function anchorDomains(db: IncidentDb): string[] {
  return db.prepare("SELECT DISTINCT domain FROM clock_anchors").pluck().all() as string[];
}

/**
 * The tightest upper bound on o[from] - o[to] for every ordered pair of
 * domains, from every key seen on both (ingest/sources/clock.ts gives the rules: an
 * "all" key bounds by its latest before, an "earliest" key by its earliest,
 * and only while its befores are on one host). A cause comes at least 1 us
 * before its effect, so that aligned times never tie a pair the wrong way.
 */
export function anchorBounds(db: IncidentDb): UpperBound[] {
  return db
    .prepare(
      `WITH befores AS (
         SELECT key, rel, domain, min_before, max_before, COUNT(*) OVER (PARTITION BY key) AS hosts
           FROM clock_anchors WHERE min_before IS NOT NULL
       )
       SELECT b.domain AS "from", a.domain AS "to",
              MIN(a.min_after - CASE b.rel WHEN 'all' THEN b.max_before ELSE b.min_before END) - 1 AS c,
              COUNT(*) AS n
         FROM befores b JOIN clock_anchors a ON a.key = b.key AND a.domain <> b.domain AND a.min_after IS NOT NULL
        WHERE b.rel = 'all' OR b.hosts = 1
        GROUP BY b.domain, a.domain`,
    )
    .all() as UpperBound[];
}
