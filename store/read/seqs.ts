// Where events are: seqs and times, not events. The last event at or before a
// seq or a time, a step within a scope, an event's scope and place, the first
// and last record of a room, a source or the incident, the landing of a
// write. Each reads the blocks' side tables or only the blocks that can hold
// the answer (blocks/scan.ts).

import { eventBlocks } from "../blocks/eventBlocks.js";
import { EventCursor } from "../blocks/eventCursor.js";
import type { Reading } from "../blocks/pass.js";
import { type EventFilter, scanEvents } from "../blocks/scan.js";
import type { IncidentDb } from "../db.js";
import { streamsById } from "./sources.js";

/** "source:line" → the first seq of the records on those lines (the blocks of each source, read until all are found). */
export function firstSeqOfLines(db: IncidentDb, at: { sourceId: number; line: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  const bySource = new Map<number, Set<number>>();
  for (const a of at) {
    let lines = bySource.get(a.sourceId);
    if (!lines) bySource.set(a.sourceId, (lines = new Set()));
    lines.add(a.line);
  }
  for (const [sourceId, lines] of bySource) {
    let left = lines.size;
    scanEvents(db, { sourceId }, (ev) => {
      const key = `${sourceId}:${ev.line}`;
      if (lines.has(ev.line) && !out.has(key)) {
        out.set(key, ev.seq);
        left--;
      }
      return left > 0;
    });
  }
  return out;
}

/** The latest seq at or before `seq`, null before the first event. */
export function lastSeqAtOrBefore(db: IncidentDb, seq: number): number | null {
  let found: number | null = null;
  scanEvents(db, { toSeq: seq }, (ev) => ((found = ev.seq), false), { reverse: true });
  return found;
}

/**
 * The event with the latest time at or before `tsUs` (the highest seq among
 * equal times), null when none is that early. Blocks that end before the best
 * time found so far cannot hold a later one and are not decoded.
 */
export function lastSeqAtOrBeforeTime(db: IncidentDb, tsUs: number): number | null {
  const blocks = eventBlocks(db);
  const best = { ts: -Infinity, seq: null as number | null };
  for (let i = blocks.list.length - 1; i >= 0; i--) {
    const b = blocks.list[i]!;
    if (b.minTsUs > tsUs || b.maxTsUs < best.ts) continue;
    scanEvents(db, { fromSeq: b.firstSeq, toSeq: b.lastSeq, toUs: tsUs + 1 }, (ev) => {
      const ts = ev.tsUs;
      if (ts > best.ts || (ts === best.ts && ev.seq > best.seq!)) {
        best.ts = ts;
        best.seq = ev.seq;
      }
    });
  }
  return best.seq;
}

/** The first event after `fromSeq` (or last before it) that matches the filter and `test`, null when there is none. */
export function stepFrom(db: IncidentDb, fromSeq: number, direction: "next" | "prev", filter: EventFilter, test?: (ev: EventCursor) => boolean): number | null {
  let found: number | null = null;
  const range = direction === "next" ? { fromSeq: fromSeq + 1 } : { toSeq: fromSeq - 1 };
  scanEvents(
    db,
    { ...filter, ...range },
    (ev) => {
      if (test && !test(ev)) return true;
      found = ev.seq;
      return false;
    },
    { reverse: direction === "prev" },
  );
  return found;
}

/** Where an event belongs: its rank, room, layer, pages and buffer. */
export interface EventScope {
  host: string | null;
  role: string | null;
  tp: number | null;
  room: string | null;
  layer: number | null;
  pageLo: number | null;
  pageHi: number | null;
  /** attrs.buffer, undefined when the event names none. */
  buffer: unknown;
}

export function eventScope(db: IncidentDb, seq: number): EventScope | undefined {
  let out: EventScope | undefined;
  scanEvents(db, { fromSeq: seq, toSeq: seq }, (ev) => {
    out = { host: ev.host, role: ev.role, tp: ev.tp, room: ev.room, layer: ev.layer, pageLo: ev.pageLo, pageHi: ev.pageHi, buffer: ev.attr("buffer") };
    return false;
  });
  return out;
}

/** An event's place as reports cite it: what it is, its rank, and its source file and line. */
export interface EventPlace {
  seq: number;
  tsUs: number;
  kind: string;
  host: string | null;
  role: string | null;
  tp: number | null;
  room: string | null;
  sourceId: number;
  /** The source's path. */
  source: string;
  line: number;
}

/** The places of many seqs, keyed by seq; seqs that name no event are absent. */
export function eventPlaces(db: IncidentDb, seqs: Iterable<number>): Map<number, EventPlace> {
  const paths = new Map((db.prepare("SELECT id, path FROM sources").raw().all() as [number, string][]).map(([id, path]) => [id, path]));
  const out = new Map<number, EventPlace>();
  visitSeqs(db, seqs, (ev) => {
    const sourceId = ev.sourceId;
    out.set(ev.seq, {
      seq: ev.seq, tsUs: ev.tsUs, kind: ev.kind, host: ev.host, role: ev.role, tp: ev.tp, room: ev.room, sourceId, source: paths.get(sourceId) ?? "", line: ev.line,
    });
  });
  return out;
}

/** The event of each of `seqs` that names one, in seq order, through the cursor (copy what you keep); only the blocks holding them are decoded. */
export function visitSeqs(db: IncidentDb, seqs: Iterable<number>, visit: (ev: EventCursor) => void): void {
  const wanted = [...new Set(seqs)].sort((a, b) => a - b);
  const blocks = eventBlocks(db);
  for (let k = 0; k < wanted.length; ) {
    const i = blocks.indexAtOrAfter(wanted[k]!);
    if (i >= blocks.list.length) break;
    const b = blocks.list[i]!;
    const inBlock = new Set<number>();
    while (k < wanted.length && wanted[k]! <= b.lastSeq) inBlock.add(wanted[k++]!);
    scanEvents(db, { fromSeq: b.firstSeq, toSeq: b.lastSeq }, (ev) => {
      if (inBlock.has(ev.seq)) visit(ev);
    });
  }
}

/** The first seq of an event of any of `kinds`, null when there is none. */
export function firstSeqOfKinds(db: IncidentDb, kinds: readonly string[]): number | null {
  let found: number | null = null;
  scanEvents(db, { kinds }, (ev) => ((found = ev.seq), false));
  return found;
}

/** The first kv.done of a room's chunk strictly between two seqs. */
export function landingBetween(db: IncidentDb, room: string, chunk: number | null, afterSeq: number, beforeSeq: number): number | null {
  let found: number | null = null;
  scanEvents(db, { kinds: ["kv.done"], room, fromSeq: afterSeq + 1, toSeq: beforeSeq - 1 }, (ev) => {
    if (ev.chunk !== chunk) return true;
    found = ev.seq;
    return false;
  });
  return found;
}

/** Per stream (a rotated log's parts are one), its last record of `kinds`, with the source that holds it. */
export function lastRecordPerStreamReading(db: IncidentDb, kinds: readonly string[]): Reading<{ stream: string; sourceId: number; seq: number; tsUs: number }[]> {
  const streams = streamsById(db);
  const last = new Map<string, { stream: string; sourceId: number; seq: number; tsUs: number }>();
  const visit = (ev: EventCursor): void => {
    const stream = streams.get(ev.sourceId) ?? String(ev.sourceId);
    last.set(stream, { stream, sourceId: ev.sourceId, seq: ev.seq, tsUs: ev.tsUs });
  };
  return { readers: [{ kinds, visit }], finish: () => [...last.values()].sort((a, b) => a.sourceId - b.sourceId) };
}

/** The first record of a room (its seq and time), or undefined when no event names it. */
export function roomFirstRecord(db: IncidentDb, room: string): { seq: number; tsUs: number } | undefined {
  return firstOf(db, room, false);
}

/** The last record of a room, or undefined when no event names it. */
export function roomLastRecord(db: IncidentDb, room: string): { seq: number; tsUs: number } | undefined {
  return firstOf(db, room, true);
}

function firstOf(db: IncidentDb, room: string, reverse: boolean): { seq: number; tsUs: number } | undefined {
  let found: { seq: number; tsUs: number } | undefined;
  scanEvents(db, { room }, (ev) => ((found = { seq: ev.seq, tsUs: ev.tsUs }), false), { reverse });
  return found;
}

/** The first and last event of the incident (seq and time), undefined when it has none. */
export function incidentSpan(db: IncidentDb): { firstSeq: number; firstUs: number; lastSeq: number; lastUs: number } | undefined {
  const list = eventBlocks(db).list;
  if (list.length === 0) return undefined;
  const first = eventTimeIn(db, list[0]!.firstSeq)!;
  const lastSeq = list[list.length - 1]!.lastSeq;
  return { firstSeq: list[0]!.firstSeq, firstUs: first, lastSeq, lastUs: eventTimeIn(db, lastSeq)! };
}

/** The time of the event `seq`, undefined when there is none. */
export function eventTime(db: IncidentDb, seq: number): number | undefined {
  return eventTimeIn(db, seq);
}

function eventTimeIn(db: IncidentDb, seq: number): number | undefined {
  let ts: number | undefined;
  scanEvents(db, { fromSeq: seq, toSeq: seq }, (ev) => ((ts = ev.tsUs), false));
  return ts;
}

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

/** The seq of the last event of `room` on `role` before `beforeSeq`. */
export function lastRoomSeqOfRole(db: IncidentDb, room: string, role: string, beforeSeq: number): number | undefined {
  let found: number | undefined;
  scanEvents(db, { room, toSeq: beforeSeq - 1 }, (ev) => (ev.role === role ? ((found = ev.seq), false) : true), { reverse: true });
  return found;
}
