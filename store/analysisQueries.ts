// Typed reads the rules and the reports need that ruleQueries.ts does not
// have: the incident's time bounds, its roles and ranks, a room's last record
// on one role, whether a rank did anything after a point, and notifications
// that followed a Success poll. Bounds, roles and ranks come from the blocks'
// side tables; the rest read only the blocks their room, rank or kinds occur
// in (blocks/scan.ts), except the room count of a role, one pass.

import type { IncidentDb } from "./db.js";
import { KeyDim } from "./blocks/blockTables.js";
import { eventBlocks } from "./blocks/eventBlocks.js";
import { scanEvents } from "./blocks/scan.js";

/** The first and last time anything was logged (MIN/MAX of the aligned times); nulls when there are no events. */
export function timeBounds(db: IncidentDb): { firstUs: number | null; lastUs: number | null } {
  const list = eventBlocks(db).list;
  if (list.length === 0) return { firstUs: null, lastUs: null };
  let firstUs = Infinity;
  let lastUs = -Infinity;
  for (const b of list) {
    if (b.minTsUs < firstUs) firstUs = b.minTsUs;
    if (b.maxTsUs > lastUs) lastUs = b.maxTsUs;
  }
  return { firstUs, lastUs };
}

/** The last event (highest seq) logged at exactly `tsUs`, undefined when none was. */
export function lastSeqAt(db: IncidentDb, tsUs: number): number | undefined {
  let found: number | undefined;
  scanEvents(db, { fromUs: tsUs, toUs: tsUs + 1 }, (ev) => ((found = ev.seq), false), { reverse: true });
  return found;
}

/** A rank as the events name it (a null matches a null). */
export interface RankColumns {
  host: string | null;
  role: string | null;
  tp: number | null;
}

/** Every (host, role, tp) with events, in (host, role, tp) order with nulls first (pp is not part of it). */
export function eventRanks(db: IncidentDb): RankColumns[] {
  const ranks = eventBlocks(db)
    .keysWithPrefix(KeyDim.rank, "", Number.MAX_SAFE_INTEGER)
    .map((key): RankColumns => {
      const [host, role, tp] = key.split("\u0001") as [string, string, string];
      return { host: host === "\u0000" ? null : host, role: role === "\u0000" ? null : role, tp: tp === "\u0000" ? null : Number(tp) };
    });
  return ranks.sort((a, b) => compareNullsFirst(a.host, b.host) || compareNullsFirst(a.role, b.role) || compareNullsFirst(a.tp, b.tp));
}

function compareNullsFirst<T extends string | number>(a: T | null, b: T | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The roles events name. */
export function eventRoles(db: IncidentDb): string[] {
  return [...new Set(eventRanks(db).flatMap((r) => (r.role === null ? [] : [r.role])))];
}

/** Distinct rooms with at least one event of the role. */
export function roomCountOfRole(db: IncidentDb, role: string): number {
  const rooms = new Set<string>();
  scanEvents(db, {}, (ev) => {
    const room = ev.room;
    if (room !== null && ev.role === role) rooms.add(room);
  });
  return rooms.size;
}

/** The seq of the last event of `room` on `role` before `beforeSeq`. */
export function lastRoomSeqOfRole(db: IncidentDb, room: string, role: string, beforeSeq: number): number | undefined {
  let found: number | undefined;
  scanEvents(db, { room, toSeq: beforeSeq - 1 }, (ev) => (ev.role === role ? ((found = ev.seq), false) : true), { reverse: true });
  return found;
}

/** Whether the rank logged an event of `kinds` after `afterSeq`, at or after `atOrAfterUs`. */
export function rankActiveAfter(db: IncidentDb, rank: RankColumns, kinds: readonly string[], afterSeq: number, atOrAfterUs: number): boolean {
  let found = false;
  scanEvents(db, { rank, kinds, fromSeq: afterSeq + 1, fromUs: atOrAfterUs }, () => ((found = true), false));
  return found;
}

/**
 * Per (room, decode host, tp): its first decode `kv.poll` in `successState`,
 * and the first `kv.notify` of that room and rank after it, when there is one;
 * by the poll's seq. One pass over the blocks that hold polls or notifies.
 */
export function notifiesAfterSuccess(db: IncidentDb, successState: number): { doneSeq: number; lateSeq: number }[] {
  const done = new Map<string, { doneSeq: number; lateSeq: number | null }>();
  scanEvents(db, { kinds: ["kv.poll", "kv.notify"] }, (ev) => {
    const room = ev.room;
    if (room === null) return;
    const key = `${room}\u0001${ev.host ?? "\u0000"}\u0001${ev.tp ?? "\u0000"}`;
    const seen = done.get(key);
    if (ev.kind === "kv.poll") {
      if (!seen && ev.role === "decode" && ev.state === successState) done.set(key, { doneSeq: ev.seq, lateSeq: null });
    } else if (seen && seen.lateSeq === null) seen.lateSeq = ev.seq;
  });
  return [...done.values()]
    .filter((d): d is { doneSeq: number; lateSeq: number } => d.lateSeq !== null)
    .sort((a, b) => a.doneSeq - b.doneSeq);
}
