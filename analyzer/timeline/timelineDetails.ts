// What the timeline draws besides marks, derived once when the index is
// built: a short name per event where its kind alone says too little (the
// branch a scheduler iteration took, the collective op, the frame a bootstrap
// thread took, the chunk a post carried), and spans where the events imply a
// duration:
//   transfer  a chunk's RDMA write, from its post (kv.post) to the event the
//             reference model landed it by (the decode kv.notify naming that
//             chunk on the rank it wrote to, or the sender's kv.done;
//             analyzer/model/transferPairing.ts); never landed: open to the end;
//   room      a decode room's pages, from kv.alloc to kv.free;
//   collective  a rank inside a collective, from coll.enter to the coll.exit
//             of the same group and sequence number on its lane; never
//             exited: open to the end;
//   wait      a timeout's wait, back from its line by the time it names
//             (`timed out after 300.0s in KVPoll.WaitingForInput`, a probe
//             kv.timeout's after_s): the state the line implies held that long;
//   hicacheWait  a reader waiting on a HiCache layer still loading, from its
//             hicache.wait to that slot's layer completing on its rank;
//   stage     a trace span, start to end (stageSlices.ts).

import type { IncidentDb } from "../../store/db.js";
import { eachDetailRow } from "../../store/read/records.js";
import { KVPOLL_NAMES } from "../../domain/vocabulary.js";
import type { LandingColumns } from "./timelineIndex.js";
import { SpanTypes } from "./spanTypes.js";
import { stageSlices } from "./stageSlices.js";

/** Spans sorted by start; `open` spans did not end within the incident (their end is its last event). */
export interface SpanColumns {
  start: Float64Array;
  end: Float64Array;
  lane: Uint16Array;
  /** spanTypes.ts */
  type: Uint8Array;
  open: Uint8Array;
  /** The event that defines the span: the landing, the free, the exit, the timeout, the trace span (the start when it is open). */
  seq: Uint32Array;
  label: Uint16Array;
  /** Index into `rooms` of the room the span belongs to; 0 for none. */
  room: Uint32Array;
}

export interface TimelineDetails {
  /** Label id per position in the index (0: the kind's own name); ids index `labels`. */
  labelOf: Uint16Array;
  labels: string[];
  spans: SpanColumns;
  /** The rooms spans name; [0] is "" (no room). */
  rooms: string[];
}

/** Where an event sits in the index, by seq. */
export interface Placement {
  posOf(seq: number): number | undefined;
  ts: Float64Array;
  lane: Uint16Array;
  lastTsUs: number;
}


const DETAIL_KINDS = [
  "sched.iter", "coll.enter", "coll.exit", "boot.msg", "kv.poll", "kv.post", "kv.notify", "kv.done", "kv.alloc", "kv.free",
  "kv.timeout", "pd.transfer_failed", "pd.timeout_warning", "xfer.timeout", "log.exception", "proc.crash", "hicache.load", "hicache.wait", "hicache.layer",
] as const;

/** Kinds whose name or span comes from their attributes. */
const NEEDS_ATTRS: ReadonlySet<string> = new Set([
  "sched.iter", "coll.enter", "coll.exit", "boot.msg", "kv.timeout", "pd.transfer_failed", "pd.timeout_warning", "xfer.timeout", "log.exception", "proc.crash", "hicache.load", "hicache.wait", "hicache.layer",
]);

const str = (v: unknown) => (typeof v === "string" && v.length > 0 && v.length <= 40 ? v : undefined);

function labelFor(kind: string, chunk: number | null, state: number | null, attrs: Record<string, unknown> | null): string | undefined {
  switch (kind) {
    case "sched.iter":
      return str(attrs?.["branch"]);
    case "coll.enter":
    case "coll.exit":
      return str(attrs?.["op"]);
    case "boot.msg":
      return str(attrs?.["kind"]);
    case "kv.poll":
      return state === null ? undefined : KVPOLL_NAMES[state];
    case "kv.post":
      return chunk === null ? undefined : `post c${chunk}`;
    case "kv.notify":
      return chunk === null ? undefined : `c${chunk}`;
    case "kv.done":
      return chunk === null ? undefined : `done c${chunk}`;
    case "pd.transfer_failed":
      return str(attrs?.["reasonKind"]) && `failed: ${attrs!["reasonKind"] as string}`;
    case "log.exception":
      return str(attrs?.["excType"]);
    case "proc.crash":
      return str(attrs?.["failureClass"]) ?? "crash";
    default:
      return undefined;
  }
}

