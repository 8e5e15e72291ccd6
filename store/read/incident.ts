// Figures of the whole incident: its event count, the events per kind, the
// kinds and rooms present, what identifies its current events, the clock
// offsets, its extent (ranks, hosts, time span) and the summary the incident
// list shows.

import { KeyDim } from "../blocks/blockTables.js";
import { eventBlocks } from "../blocks/eventBlocks.js";
import { scanEvents } from "../blocks/scan.js";
import { getMetaJson, type IncidentDb } from "../db.js";
import { eventRanks } from "./ranks.js";

/** Microseconds added to each host's raw times at ingest (ingest/sources/clock.ts); empty before any ingest. */
export function clockOffsets(db: IncidentDb): Record<string, number> {
  return getMetaJson<Record<string, number>>(db, "clock_offsets") ?? {};
}

export function countsByKind(db: IncidentDb): { kind: string; count: number }[] {
  const counts = new Map<string, number>();
  scanEvents(db, {}, (ev) => {
    const k = ev.kind;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  });
  return [...counts].map(([kind, count]) => ({ kind, count })).sort((a, b) => b.count - a.count);
}

/** The kinds the incident holds, from the blocks' side table (no block is read). */
export function kindsPresent(db: IncidentDb): Set<string> {
  return new Set(eventBlocks(db).keysOf(KeyDim.kind));
}

/** The rooms the incident's events name, in string order, from the blocks' side table (no block is read). */
export function roomsPresent(db: IncidentDb): string[] {
  return eventBlocks(db).keysOf(KeyDim.room).sort();
}

export function eventCount(db: IncidentDb): number {
  return eventBlocks(db).events;
}

/** The ranks and hosts the incident's events name, and the span its sources' dated records cover. */
export interface IncidentExtent {
  /** A rank is a (host, role, TP rank): a rank's log and its probe records count once. */
  ranks: { host: string | null; role: string | null; tp: number }[];
  hosts: string[];
  firstTsUs: number | null;
  lastTsUs: number | null;
}

/** The incident's extent, from the blocks' side table and the sources table (no block is read). */
export function incidentExtent(db: IncidentDb): IncidentExtent {
  const keys = eventRanks(db);
  const span = db.prepare("SELECT MIN(first_ts_us) AS first, MAX(last_ts_us) AS last FROM sources WHERE status = 'complete'").get() as { first: number | null; last: number | null };
  return {
    ranks: keys.flatMap((r) => (r.tp === null ? [] : [{ host: r.host, role: r.role, tp: r.tp }])),
    hosts: [...new Set(keys.flatMap((r) => (r.host === null ? [] : [r.host])))].sort(),
    firstTsUs: span.first,
    lastTsUs: span.last,
  };
}

/** What the incident list shows of an incident: its ranks, time span, violated findings per severity, top suspect. */
export interface SummaryFigures {
  ranks: { host: string | null; role: string | null; tp: number }[];
  firstTsUs: number | null;
  lastTsUs: number | null;
  violatedBySeverity: Record<string, number>;
  /** The first-ranked suspect: its cause, confidence and one-line summary. */
  topSuspect: { cause: string; confidence: number; summary: string } | undefined;
}

export function summaryFigures(db: IncidentDb): SummaryFigures {
  // The ranks from the blocks' side table, as incidentExtent reads them: no event is decoded.
  const ranks = incidentExtent(db).ranks;
  const list = eventBlocks(db).list;
  const span = {
    first: list.length === 0 ? null : Math.min(...list.map((b) => b.minTsUs)),
    last: list.length === 0 ? null : Math.max(...list.map((b) => b.maxTsUs)),
  };
  const violatedBySeverity: Record<string, number> = {};
  const bySeverity = db.prepare("SELECT severity, COUNT(*) AS n FROM findings WHERE verdict = 'violated' GROUP BY severity").all() as { severity: string; n: number }[];
  for (const row of bySeverity) violatedBySeverity[row.severity] = row.n;
  const top = db.prepare("SELECT cause, confidence, body FROM suspects ORDER BY rank LIMIT 1").get() as { cause: string; confidence: number; body: string } | undefined;
  const topSuspect = top && { cause: top.cause, confidence: top.confidence, summary: String((JSON.parse(top.body) as { summary?: unknown }).summary ?? "") };
  return { ranks, firstTsUs: span.first, lastTsUs: span.last, violatedBySeverity, topSuspect };
}

/** What identifies the current events: the ingested sources (id, sha256, events) and the seq range. */
export function eventsIdentity(db: IncidentDb): { sources: unknown[]; range: [number | null, number | null] } {
  const sources = db.prepare("SELECT id, sha256, events FROM sources WHERE status = 'complete' ORDER BY id").raw().all();
  const list = eventBlocks(db).list;
  return { sources, range: list.length === 0 ? [null, null] : [list[0]!.firstSeq, list[list.length - 1]!.lastSeq] };
}
