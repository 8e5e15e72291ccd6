// An in-memory column index of an incident's events, sorted by time, so that a
// window query over millions of events is a binary search and one pass over
// typed arrays instead of a SQL scan. Only what the timeline draws is kept
// (time, seq, lane, kind, tone, a short name), with the spans the events
// imply and the empty stretches of time; everything else is fetched per event.
// It is kept in the incident file (timelineStore.ts).

import type { IncidentDb } from "../../store/db.js";
import { TimeQuality } from "../../domain/event.js";
import { timelineRows } from "../../store/read/records.js";
import type { Component } from "../../domain/vocabulary.js";
import { laneOfKind, toneOfKind } from "../../domain/kinds.js";
import { groupLabel, laneKey, rankLabel, sortLanes, type Lane } from "./lanes.js";
import { draftDetails, emptyGaps, finishDetails, type DetailsDraft, type Placement, type SpanColumns } from "./timelineDetails.js";
import { buildCounterTracks, type CounterColumns } from "./counterTracks.js";
import { replayIncident } from "../replay/replay.js";
import type { LandingColumns } from "../model/transferPairing.js";

/** posOfSeq's value for a seq with no event. */
export const ABSENT = 0xffffffff;

export interface TimelineIndex {
  lanes: Lane[];
  kinds: string[];
  /** Event columns, sorted by (ts, seq). */
  ts: Float64Array;
  seq: Uint32Array;
  lane: Uint16Array;
  kind: Uint16Array;
  tone: Uint8Array;
  /** How well each event's time is known (domain/event.ts TimeQuality). */
  timeQuality: Uint8Array;
  /** Label id of each event (0: its kind's own name), into `labels`. */
  label: Uint16Array;
  labels: string[];
  spans: SpanColumns;
  /** The Prometheus samples as one track per series and lane. */
  counters: CounterColumns;
  /** The model's landings (analyzer/model/transferPairing.ts): post seq, the seq that landed it, 1 where a kv.done did. */
  landings: LandingColumns;
  /** The rooms spans belong to (SpanColumns.room); [0] is none. */
  spanRooms: string[];
  /** Longest spans first cut: spans at most this long are found by start alone (window queries). */
  shortSpanUs: number;
  /** Stretches with no event, [from, to] in time order (see GAP_*). */
  gaps: [number, number][];
  /** Position in the columns of each seq; 0xffffffff where a seq is absent. */
  posOfSeq: Uint32Array;
  firstTsUs: number | null;
  lastTsUs: number | null;
  /**
   * Where the records whose time is unknown are drawn, apart before every
   * dated one (UNKNOWN_LEAD ahead of the first); null when there are none,
   * or when nothing is dated (then their order is all there is).
   */
  unknownTsUs: number | null;
}

/** An empty stretch worth folding is at least 1 s and 1% of the incident; the 32 longest are kept. */
const GAP_MIN_US = 1e6;
const GAP_MIN_SHARE = 0.01;
const GAP_MAX = 32;

/** The columns read straight from the events, before spans, labels and counters are built on them. */
type ScannedEvents = Pick<TimelineIndex, "lanes" | "kinds" | "ts" | "seq" | "lane" | "kind" | "tone" | "timeQuality" | "posOfSeq" | "unknownTsUs">;

/** How far before the first dated record the undated ones are drawn: 2 % of the dated span, at least a second. */
const UNKNOWN_LEAD_SHARE = 0.02;
const UNKNOWN_LEAD_MIN_US = 1e6;

/**
 * Moves the records whose time is unknown (TimeQuality.unknown) to one place
 * before every dated record, so that the timeline draws them apart instead of
 * at their place in the order (a thread's death from a `--previous` capture
 * shown minutes late). Returns that place, or null when nothing moved.
 */