/** The seconds of waiting a timeout line names, with the state it waited in. */
function waitOf(attrs: Record<string, unknown> | null, state: number | null): { seconds: number; in: string | undefined } | undefined {
  const s = attrs?.["timeoutS"] ?? attrs?.["after_s"];
  if (typeof s !== "number" || !(s > 0)) return undefined;
  return { seconds: s, in: str(attrs?.["timeoutState"]) ?? (state !== null ? KVPOLL_NAMES[state] : undefined) };
}

export class LabelTable {
  readonly labels: string[] = [""];
  private readonly ids = new Map<string, number>();

  id(label: string | undefined): number {
    if (label === undefined) return 0;
    let id = this.ids.get(label);
    if (id === undefined) {
      if (this.labels.length >= 0xffff) return 0;
      id = this.labels.length;
      this.labels.push(label);
      this.ids.set(label, id);
    }
    return id;
  }
}

export interface Span {
  start: number;
  end: number;
  lane: number;
  type: number;
  open: boolean;
  seq: number;
  label: number;
  room: string | null;
}

/** The first landing of each post, by the post's seq (landings come in seq order). */
function firstLandings(landed: LandingColumns): Map<number, number> {
  const first = new Map<number, number>();
  for (let i = 0; i < landed.post.length; i++) if (!first.has(landed.post[i]!)) first.set(landed.post[i]!, landed.landing[i]!);
  return first;
}

/** A start waiting for its end (kv.alloc for its kv.free, coll.enter for its coll.exit), by key. */
interface Opened {
  seq: number;
  pos: number;
  room: string | null;
  type: number;
  /** The span's label when it ends, and when it is still open at the end of the incident. */
  ended: string;
  unended: string;
}

/** The slot and layer a HiCache wait or layer completion names. */
function hicacheLayerOf(attrs: Record<string, unknown> | null, layer: number | null): { key: string; name: string } | undefined {
  const slot = attrs?.["slot"];
  if (layer === null) return undefined;
  return { key: `${typeof slot === "number" ? slot : "?"}/${layer}`, name: `layer ${layer}${typeof slot === "number" ? ` of slot ${slot}` : ""}` };
}

/** The group, op and sequence number of a collective's enter or exit. */
function collectiveOf(attrs: Record<string, unknown> | null): { key: string; name: string } | undefined {
  const group = attrs?.["group"];
  const seq = attrs?.["seq"];
  if (typeof group !== "string" || typeof seq !== "number") return undefined;
  return { key: `${group}#${seq}`, name: `${str(attrs?.["op"]) ?? "collective"} #${seq}` };
}

/** A post waiting for the model's landings: its span is drawn to the landing, or open to the end. */
export interface Post {
  seq: number;
  pos: number;
  chunk: number;
  room: string;
}

/** The details before the model's landings are known: everything but the transfers' spans. */
export interface DetailsDraft {
  labelOf: Uint16Array;
  table: LabelTable;
  spans: Span[];
  posts: Post[];
}

/** Reads the events' names and every span but the transfers', which wait for the model's landings (finishDetails). */
export function draftDetails(db: IncidentDb, at: Placement): DetailsDraft {
  const labelOf = new Uint16Array(at.ts.length);
  const table = new LabelTable();
  const spans: Span[] = [];
  const posts: Post[] = [];
  const opened = new Map<string, Opened>();
  const close = (key: string, seq: number, ts: number, lane: number) => {
    const start = opened.get(key);
    if (!start) return;
    opened.delete(key);
    spans.push({ start: at.ts[start.pos]!, end: ts, lane, type: start.type, open: false, seq, label: table.id(start.ended), room: start.room });
  };
  // In seq order: the pairing below needs each start before its end.
  /** The HiCache layers loaded since their slot's load began, per lane: a wait on one of them is over at once. */
  const loaded = new Set<string>();
  eachDetailRow(db, DETAIL_KINDS, NEEDS_ATTRS, (seq, kind, room, chunk, state, attrs, layerColumn) => {
    const pos = at.posOf(seq);
    if (pos === undefined) return;
    labelOf[pos] = table.id(labelFor(kind, chunk, state, attrs));
    const ts = at.ts[pos]!;
    const lane = at.lane[pos]!;
    if (kind === "kv.post" && room !== null && chunk !== null) posts.push({ seq, pos, chunk, room });
    else if (kind === "kv.alloc" && room !== null) {
      opened.set(`room ${room}:${lane}`, { seq, pos, room, type: SpanTypes.room, ended: "pages held", unended: "pages never freed" });
    } else if (kind === "kv.free" && room !== null) close(`room ${room}:${lane}`, seq, ts, lane);
    else if (kind === "coll.enter") {
      const coll = collectiveOf(attrs);
      if (coll) opened.set(`coll ${coll.key}:${lane}`, { seq, pos, room, type: SpanTypes.collective, ended: coll.name, unended: `${coll.name} never exited` });
    } else if (kind === "coll.exit") {
      const coll = collectiveOf(attrs);
      if (coll) close(`coll ${coll.key}:${lane}`, seq, ts, lane);
    } else if (kind === "hicache.load") {
      const slot = `${String(attrs?.["slot"] ?? "?")}/`;
      for (const key of loaded) if (key.startsWith(slot) && key.endsWith(`:${lane}`)) loaded.delete(key);
    } else if (kind === "hicache.wait") {
      // A reader waits on a HiCache layer until that layer's load completes (docs/hicache-indexk.md §1.1).
      const layer = hicacheLayerOf(attrs, layerColumn);
      if (layer && !loaded.has(`${layer.key}:${lane}`)) {
        opened.set(`hicache ${layer.key}:${lane}`, { seq, pos, room, type: SpanTypes.hicacheWait, ended: `waiting on ${layer.name}`, unended: `${layer.name} never loaded` });
      }
    } else if (kind === "hicache.layer") {
      const layer = hicacheLayerOf(attrs, layerColumn);
      if (layer) {
        loaded.add(`${layer.key}:${lane}`);
        close(`hicache ${layer.key}:${lane}`, seq, ts, lane);
      }
    }
    const wait = waitOf(attrs, state);
    if (wait) {
      const label = `waited ${wait.seconds}s${wait.in ? ` in ${wait.in}` : ""}`;
      spans.push({ start: ts - wait.seconds * 1e6, end: ts, lane, type: SpanTypes.wait, open: false, seq, label: table.id(label), room });
    }
  });
  for (const start of opened.values()) {
    const label = table.id(start.unended);
    spans.push({ start: at.ts[start.pos]!, end: at.lastTsUs, lane: at.lane[start.pos]!, type: start.type, open: true, seq: start.seq, label, room: start.room });
  }
  for (const slice of stageSlices(db, at)) spans.push({ ...slice, open: false, label: table.id(slice.label) });
  return { labelOf, table, spans, posts };
}

