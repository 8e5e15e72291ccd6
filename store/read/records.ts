// A few fields of many records of some kinds, without their text: the
// timeline's columns and detail rows, config records, batch-line gauges,
// transfer posts and notifications, the first record of a kind that dates a
// run, the notifications after a Success poll. Each reads only the blocks its
// kinds occur in (blocks/scan.ts).

import { eventBlocks } from "../blocks/eventBlocks.js";
import type { BlockReader, Reading } from "../blocks/pass.js";
import { scanEvents } from "../blocks/scan.js";
import type { EventCursor } from "../blocks/eventCursor.js";
import type { IncidentDb } from "../db.js";
import { sglangLogSources } from "./sources.js";
import { RoomEnds } from "./roomEnds.js";

/** The columns the timeline index keeps of every event. */
export interface TimelineRow {
  readonly seq: number;
  readonly tsUs: number;
  readonly host: string | null;
  readonly role: string | null;
  readonly dp: number | null;
  readonly pp: number | null;
  readonly tp: number | null;
  readonly kind: string;
  readonly state: number | null;
  /** The record has no time of its own (interpolated at ingest, or timeless). */
  readonly tsInferred: boolean;
  /** Nothing in the record's file is dated. */
  readonly timeless: boolean;
}

/**
 * How many events, the greatest seq, and a pass over every event's timeline
 * columns in seq order: the row handed to `visit` is a cursor, read it there
 * (no object per event; an incident holds millions).
 */
export function timelineRows(db: IncidentDb): { count: number; maxSeq: number; each(visit: (row: TimelineRow) => void): void } {
  const blocks = eventBlocks(db);
  const list = blocks.list;
  const maxSeq = list.length === 0 ? 0 : list[list.length - 1]!.lastSeq;
  return { count: blocks.events, maxSeq, each: (visit) => scanEvents(db, {}, (ev) => void visit(ev)) };
}

/** What the timeline draws names and spans from, for the events of some kinds only. */
export type DetailRow = [seq: number, kind: string, room: string | null, chunk: number | null, state: number | null, attrs: Record<string, unknown> | null, layer: number | null];

/**
 * seq, kind, room, chunk and state of each event of `kinds`, in seq order,
 * handed to `visit` one at a time (an incident holds millions; the caller
 * keeps what it needs), with its attrs (a fresh object per event) for the
 * kinds of `withAttrs` only, else null.
 */
export function eachDetailRow(db: IncidentDb, kinds: readonly string[], withAttrs: ReadonlySet<string>, visit: (...row: DetailRow) => void): void {
  if (kinds.length === 0) return;
  scanEvents(db, { kinds }, (ev) => {
    const kind = ev.kind;
    visit(ev.seq, kind, ev.room, ev.chunk, ev.state, withAttrs.has(kind) ? ev.attrs : null, ev.layer);
  });
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

/** The first event of `kind` (whose attribute `key` is one of `values`, when given), with its attributes. */
export function firstRecordOf(
  db: IncidentDb,
  kind: string,
  where?: { key: string; values: readonly unknown[] },
): { seq: number; attrs: Record<string, unknown> | null } | undefined {
  let out: { seq: number; attrs: Record<string, unknown> | null } | undefined;
  scanEvents(db, { kinds: [kind] }, (ev) => {
    if (where && !where.values.includes(ev.attr(where.key))) return true;
    out = { seq: ev.seq, attrs: ev.attrs };
    return false;
  });
  return out;
}

/** Where and when a record happened: its seq, time and rank. */
export interface RecordPlace {
  seq: number;
  tsUs: number;
  host: string | null;
  role: string | null;
  pp: number | null;
  tp: number | null;
}

/** A batch line's queue gauges: its place, kind and the numeric values of its kind's fields. */
export interface GaugeLine extends RecordPlace {
  kind: string;
  values: (number | null)[];
}

/**
 * Every record of the kinds `fields` names (with seqs in `range`, when given),
 * in seq order, one pass over their blocks, with the values of its kind's
 * fields (attribute names like "#transfer-req").
 */
export function gaugeLines(db: IncidentDb, fields: Readonly<Record<string, readonly string[]>>, range: { fromSeq?: number; toSeq?: number } = {}): GaugeLine[] {
  const out: GaugeLine[] = [];
  scanEvents(db, { kinds: Object.keys(fields), ...range }, (ev) => {
    const kind = ev.kind;
    out.push({ seq: ev.seq, tsUs: ev.tsUs, host: ev.host, role: ev.role, pp: ev.pp, tp: ev.tp, kind, values: fields[kind]!.map((f) => gaugeValue(ev.attr(f))) });
  });
  return out;
}

/** A gauge as a number: booleans count as 1 and 0 (as SQLite's json_extract gave them), anything else is no value. */
function gaugeValue(v: unknown): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return null;
}

