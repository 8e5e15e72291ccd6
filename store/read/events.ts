// Whole events (domain/event.ts StoredEvent) read back from the blocks: one by
// seq, a time window, a room, a rank, a kind, every event in seq order, and
// the events that follow one in the same rank. Rooms stay strings.

import type { StoredEvent } from "../../domain/event.js";
import { currentEventBlocks, decodeBlockHolding, eventBlocks } from "../blocks/eventBlocks.js";
import { EventCursor } from "../blocks/eventCursor.js";
import { collectEvents, type RankKey, scanEvents } from "../blocks/scan.js";
import type { IncidentDb } from "../db.js";

export type { StoredEvent };

export type { RankKey };

export function eventBySeq(db: IncidentDb, seq: number): StoredEvent | undefined {
  if (currentEventBlocks(db) !== null) return collectEvents(db, { fromSeq: seq, toSeq: seq }, 1)[0];
  const block = decodeBlockHolding(db, seq);
  if (block === null) return undefined;
  const cursor = new EventCursor(db);
  cursor.bind(block);
  for (let i = 0; i < block.count; i++) {
    cursor.moveTo(i);
    if (cursor.seq === seq) return cursor.toStoredEvent();
  }
  return undefined;
}

/** Events with fromUs <= ts_us < toUs, in seq order. */
export function eventsInWindow(db: IncidentDb, fromUs: number, toUs: number, limit = 100_000): StoredEvent[] {
  return collectEvents(db, { fromUs, toUs }, limit);
}

export function eventsOfRoom(db: IncidentDb, room: string): StoredEvent[] {
  return collectEvents(db, { room });
}

/** The events of one rank with seq > afterSeq, in seq order (the blocks the rank occurs in). */
export function eventsOfRank(db: IncidentDb, rank: RankKey, afterSeq = 0, limit = 100_000): StoredEvent[] {
  return collectEvents(db, { rank, fromSeq: afterSeq + 1 }, limit);
}

export function eventsOfKind(db: IncidentDb, kind: string): StoredEvent[] {
  return collectEvents(db, { kinds: [kind] });
}

/** The events of one kind in seq order, handed to `visit` one at a time (none kept here). */
export function eachEventOfKind(db: IncidentDb, kind: string, visit: (ev: StoredEvent) => void): void {
  scanEvents(db, { kinds: [kind] }, (cursor) => visit(cursor.toStoredEvent()));
}

/** Every event from `fromSeq` in seq order, decoded a block at a time. */
export function* iterateEvents(db: IncidentDb, fromSeq = 0): Generator<StoredEvent> {
  const blocks = eventBlocks(db);
  for (let i = blocks.indexAtOrAfter(fromSeq); i < blocks.list.length; i++) {
    const b = blocks.list[i]!;
    yield* collectEvents(db, { fromSeq: Math.max(fromSeq, b.firstSeq), toSeq: b.lastSeq });
  }
}

/** Where to look after an event: its kinds, and optionally one host and role (and a TP, where null also matches). */
export interface FollowingQuery {
  afterSeq: number;
  kinds: readonly string[];
  host?: string | null;
  role?: string | null;
  /** Events with this TP or none (a traceback block carries no TP). */
  tpOrNone?: number | null;
}

const FOLLOWING_PAGE = 256;

/** The events after `afterSeq` of the kinds (and rank) asked, in seq order, read a page at a time. */
export function* eventsFollowing(db: IncidentDb, q: FollowingQuery): Generator<StoredEvent> {
  for (let after = q.afterSeq; ; ) {
    const page: StoredEvent[] = [];
    scanEvents(db, { kinds: q.kinds, fromSeq: after + 1 }, (ev) => {
      if (q.host !== undefined && ev.host !== q.host) return;
      if (q.role !== undefined && ev.role !== q.role) return;
      if (q.tpOrNone !== undefined && ev.tp !== q.tpOrNone && ev.tp !== null) return;
      page.push(ev.toStoredEvent());
      return page.length < FOLLOWING_PAGE;
    });
    yield* page;
    if (page.length < FOLLOWING_PAGE) return;
    after = page[page.length - 1]!.seq;
  }
}
