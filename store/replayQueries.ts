// Typed reads the replay and time travel make (analyzer/replay): the last
// event at or before a point, stepping within a scope, an event's scope, the
// places of witness events, config records, the first records that date a
// run, the hosts of each role, and what identifies the current events. All
// read the blocks (blocks/scan.ts) or their side tables.

import type { IncidentDb } from "./db.js";
import { KeyDim } from "./blocks/blockTables.js";
import type { EventCursor } from "./blocks/eventCursor.js";
import { eventBlocks } from "./blocks/eventBlocks.js";
import { scanEvents, type EventFilter } from "./blocks/scan.js";

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
  const wanted = [...new Set(seqs)].sort((a, b) => a - b);
  const paths = new Map((db.prepare("SELECT id, path FROM sources").raw().all() as [number, string][]).map(([id, path]) => [id, path]));
  const out = new Map<number, EventPlace>();
  const blocks = eventBlocks(db);
  for (let k = 0; k < wanted.length; ) {
    const i = blocks.indexAtOrAfter(wanted[k]!);
    if (i >= blocks.list.length) break;
    const b = blocks.list[i]!;
    const inBlock = new Set<number>();
    while (k < wanted.length && wanted[k]! <= b.lastSeq) inBlock.add(wanted[k++]!);
    scanEvents(db, { fromSeq: b.firstSeq, toSeq: b.lastSeq }, (ev) => {
      if (!inBlock.has(ev.seq)) return;
      const sourceId = ev.sourceId;
      out.set(ev.seq, {
        seq: ev.seq, tsUs: ev.tsUs, kind: ev.kind, host: ev.host, role: ev.role, tp: ev.tp, room: ev.room, sourceId, source: paths.get(sourceId) ?? "", line: ev.line,
      });
    });
  }
  return out;
}

/** Every `config` record with attrs, in seq order. */
export function configRecords(db: IncidentDb, kind: string): { seq: number; attrs: Record<string, unknown> }[] {
  const out: { seq: number; attrs: Record<string, unknown> }[] = [];
  scanEvents(db, { kinds: [kind] }, (ev) => {
    const attrs = ev.attrs;
    if (attrs !== null) out.push({ seq: ev.seq, attrs: structuredClone(attrs) });
  });
  return out;
}

/** The first record of `kind` (in seq order) whose attrs hold `key`, with its place. */
export function firstRecordWithAttr(db: IncidentDb, kind: string, key: string): { seq: number; sourceId: number; line: number } | undefined {
  let out: { seq: number; sourceId: number; line: number } | undefined;
  scanEvents(db, { kinds: [kind] }, (ev) => {
    if (ev.attr(key) === undefined) return true;
    out = { seq: ev.seq, sourceId: ev.sourceId, line: ev.line };
    return false;
  });
  return out;
}

/** Per source, its first record of `kind`, in seq order. */
export function firstRecordPerSource(db: IncidentDb, kind: string): { seq: number; sourceId: number; line: number }[] {
  const first = new Map<number, { seq: number; sourceId: number; line: number }>();
  scanEvents(db, { kinds: [kind] }, (ev) => {
    if (!first.has(ev.sourceId)) first.set(ev.sourceId, { seq: ev.seq, sourceId: ev.sourceId, line: ev.line });
  });
  return [...first.values()].sort((a, b) => a.seq - b.seq);
}

/** The first record of `kind` whose string attribute `key` contains `needle`: its seq and that attribute. */
export function firstRecordWithAttrText(db: IncidentDb, kind: string, key: string, needle: string): { seq: number; text: string } | undefined {
  let out: { seq: number; text: string } | undefined;
  scanEvents(db, { kinds: [kind] }, (ev) => {
    const v = ev.attr(key);
    if (typeof v !== "string" || !v.includes(needle)) return true;
    out = { seq: ev.seq, text: v };
    return false;
  });
  return out;
}

/** The first seq of an event of any of `kinds` in an SGLang log source for which `test` holds, null when there is none. */
export function firstLogEventWhere(db: IncidentDb, kinds: readonly string[], test: (ev: EventCursor) => boolean): number | null {
  const logSources = new Set(sglangLogSources(db));
  let found: number | null = null;
  scanEvents(db, { kinds }, (ev) => {
    if (!logSources.has(ev.sourceId) || !test(ev)) return true;
    found = ev.seq;
    return false;
  });
  return found;
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

/** What identifies the current events: the ingested sources (id, sha256, events) and the seq range. */
export function eventsIdentity(db: IncidentDb): { sources: unknown[]; range: [number | null, number | null] } {
  const sources = db.prepare("SELECT id, sha256, events FROM sources WHERE status = 'complete' ORDER BY id").raw().all();
  const list = eventBlocks(db).list;
  return { sources, range: list.length === 0 ? [null, null] : [list[0]!.firstSeq, list[list.length - 1]!.lastSeq] };
}

/** The ingested SGLang log sources, by id. */
export function sglangLogSources(db: IncidentDb): number[] {
  return db.prepare("SELECT id FROM sources WHERE status = 'complete' AND format = 'sglang-log' ORDER BY id").pluck().all() as number[];
}
