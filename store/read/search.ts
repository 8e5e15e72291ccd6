// The searches of the UI's omnibox: rooms by prefix, rids and raw text by a
// substring, each with where it first occurs.

import { KeyDim } from "../blocks/blockTables.js";
import { eventBlocks } from "../blocks/eventBlocks.js";
import { scanEvents } from "../blocks/scan.js";
import type { IncidentDb } from "../db.js";
import { textBlocks } from "../eventText.js";
import { firstSeqOfLines } from "./seqs.js";

/** A room found by the omnibox: its first event and how many events name it. */
export interface RoomHit {
  room: string;
  firstSeq: number;
  events: number;
}

/** Rooms whose decimal string starts with `prefix` (a range of the blocks' room keys), in string order. */
export function roomsWithPrefix(db: IncidentDb, prefix: string, limit: number): RoomHit[] {
  return eventBlocks(db)
    .keysWithPrefix(KeyDim.room, prefix, limit)
    .map((room) => {
      let firstSeq = 0;
      let events = 0;
      scanEvents(db, { room }, (ev) => {
        if (events++ === 0) firstSeq = ev.seq;
      });
      return { room, firstSeq, events };
    });
}

/** Request ids holding `needle`, each with its first event (one pass in seq order, stopped once enough are found). */
export function ridsContaining(db: IncidentDb, needle: string, limit: number): { rid: string; firstSeq: number }[] {
  const out = new Map<string, number>();
  scanEvents(db, {}, (ev) => {
    const rid = ev.rid;
    if (rid !== null && rid.includes(needle) && !out.has(rid)) out.set(rid, ev.seq);
    return out.size < limit;
  });
  return [...out].map(([rid, firstSeq]) => ({ rid, firstSeq }));
}

/** A record whose text holds a needle: where it is and the text around the first match. */
export interface TextHit {
  seq: number;
  sourceId: number;
  line: number;
  excerpt: string;
}

const EXCERPT_AROUND = 60;

/**
 * Records whose raw text holds `needle` (exact bytes), read from the text
 * blocks source by source in line order, up to `limit`; `complete` says
 * whether every block was read.
 */
export function textContaining(db: IncidentDb, needle: string, limit: number): { hits: TextHit[]; complete: boolean } {
  const want = Buffer.from(needle);
  const found: Omit<TextHit, "seq">[] = [];
  let complete = true;
  for (const { sourceId, lines, ends, text } of textBlocks(db)) {
    for (let from = text.indexOf(want); from >= 0; ) {
      const entry = entryAt(ends, from);
      const start = entry === 0 ? 0 : ends.readUInt32LE((entry - 1) * 4);
      const end = ends.readUInt32LE(entry * 4);
      const lo = Math.max(start, from - EXCERPT_AROUND);
      const hi = Math.min(end, from + want.length + EXCERPT_AROUND);
      found.push({ sourceId, line: lines.readUInt32LE(entry * 4), excerpt: text.toString("utf8", lo, hi) });
      from = text.indexOf(want, end);
      if (found.length >= limit) break;
    }
    if (found.length >= limit) {
      complete = false;
      break;
    }
  }
  const seqs = firstSeqOfLines(db, found);
  const hits = found.flatMap((f) => {
    const seq = seqs.get(`${f.sourceId}:${f.line}`);
    return seq === undefined ? [] : [{ ...f, seq }];
  });
  return { hits: hits.sort((a, b) => a.seq - b.seq), complete };
}

/** The entry of a text block whose text spans byte `at`: the first whose end is past it. */
function entryAt(ends: Buffer, at: number): number {
  let lo = 0;
  let hi = ends.length / 4 - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends.readUInt32LE(mid * 4) > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