/** Adds the transfers' spans from the model's landings to the draft, and turns it into columns. */
export function finishDetails(draft: DetailsDraft, at: Placement, landed: LandingColumns): TimelineDetails {
  const { table, spans } = draft;
  const landingOf = firstLandings(landed);
  for (const post of draft.posts) {
    const landing = landingOf.get(post.seq);
    const landingPos = landing === undefined ? undefined : at.posOf(landing);
    const ts = at.ts[post.pos]!;
    const lane = at.lane[post.pos]!;
    // A landing logged earlier than its post on another host's clock is drawn with no length.
    if (landingPos !== undefined) spans.push({ start: ts, end: Math.max(ts, at.ts[landingPos]!), lane, type: SpanTypes.transfer, open: false, seq: landing!, label: table.id(`c${post.chunk} in flight`), room: post.room });
    else spans.push({ start: ts, end: at.lastTsUs, lane, type: SpanTypes.transfer, open: true, seq: post.seq, label: table.id(`c${post.chunk} never landed`), room: post.room });
  }
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  const rooms = [""];
  const roomIds = new Map<string, number>();
  const roomId = (room: string | null) => {
    if (room === null) return 0;
    let id = roomIds.get(room);
    if (id === undefined) roomIds.set(room, (id = rooms.push(room) - 1));
    return id;
  };
  return { labelOf: draft.labelOf, labels: table.labels, spans: toColumns(spans, roomId), rooms };
}

function toColumns(spans: Span[], roomId: (room: string | null) => number): SpanColumns {
  const n = spans.length;
  const cols: SpanColumns = {
    start: new Float64Array(n),
    end: new Float64Array(n),
    lane: new Uint16Array(n),
    type: new Uint8Array(n),
    open: new Uint8Array(n),
    seq: new Uint32Array(n),
    label: new Uint16Array(n),
    room: new Uint32Array(n),
  };
  spans.forEach((s, i) => {
    cols.room[i] = roomId(s.room);
    cols.start[i] = s.start;
    cols.end[i] = s.end;
    cols.lane[i] = s.lane;
    cols.type[i] = s.type;
    cols.open[i] = s.open ? 1 : 0;
    cols.seq[i] = s.seq;
    cols.label[i] = s.label;
  });
  return cols;
}

/** Time gaps with no event at all, longest first: at least `minUs` long, at most `max` of them, then in time order. */
export function emptyGaps(ts: Float64Array, minUs: number, max: number): [number, number][] {
  const gaps: [number, number][] = [];
  for (let i = 1; i < ts.length; i++) if (ts[i]! - ts[i - 1]! >= minUs) gaps.push([ts[i - 1]!, ts[i]!]);
  return gaps
    .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))
    .slice(0, max)
    .sort((a, b) => a[0] - b[0]);
}
