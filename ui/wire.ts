// The JSON shapes the timeline API sends, shared by the server that builds
// them and the page that draws them: window columns, lanes, placed witnesses,
// findings and suspects.
// Types only: nothing here runs. Findings and suspects are the analyzer's
// contract types, lanes, counter tracks and placed events the timeline's
// (analyzer/timeline/), not a copy of them.

import type { Finding as ContractFinding, Suspect as ContractSuspect, WitnessLine } from "../analyzer/rules/finding.js";
import type { PlacedEvent } from "../analyzer/timeline/timelineIndex.js";

export type { Lane } from "../analyzer/timeline/lanes.js";
export type { CounterTrack } from "../analyzer/timeline/counterTracks.js";

/**
 * Spans the events of a window imply (analyzer/timeline/timelineDetails.ts), typed
 * by ui/view/spanTypes.ts. `open`: not ended within the incident.
 */
export interface SpanWire {
  start: number[];
  end: number[];
  lane: number[];
  type: number[];
  open: number[];
  seq: number[];
  label: number[];
  room: (string | null)[];
  /** Spans that overlap the window but were left out (the longest are kept). */
  left: number;
}

/** The events of a window as parallel columns (lane, kind and label are indexes into the lanes answer). */
export interface EventColumns {
  mode: "events";
  fromUs: number;
  toUs: number;
  total: number;
  seq: number[];
  ts: number[];
  lane: number[];
  kind: number[];
  tone: number[];
  /** How well each time is known (domain/event.ts TimeQuality). */
  time: number[];
  /** 0: the kind's own name; else an index into LanesAnswer.labels. */
  label: number[];
  spans: SpanWire;
}

/** Counts per (lane, bucket); `tone` is the loudest event in the cell. Sparse columns. */
export interface BucketColumns {
  mode: "buckets";
  fromUs: number;
  toUs: number;
  total: number;
  bucketUs: number;
  buckets: number;
  lane: number[];
  bucket: number[];
  count: number[];
  tone: number[];
  spans: SpanWire;
}

export type WindowColumns = EventColumns | BucketColumns;

/** One track's points in a window: time, drawn value (a gauge's value or a counter's rate) and the sample's event. */
export interface CounterPoints {
  /** Index into LanesAnswer.counterTracks. */
  track: number;
  ts: number[];
  value: number[];
  seq: number[];
}

/** GET /incidents/:id/counters: each track with points in [fromUs, toUs), at most two a pixel column. */
export interface CountersAnswer {
  fromUs: number;
  toUs: number;
  px: number;
  tracks: CounterPoints[];
}

/** The whole incident at a glance: event density per lane group, and the stretches with no event at all. */
export interface OverviewAnswer {
  fromUs: number;
  toUs: number;
  buckets: number;
  /** Lane groups ("p0/prefill") in display order. */
  groups: string[];
  /** Per group, `buckets` counts, then `buckets` loudest tones (0 routine, 1 warning, 2 failure). */
  count: number[][];
  tone: number[][];
  gaps: [number, number][];
}

/** A witness event of a finding, placed on the timeline. */
export type PlacedWitness = PlacedEvent;

/** A stored finding (DESIGN.md "Findings — the JSON contract") with its witnesses placed on the timeline. */
export interface Finding {
  id: string;
  rule: string;
  severity: string;
  verdict: string;
  title: string;
  tsUs: number | null;
  /** The finding as the analyzer wrote it (analyzer/rules/finding.ts); `textLength` is there when a witness `text` was cut (see ui/server/excerpt.ts). */
  body: Omit<ContractFinding, "witness"> & { witness: (WitnessLine & { textLength?: number })[] };
  placed: PlacedWitness[];
}

/** A ranked root-cause suspect as stored. */
export interface Suspect {
  rank: number;
  cause: string;
  confidence: number;
  body: ContractSuspect;
}
