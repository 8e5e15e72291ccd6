// Typed reads the web UI's server makes (ui/server): the timeline index scan,
// the findings and suspects as stored, the events that follow one in the same
// rank, a source's name, the incident's summary figures, and the searches of
// the omnibox. Rows come back as plain camelCase objects; rooms stay strings.

import type { IncidentDb } from "./db.js";
import { rankKey } from "./blocks/blockTables.js";
import { eventBlocks, KeyDim } from "./blocks/eventBlocks.js";
import { scanEvents } from "./blocks/scan.js";
import { textBlocks } from "./eventText.js";
import type { StoredEvent } from "./queries.js";

/** The columns the timeline index keeps of every event, as read raw (arrays are cheaper than objects). */
export type TimelineRow = [
  seq: number, tsUs: number, host: string | null, role: string | null, dp: number | null, pp: number | null, tp: number | null,
  kind: string, state: number | null,
];

/** Every event's timeline columns, in seq order, decoded a block at a time. */
export function timelineRows(db: IncidentDb): { count: number; maxSeq: number; rows: Iterable<TimelineRow> } {
  const blocks = eventBlocks(db);
  const list = blocks.list;
  const maxSeq = list.length === 0 ? 0 : list[list.length - 1]!.lastSeq;
  return { count: blocks.events, maxSeq, rows: timelineRowsOf(db) };
}

function* timelineRowsOf(db: IncidentDb): Generator<TimelineRow> {
  const blocks = eventBlocks(db);
  for (let i = 0; i < blocks.list.length; i++) {
    const rows: TimelineRow[] = [];
    const b = blocks.list[i]!;
    scanEvents(db, { fromSeq: b.firstSeq, toSeq: b.lastSeq }, (ev) => {
      rows.push([ev.seq, ev.tsUs, ev.host, ev.role, ev.dp, ev.pp, ev.tp, ev.kind, ev.state]);
    });
    yield* rows;
  }
}

/** What the timeline draws names and spans from, for the events of some kinds only. */
export type DetailRow = [seq: number, kind: string, room: string | null, chunk: number | null, state: number | null, attrs: Record<string, unknown> | null];

/**
 * seq, kind, room, chunk and state of the events of `kinds`, in seq order,
 * with their attrs (a fresh object per event) for the kinds of `withAttrs`
 * only, else null.
 */
export function detailRows(db: IncidentDb, kinds: readonly string[], withAttrs: ReadonlySet<string>): Iterable<DetailRow> {
  const rows: DetailRow[] = [];
  if (kinds.length === 0) return rows;
  scanEvents(db, { kinds }, (ev) => {
    const kind = ev.kind;
    rows.push([ev.seq, kind, ev.room, ev.chunk, ev.state, withAttrs.has(kind) ? ev.attrs : null]);
  });
  return rows;
}

/** The path and format of a source, by id. */
export function sourceName(db: IncidentDb, sourceId: number): { path: string; format: string } | undefined {
  return db.prepare("SELECT path, format FROM sources WHERE id = ?").get(sourceId) as { path: string; format: string } | undefined;
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
  const ranks = new Map<string, SummaryFigures["ranks"][number]>();
  scanEvents(db, {}, (ev) => {
    const tp = ev.tp;
    if (tp === null) return;
    const key = rankKey(ev.host, ev.role, tp);
    if (!ranks.has(key)) ranks.set(key, { host: ev.host, role: ev.role, tp });
  });
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
  return { ranks: [...ranks.values()], firstTsUs: span.first, lastTsUs: span.last, violatedBySeverity, topSuspect };
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
