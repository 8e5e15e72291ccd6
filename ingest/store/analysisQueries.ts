// Typed reads the rules and the reports need that ruleQueries.ts does not
// have: the incident's time bounds, its roles and ranks, a room's last record
// on one role, whether a rank did anything after a point, and notifications
// that followed a Success poll. Index-driven where the events table has one.

import type { IncidentDb } from "./db.js";

/** The first and last time anything was logged (MIN/MAX of the aligned times); nulls when there are no events. */
export function timeBounds(db: IncidentDb): { firstUs: number | null; lastUs: number | null } {
  return db.prepare("SELECT MIN(ts_us) AS firstUs, MAX(ts_us) AS lastUs FROM events").get() as { firstUs: number | null; lastUs: number | null };
}

/** The last event (highest seq) logged at exactly `tsUs`, undefined when none was. */
export function lastSeqAt(db: IncidentDb, tsUs: number): number | undefined {
  return db.prepare("SELECT seq FROM events WHERE ts_us = ? ORDER BY seq DESC LIMIT 1").pluck().get(tsUs) as number | undefined;
}

/** The roles events name. */
export function eventRoles(db: IncidentDb): string[] {
  return db.prepare("SELECT DISTINCT role FROM events WHERE role IS NOT NULL").pluck().all() as string[];
}

/** Every (host, role, tp) with events, from the covering rank index (pp is not in it). */
export function eventRanks(db: IncidentDb): { host: string | null; role: string | null; tp: number | null }[] {
  return db.prepare("SELECT DISTINCT host, role, tp FROM events").all() as { host: string | null; role: string | null; tp: number | null }[];
}

/** Distinct rooms with at least one event of the role. */
export function roomCountOfRole(db: IncidentDb, role: string): number {
  return db.prepare("SELECT COUNT(DISTINCT room) AS n FROM events WHERE role = ? AND room IS NOT NULL").pluck().get(role) as number;
}

/** The seq of the last event of `room` on `role` before `beforeSeq`. */
export function lastRoomSeqOfRole(db: IncidentDb, room: string, role: string, beforeSeq: number): number | undefined {
  return db.prepare("SELECT seq FROM events WHERE room = ? AND seq < ? AND role = ? ORDER BY seq DESC LIMIT 1").pluck().get(room, beforeSeq, role) as number | undefined;
}

/** A rank as the events table names it (a null matches a null). */
export interface RankColumns {
  host: string | null;
  role: string | null;
  tp: number | null;
}

/** Whether the rank logged an event of `kinds` after `afterSeq`, at or after `atOrAfterUs`. */
export function rankActiveAfter(db: IncidentDb, rank: RankColumns, kinds: readonly string[], afterSeq: number, atOrAfterUs: number): boolean {
  const marks = kinds.map(() => "?").join(", ");
  const row = db
    .prepare(`SELECT 1 FROM events WHERE host IS ? AND role IS ? AND tp IS ? AND kind IN (${marks}) AND seq > ? AND ts_us >= ? LIMIT 1`)
    .get(rank.host, rank.role, rank.tp, ...kinds, afterSeq, atOrAfterUs);
  return row !== undefined;
}

/**
 * Per (room, decode host, tp): its first decode `kv.poll` in `successState`,
 * and the first `kv.notify` of that room and rank after it, when there is one.
 */
export function notifiesAfterSuccess(db: IncidentDb, successState: number): { doneSeq: number; lateSeq: number }[] {
  return db
    .prepare(
      `WITH done AS (
         SELECT room, host, tp, MIN(seq) AS seq FROM events
         WHERE kind = 'kv.poll' AND role = 'decode' AND state = ? AND room IS NOT NULL GROUP BY room, host, tp)
       SELECT done.seq AS doneSeq, MIN(n.seq) AS lateSeq FROM done
       JOIN events n ON n.room = done.room AND n.kind = 'kv.notify' AND n.seq > done.seq AND n.host IS done.host AND n.tp IS done.tp
       GROUP BY done.seq`,
    )
    .all(successState) as { doneSeq: number; lateSeq: number }[];
}