function setApart(ts: Float64Array, time: Uint8Array): number | null {
  let first = Infinity;
  let last = -Infinity;
  let unknown = 0;
  for (let i = 0; i < ts.length; i++) {
    if (time[i] === TimeQuality.unknown) unknown++;
    else {
      first = Math.min(first, ts[i]!);
      last = Math.max(last, ts[i]!);
    }
  }
  if (unknown === 0 || first === Infinity) return null;
  const at = first - Math.max(UNKNOWN_LEAD_MIN_US, (last - first) * UNKNOWN_LEAD_SHARE);
  for (let i = 0; i < ts.length; i++) if (time[i] === TimeQuality.unknown) ts[i] = at;
  return at;
}

export type { LandingColumns };

/** Builds the index from the events and the model's landings (a replay of the events when none are given). */
export function buildTimelineIndex(db: IncidentDb, landed: LandingColumns = replayIncident(db).landings): TimelineIndex {
  return finishTimelineIndex(draftTimelineIndex(db), landed);
}

/**
 * The index before the model's landings are known: everything but the
 * transfers' spans. It needs the events alone, so it can be read while the
 * model replays them (timelineBeside.ts).
 */
export interface TimelineDraft {
  events: ScannedEvents;
  placement: Placement;
  details: DetailsDraft;
  counters: CounterColumns;
}

export function draftTimelineIndex(db: IncidentDb): TimelineDraft {
  const events = scanEvents(db);
  const n = events.ts.length;
  const placement: Placement = {
    posOf: (s: number) => (s < events.posOfSeq.length && events.posOfSeq[s] !== ABSENT ? events.posOfSeq[s] : undefined),
    ts: events.ts,
    lane: events.lane,
    lastTsUs: n ? events.ts[n - 1]! : 0,
  };
  return { events, placement, details: draftDetails(db, placement), counters: buildCounterTracks(db, placement) };
}

export function finishTimelineIndex(draft: TimelineDraft, landed: LandingColumns): TimelineIndex {
  const ev = draft.events;
  const n = ev.ts.length;
  const firstTsUs = n ? ev.ts[0]! : null;
  const lastTsUs = n ? ev.ts[n - 1]! : null;
  const details = finishDetails(draft.details, draft.placement, landed);
  const spanUs = n ? lastTsUs! - firstTsUs! : 0;
  return {
    ...ev,
    label: details.labelOf,
    labels: details.labels,
    spans: details.spans,
    counters: draft.counters,
    landings: landed,
    spanRooms: details.rooms,
    shortSpanUs: Math.max(1e6, spanUs / 100),
    gaps: emptyGaps(ev.ts, Math.max(GAP_MIN_US, spanUs * GAP_MIN_SHARE), GAP_MAX),
    firstTsUs,
    lastTsUs,
  };
}

