// Finding events in the blocks: the side tables narrow a filter to the few
// blocks that can hold a match (seq and time ranges, the blocks a kind, rank,
// source or room occurs in), and each of those is decoded and its rows tested.

import type { IncidentDb } from "../db.js";
import { KeyDim, rankKey } from "./blockTables.js";
import { EventCursor } from "./eventCursor.js";
import { eventBlocks, type EventBlocks } from "./eventBlocks.js";

/** A rank as events name it; null matches events without that field. */
export interface RankKey {
  host: string | null;
  role: string | null;
  tp: number | null;
}

/** Every field optional; given ones must all hold. */
export interface EventFilter {
  /** fromSeq <= seq <= toSeq. */
  fromSeq?: number;
  toSeq?: number;
  /** fromUs <= ts_us < toUs. */
  fromUs?: number;
  toUs?: number;
  kinds?: readonly string[];
  room?: string;
  rank?: RankKey;
  sourceId?: number;
}

export interface ScanOptions {
  /** Latest first. */
  reverse?: boolean;
  /** Blocks other than the connection's live ones (a writer's own). */
  blocks?: EventBlocks;
}

/**
 * Calls `visit` for every event that matches, in seq order (or reversed);
 * stops when it returns false. The cursor is shared: copy what you keep.
 */
export function scanEvents(db: IncidentDb, filter: EventFilter, visit: (ev: EventCursor) => boolean | void, opts: ScanOptions = {}): void {
  const blocks = opts.blocks ?? eventBlocks(db);
  const candidates = candidateBlocks(blocks, filter);
  if (opts.reverse) candidates.reverse();
  const cursor = new EventCursor(db);
  const kinds = filter.kinds ? new Set(filter.kinds) : null;
  const fromSeq = filter.fromSeq ?? -Infinity;
  const toSeq = filter.toSeq ?? Infinity;
  const fromUs = filter.fromUs ?? -Infinity;
  const toUs = filter.toUs ?? Infinity;
  const bySeq = filter.fromSeq !== undefined || filter.toSeq !== undefined;
  const byTime = filter.fromUs !== undefined || filter.toUs !== undefined;
  for (const index of candidates) {
    const block = blocks.decode(index);
    cursor.bind(block);
    const n = block.count;
    // Kinds are tested on the block's dictionary ids: one lookup per distinct kind, not per row.
    const kindIds = block.ids.kind;
    const wanted = kinds && block.dicts.kind.map((k) => kinds.has(k));
    for (let k = 0; k < n; k++) {
      const row = opts.reverse ? n - 1 - k : k;
      if (wanted && !wanted[kindIds.at(row)]) continue;
      cursor.moveTo(row);
      if (bySeq) {
        const seq = cursor.seq;
        if (seq < fromSeq || seq > toSeq) continue;
      }
      if (byTime) {
        const ts = cursor.tsUs;
        if (ts < fromUs || ts >= toUs) continue;
      }
      if (filter.room !== undefined && cursor.room !== filter.room) continue;
      if (filter.sourceId !== undefined && cursor.sourceId !== filter.sourceId) continue;
      const r = filter.rank;
      if (r && (cursor.host !== r.host || cursor.role !== r.role || cursor.tp !== r.tp)) continue;
      if (visit(cursor) === false) return;
    }
  }
}

/** The events that match, as plain objects with their texts, in seq order (at most `limit`). */
export function collectEvents(db: IncidentDb, filter: EventFilter, limit = Infinity): ReturnType<EventCursor["toStoredEvent"]>[] {
  const out: ReturnType<EventCursor["toStoredEvent"]>[] = [];
  if (limit <= 0) return out;
  scanEvents(db, filter, (ev) => {
    out.push(ev.toStoredEvent());
    return out.length < limit;
  });
  return out;
}

/** Indexes (ascending) of the blocks that may hold a match. */
function candidateBlocks(blocks: EventBlocks, f: EventFilter): number[] {
  const list = blocks.list;
  let from = f.fromSeq === undefined ? 0 : blocks.indexAtOrAfter(f.fromSeq);
  let to = list.length;
  if (f.toSeq !== undefined) to = Math.min(to, blocks.indexAtOrAfter(f.toSeq) + 1);
  let keyed: Set<number> | null = null;
  const narrow = (indexes: number[]): void => {
    const next = new Set(indexes);
    keyed = keyed === null ? next : new Set([...keyed].filter((i) => next.has(i)));
  };
  if (f.kinds) narrow(f.kinds.flatMap((k) => blocks.indexesWith(KeyDim.kind, k)));
  if (f.room !== undefined) narrow(blocks.indexesWith(KeyDim.room, f.room));
  if (f.rank) narrow(blocks.indexesWith(KeyDim.rank, rankKey(f.rank.host, f.rank.role, f.rank.tp)));
  if (f.sourceId !== undefined) narrow(blocks.indexesWith(KeyDim.source, String(f.sourceId)));
  const fromUs = f.fromUs ?? -Infinity;
  const toUs = f.toUs ?? Infinity;
  const inTime = (i: number): boolean => list[i]!.maxTsUs >= fromUs && list[i]!.minTsUs < toUs;
  if (keyed !== null) return [...(keyed as Set<number>)].filter((i) => i >= from && i < to && inTime(i)).sort((a, b) => a - b);
  const out: number[] = [];
  for (; from < to; from++) if (inTime(from)) out.push(from);
  return out;
}
