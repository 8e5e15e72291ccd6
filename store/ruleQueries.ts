// Typed reads the analyzer's evidence checks and time travel need beyond
// queries.ts: where a source's periodic records pause or stop, how many
// records of those kinds other sources wrote meanwhile, the first and last
// record of a room and of the incident, transfer posts and notifications, and
// records of a kind without their texts (timeouts, batch-line gauges).
// Each reads only the blocks its kinds or room occur in (blocks/scan.ts).

import type { IncidentDb } from "./db.js";
import { eventBlocks } from "./blocks/eventBlocks.js";
import { scanEvents } from "./blocks/scan.js";

/** Two consecutive records of the kinds in one source, at least `minGapUs` apart. */
export interface SourcePause {
  sourceId: number;
  beforeSeq: number;
  beforeUs: number;
  afterSeq: number;
  afterUs: number;
}

/** Per source, every pause of at least `minGapUs` between consecutive records of `kinds`. */
export function sourcePauses(db: IncidentDb, kinds: readonly string[], minGapUs: number): SourcePause[] {
  const last = new Map<number, { seq: number; tsUs: number }>();
  const out: SourcePause[] = [];
  scanEvents(db, { kinds }, (ev) => {
    const sourceId = ev.sourceId;
    const before = last.get(sourceId);
    const tsUs = ev.tsUs;
    if (before && tsUs - before.tsUs >= minGapUs) out.push({ sourceId, beforeSeq: before.seq, beforeUs: before.tsUs, afterSeq: ev.seq, afterUs: tsUs });
    last.set(sourceId, { seq: ev.seq, tsUs });
  });
  return out.sort((a, b) => a.sourceId - b.sourceId || a.afterSeq - b.afterSeq);
}

/** Per source, its last record of `kinds`, by source id. */
export function lastRecordPerSource(db: IncidentDb, kinds: readonly string[]): { sourceId: number; seq: number; tsUs: number }[] {
  const last = new Map<number, { sourceId: number; seq: number; tsUs: number }>();
  scanEvents(db, { kinds }, (ev) => {
    last.set(ev.sourceId, { sourceId: ev.sourceId, seq: ev.seq, tsUs: ev.tsUs });
  });
  return [...last.values()].sort((a, b) => a.sourceId - b.sourceId);
}

/** Records of `kinds` strictly between two times, in sources other than `exceptSourceId`. */
export function recordsBetweenElsewhere(db: IncidentDb, kinds: readonly string[], fromUs: number, toUs: number, exceptSourceId: number): number {
  let n = 0;
  scanEvents(db, { kinds, fromUs: Math.floor(fromUs) + 1, toUs }, (ev) => {
    if (ev.sourceId !== exceptSourceId) n++;
  });
  return n;
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

/** A batch line's queue gauges: its place and the numeric values of `fields`. */
export interface GaugeLine {
  seq: number;
  tsUs: number;
  host: string | null;
  role: string | null;
  pp: number | null;
  tp: number | null;
  values: (number | null)[];
}

/** Every record of `kind`, with the values of `fields` (attribute names like "#transfer-req"), in seq order. */
export function gaugeLines(db: IncidentDb, kind: string, fields: readonly string[]): GaugeLine[] {
  const out: GaugeLine[] = [];
  scanEvents(db, { kinds: [kind] }, (ev) => {
    out.push({ seq: ev.seq, tsUs: ev.tsUs, host: ev.host, role: ev.role, pp: ev.pp, tp: ev.tp, values: fields.map((f) => gaugeValue(ev.attr(f))) });
  });
  return out;
}

/** A gauge as a number: booleans count as 1 and 0 (as SQLite's json_extract gave them), anything else is no value. */
function gaugeValue(v: unknown): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return null;
}

/** Distinct hosts named by events, in order. */
export function eventHosts(db: IncidentDb): string[] {
  const hosts = new Set<string>();
  scanEvents(db, {}, (ev) => {
    const h = ev.host;
    if (h !== null) hosts.add(h);
  });
  return [...hosts].sort();
}

/** A transfer record's place: room, chunk and TP rank (kv.post / kv.notify probe records). */
export interface TransferStamp {
  seq: number;
  tsUs: number;
  room: string;
  chunk: number | null;
  tp: number | null;
}

/** Every kv.post with a room, in seq order. */
export function transferPosts(db: IncidentDb): TransferStamp[] {
  return transferStamps(db, "kv.post");
}

/** Every kv.notify with a room, in seq order. */
export function transferNotifies(db: IncidentDb): TransferStamp[] {
  return transferStamps(db, "kv.notify");
}

function transferStamps(db: IncidentDb, kind: string): TransferStamp[] {
  const out: TransferStamp[] = [];
  scanEvents(db, { kinds: [kind] }, (ev) => {
    const room = ev.room;
    if (room === null) return;
    out.push({ seq: ev.seq, tsUs: ev.tsUs, room, chunk: ev.chunk, tp: ev.tp });
  });
  return out;
}

/** A record's place and attributes without its text: what reading many records of a kind needs. */
export interface RecordStamp {
  seq: number;
  tsUs: number;
  host: string | null;
  role: string | null;
  pp: number | null;
  tp: number | null;
  room: string | null;
  state: number | null;
  attrs: Record<string, unknown> | null;
}

/** Every record of the kinds, in seq order, without texts (the blocks the kinds occur in). */
export function recordStamps(db: IncidentDb, kinds: readonly string[]): RecordStamp[] {
  const out: RecordStamp[] = [];
  scanEvents(db, { kinds }, (ev) => {
    out.push({ seq: ev.seq, tsUs: ev.tsUs, host: ev.host, role: ev.role, pp: ev.pp, tp: ev.tp, room: ev.room, state: ev.state, attrs: ev.attrs });
  });
  return out;
}