function scanEvents(db: IncidentDb): ScannedEvents {
  const { count: n, maxSeq, each } = timelineRows(db);
  // Read in table order, then sort by time if seq order is not already time order.
  const rawTs = new Float64Array(n);
  const rawSeq = new Uint32Array(n);
  const rawLane = new Uint32Array(n);
  const rawKind = new Uint16Array(n);
  const rawTone = new Uint8Array(n);
  const rawTime = new Uint8Array(n);

  const kindIds = new Map<string, number>();
  const kindTones: number[] = [];
  const laneIds = new Map<string, number>();
  const laneParts: Omit<Lane, "id">[] = [];

  const kindComponents: Component[] = [];
  // Runs of rows share a lane: the previous row's lane is tried before its key is built.
  let last = { host: null as string | null, role: null as string | null, tp: null as number | null, component: "" as Component | "", lid: -1 };

  let i = 0;
  let sorted = true;
  each(({ seq: s, tsUs: t, host, role, dp, pp, tp, kind: k, state, tsInferred, timeless }) => {
    let kid = kindIds.get(k);
    if (kid === undefined) {
      kid = kindIds.size;
      kindIds.set(k, kid);
      kindTones.push(toneOfKind(k, null));
      kindComponents.push(laneOfKind(k));
    }
    const component = kindComponents[kid]!;
    let lid = last.lid;
    if (lid < 0 || host !== last.host || role !== last.role || tp !== last.tp || component !== last.component) {
      const key = laneKey({ host, role, dp, pp, tp, component });
      const known = laneIds.get(key);
      if (known === undefined) {
        lid = laneParts.length;
        laneIds.set(key, lid);
        laneParts.push({ host, role, dp, pp, tp, component, group: groupLabel(host, role), rank: rankLabel(dp, pp, tp), events: 0 });
      } else lid = known;
      last = { host, role, tp, component, lid };
    }
    laneParts[lid]!.events++;
    if (i > 0 && t < rawTs[i - 1]!) sorted = false;
    rawTs[i] = t;
    rawSeq[i] = s;
    rawLane[i] = lid;
    rawKind[i] = kid;
    rawTone[i] = state === 0 ? 2 : kindTones[kid]!;
    rawTime[i] = timeless ? TimeQuality.unknown : tsInferred ? TimeQuality.inferred : TimeQuality.known;
    i++;
  });

  // One label per rank: a log line may omit the DP tag that the probe record of the same rank gives.
  const labelOfRank = new Map<string, string>();
  for (const p of laneParts) {
    const rank = `${p.host}\u0000${p.role}\u0000${p.tp}`;
    if ((labelOfRank.get(rank) ?? "").length < p.rank.length) labelOfRank.set(rank, p.rank);
  }
  for (const p of laneParts) p.rank = labelOfRank.get(`${p.host}\u0000${p.role}\u0000${p.tp}`)!;

  // Lanes were numbered in order of appearance; renumber them in display order.
  const lanes = sortLanes(laneParts);
  const renumber = new Uint16Array(laneParts.length);
  const displayId = new Map(lanes.map((l) => [laneKey(l), l.id]));
  laneParts.forEach((p, oldId) => {
    renumber[oldId] = displayId.get(laneKey(p))!;
  });

  const unknownTsUs = setApart(rawTs, rawTime);
  if (unknownTsUs !== null) sorted = false;
  const order = new Uint32Array(n);
  for (let j = 0; j < n; j++) order[j] = j;
  if (!sorted) order.sort((a, b) => rawTs[a]! - rawTs[b]! || rawSeq[a]! - rawSeq[b]!);

  const ts = new Float64Array(n);
  const seq = new Uint32Array(n);
  const lane = new Uint16Array(n);
  const kind = new Uint16Array(n);
  const tone = new Uint8Array(n);
  const timeQuality = new Uint8Array(n);
  const posOfSeq = new Uint32Array(maxSeq + 1).fill(ABSENT);
  for (let j = 0; j < n; j++) {
    const from = order[j]!;
    ts[j] = rawTs[from]!;
    seq[j] = rawSeq[from]!;
    lane[j] = renumber[rawLane[from]!]!;
    kind[j] = rawKind[from]!;
    tone[j] = rawTone[from]!;
    timeQuality[j] = rawTime[from]!;
    posOfSeq[seq[j]!] = j;
  }
  return { lanes, kinds: [...kindIds.keys()], ts, seq, lane, kind, tone, timeQuality, posOfSeq, unknownTsUs };
}

export function positionOfSeq(idx: TimelineIndex, seq: number): number | undefined {
  const p = seq >= 0 && seq < idx.posOfSeq.length ? idx.posOfSeq[seq]! : ABSENT;
  return p === ABSENT ? undefined : p;
}

/** An event placed on the timeline: its time and lane. */
export interface PlacedEvent {
  seq: number;
  tsUs: number;
  lane: number;
}

/** The events of `seqs` that the index holds, placed, in the order given. */
export function placeEvents(idx: TimelineIndex, seqs: readonly number[]): PlacedEvent[] {
  const placed: PlacedEvent[] = [];
  for (const seq of seqs) {
    const pos = positionOfSeq(idx, seq);
    if (pos !== undefined) placed.push({ seq, tsUs: idx.ts[pos]!, lane: idx.lane[pos]! });
  }
  return placed;
}