/** A transfer record's place: room, chunk and TP rank (kv.post / kv.notify probe records). */
export interface TransferStamp {
  seq: number;
  tsUs: number;
  room: string;
  chunk: number | null;
  tp: number | null;
  post: boolean;
}

/**
 * Every kv.post and kv.notify with a room, in seq order, one at a time
 * through one reused object: copy what you keep. Its fields are read from
 * the block's columns, so none of them is built for a record that is skipped.
 */
export function transferStampReader(visit: (stamp: TransferStamp) => void): BlockReader {
  const stamp: TransferStamp = { seq: 0, tsUs: 0, room: "", chunk: null, tp: null, post: false };
  return {
    kinds: ["kv.post", "kv.notify"],
    visit(ev) {
      const room = ev.room;
      if (room === null) return;
      stamp.seq = ev.seq;
      stamp.tsUs = ev.tsUs;
      stamp.room = room;
      stamp.chunk = ev.chunk;
      stamp.tp = ev.tp;
      stamp.post = ev.kind === "kv.post";
      visit(stamp);
    },
  };
}

/** A record's place and attributes without its text: what reading many records of a kind needs. */
export interface RecordStamp extends RecordPlace {
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

/**
 * Per (room, decode host, tp): its first decode `kv.poll` in `successState`,
 * and the first `kv.notify` of that room and rank after it, when there is one;
 * by the poll's seq. One reader of a pass over the blocks that hold polls or notifies; a
 * room's ranks are dropped once the pass is past the room (roomEnds.ts).
 */
export function notifiesAfterSuccessReading(db: IncidentDb, successState: number): Reading<{ doneSeq: number; lateSeq: number }[]> {
  // Per room and rank the poll's seq while its notification is awaited, then AFTER once one came.
  const done = new Map<string, Map<string, number>>();
  const ends = new RoomEnds(db);
  const passed = (room: string): void => void done.delete(room);
  const out: { doneSeq: number; lateSeq: number }[] = [];
  const visit = (ev: EventCursor): void => {
    ends.passTo(ev.seq, passed);
    const room = ev.room;
    if (room === null) return;
    const rank = `${ev.host ?? "\u0000"}\u0001${ev.tp ?? "\u0000"}`;
    let ranks = done.get(room);
    const seen = ranks?.get(rank);
    if (ev.kind === "kv.poll") {
      if (seen !== undefined || ev.role !== "decode" || ev.state !== successState) return;
      if (!ranks) {
        done.set(room, (ranks = new Map()));
        ends.track(room);
      }
      ranks.set(rank, ev.seq);
    } else if (seen !== undefined && seen !== AFTER) {
      out.push({ doneSeq: seen, lateSeq: ev.seq });
      ranks!.set(rank, AFTER);
    }
  };
  return { readers: [{ kinds: ["kv.poll", "kv.notify"], visit }], finish: () => out.sort((a, b) => a.doneSeq - b.doneSeq) };
}

/** A key of notifiesAfterSuccess whose notification after Success came. */
const AFTER = -1;

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

/** What a counter track needs of a Prometheus sample (domain/telemetryKinds.ts metric.sample). */
export interface SampleRow {
  readonly seq: number;
  attr(key: "value" | "metric" | "series" | "metricType"): unknown;
}

/**
 * Every sample of `kind` in seq order, its attributes read one by one: no
 * attrs object is built per sample (a day of a deployment's series is half a
 * million of them). The row is a cursor: read it in `visit`.
 */
export function eachSample(db: IncidentDb, kind: string, visit: (row: SampleRow) => void): void {
  scanEvents(db, { kinds: [kind] }, (ev) => void visit(ev));
}
