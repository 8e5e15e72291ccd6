// The timeline index kept in the incident file, through the store's timeline
// columns (store/read/derived.ts, store/writeDerived.ts): built once from the
// events by the derive step after ingest (analyzer/derive.ts), then read back
// without a scan of the events.

import { eventsFingerprint } from "../replay/fingerprint.js";
import type { LandingColumns } from "../model/transferPairing.js";
import type { IncidentDb } from "../../store/db.js";
import { readTimelineColumns, readTimelineHeader } from "../../store/read/derived.js";
import { writeTimelineColumns } from "../../store/writeDerived.js";
import { ABSENT, buildTimelineIndex, type TimelineIndex } from "./timelineIndex.js";

/** Bump when the columns or the header below change: a timeline stored by other code is built again. */
const LAYOUT = 7;

interface Header {
  layout: typeof LAYOUT;
  lanes: TimelineIndex["lanes"];
  kinds: string[];
  labels: string[];
  spanRooms: string[];
  counterTracks: TimelineIndex["counters"]["tracks"];
  gaps: [number, number][];
  shortSpanUs: number;
  unknownTsUs: number | null;
  maxSeq: number;
}

type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array;
type ColumnType = new (buffer: ArrayBuffer) => Column;

/** Each stored column: how it is read back, and where it sits in the index. */
const COLUMNS: Record<string, [ColumnType, (idx: TimelineIndex) => Column]> = {
  ts: [Float64Array, (i) => i.ts],
  seq: [Uint32Array, (i) => i.seq],
  lane: [Uint16Array, (i) => i.lane],
  kind: [Uint16Array, (i) => i.kind],
  tone: [Uint8Array, (i) => i.tone],
  timeQuality: [Uint8Array, (i) => i.timeQuality],
  label: [Uint16Array, (i) => i.label],
  "span.start": [Float64Array, (i) => i.spans.start],
  "span.end": [Float64Array, (i) => i.spans.end],
  "span.lane": [Uint16Array, (i) => i.spans.lane],
  "span.type": [Uint8Array, (i) => i.spans.type],
  "span.open": [Uint8Array, (i) => i.spans.open],
  "span.seq": [Uint32Array, (i) => i.spans.seq],
  "span.label": [Uint16Array, (i) => i.spans.label],
  "span.room": [Uint32Array, (i) => i.spans.room],
  "counter.ts": [Float64Array, (i) => i.counters.ts],
  "counter.value": [Float64Array, (i) => i.counters.value],
  "counter.seq": [Uint32Array, (i) => i.counters.seq],
  "landing.post": [Uint32Array, (i) => i.landings.post],
  "landing.seq": [Uint32Array, (i) => i.landings.landing],
  "landing.done": [Uint8Array, (i) => i.landings.byDone],
};

/** True when the incident holds an index of this layout for its current events. */
export function timelineIsCurrent(db: IncidentDb): boolean {
  return (readTimelineHeader(db, eventsFingerprint(db)) as Header | undefined)?.layout === LAYOUT;
}

/**
 * Builds the index from the events and the model's landings (a replay of
 * the events when none are given), and stores it in the incident (a
 * read-write connection); returns it and the bytes stored.
 */
export function storeTimelineIndex(db: IncidentDb, landings?: LandingColumns): { index: TimelineIndex; bytes: number } {
  const index = buildTimelineIndex(db, landings);
  return { index, bytes: writeTimelineIndex(db, index) };
}

/** Stores an index built for the incident's current events; returns the bytes stored. */
export function writeTimelineIndex(db: IncidentDb, index: TimelineIndex): number {
  const header: Header = {
    layout: LAYOUT,
    lanes: index.lanes,
    kinds: index.kinds,
    labels: index.labels,
    spanRooms: index.spanRooms,
    counterTracks: index.counters.tracks,
    gaps: index.gaps,
    shortSpanUs: index.shortSpanUs,
    unknownTsUs: index.unknownTsUs,
    maxSeq: index.posOfSeq.length - 1,
  };
  const columns = Object.fromEntries(Object.entries(COLUMNS).map(([name, [, of]]) => [name, of(index)]));
  return writeTimelineColumns(db, eventsFingerprint(db), header, columns);
}

/** The index the incident holds for its current events, or one built in memory (not stored) when it holds none for them. */
export function timelineIndexOf(db: IncidentDb): TimelineIndex {
  return storedTimelineIndex(db) ?? buildTimelineIndex(db);
}

/** The index the incident holds for its current events, or undefined when none was built for them. */
export function storedTimelineIndex(db: IncidentDb): TimelineIndex | undefined {
  const stored = readTimelineColumns(db, eventsFingerprint(db));
  const header = stored?.header as Header | undefined;
  if (!stored || header?.layout !== LAYOUT) return undefined;
  const col = <T extends Column>(name: string): T => {
    const bytes = stored.columns.get(name);
    if (!bytes) throw new Error(`the stored timeline has no column '${name}'`);
    return new COLUMNS[name]![0](bytes) as T;
  };
  const ts = col<Float64Array>("ts");
  const seq = col<Uint32Array>("seq");
  const posOfSeq = new Uint32Array(header.maxSeq + 1).fill(ABSENT);
  for (let i = 0; i < seq.length; i++) posOfSeq[seq[i]!] = i;
  const n = ts.length;
  return {
    lanes: header.lanes,
    kinds: header.kinds,
    labels: header.labels,
    spanRooms: header.spanRooms,
    gaps: header.gaps,
    shortSpanUs: header.shortSpanUs,
    unknownTsUs: header.unknownTsUs,
    ts,
    seq,
    lane: col("lane"),
    kind: col("kind"),
    tone: col("tone"),
    timeQuality: col("timeQuality"),
    label: col("label"),
    spans: {
      start: col("span.start"),
      end: col("span.end"),
      lane: col("span.lane"),
      type: col("span.type"),
      open: col("span.open"),
      seq: col("span.seq"),
      label: col("span.label"),
      room: col("span.room"),
    },
    counters: { tracks: header.counterTracks, ts: col("counter.ts"), value: col("counter.value"), seq: col("counter.seq") },
    landings: { post: col("landing.post"), landing: col("landing.seq"), byDone: col("landing.done") },
    posOfSeq,
    firstTsUs: n ? ts[0]! : null,
    lastTsUs: n ? ts[n - 1]! : null,
  };
}
