// The incident's ranks, hosts and roles as the events name them: the ranks
// and roles present, the hosts of each role, a role's rooms, whether a rank
// did anything after a point, how many records other sources wrote in a
// window. From the blocks' side tables where they suffice.

import { KeyDim } from "../blocks/blockTables.js";
import { eventBlocks } from "../blocks/eventBlocks.js";
import type { EventCursor } from "../blocks/eventCursor.js";
import type { Reading } from "../blocks/pass.js";
import { scanEvents } from "../blocks/scan.js";
import type { IncidentDb } from "../db.js";
import { streamsById } from "./sources.js";

/** How many hosts each role runs on (events that name both), from the blocks' rank keys. */
export function hostsPerRole(db: IncidentDb): Map<string, number> {
  const pairs = new Set<string>();
  for (const key of eventBlocks(db).keysWithPrefix(KeyDim.rank, "", Number.MAX_SAFE_INTEGER)) {
    const [host, role] = key.split("\u0001");
    if (host && host !== "\u0000" && role && role !== "\u0000") pairs.add(`${host}\u0001${role}`);
  }
  const out = new Map<string, number>();
  for (const p of pairs) {
    const role = p.split("\u0001")[1]!;
    out.set(role, (out.get(role) ?? 0) + 1);
  }
  return out;
}

/** Records of `kinds` strictly between two times, in sources of streams other than `exceptStream`. */
export function recordsBetweenElsewhere(db: IncidentDb, kinds: readonly string[], fromUs: number, toUs: number, exceptStream: string): number {
  const streams = streamsById(db);
  let n = 0;
  scanEvents(db, { kinds, fromUs: Math.floor(fromUs) + 1, toUs }, (ev) => {
    if (streams.get(ev.sourceId) !== exceptStream) n++;
  });
  return n;
}

/** Distinct hosts named by events, in order (from the covering rank index, as eventRoles: no block is decoded). */
export function eventHosts(db: IncidentDb): string[] {
  return [...new Set(eventRanks(db).flatMap((r) => (r.host === null ? [] : [r.host])))].sort();
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

/** How many distinct rooms have at least one event of the role: a reader of a pass over every block (blocks/pass.ts). */
export function roomCountOfRoleReading(role: string): Reading<number> {
  const rooms = new Set<string>();
  const visit = (ev: EventCursor): void => {
    const room = ev.room;
    if (room !== null && ev.role === role) rooms.add(room);
  };
  return { readers: [{ kinds: null, visit }], finish: () => rooms.size };
}

/** Whether the rank logged an event of `kinds` after `afterSeq`, at or after `atOrAfterUs`. */
export function rankActiveAfter(db: IncidentDb, rank: RankColumns, kinds: readonly string[], afterSeq: number, atOrAfterUs: number): boolean {
  let found = false;
  scanEvents(db, { rank, kinds, fromSeq: afterSeq + 1, fromUs: atOrAfterUs }, () => ((found = true), false));
  return found;
}
