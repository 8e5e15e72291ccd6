// The JSON shapes the timeline API sends, shared by the server that builds
// them and the page that draws them. Types only: nothing here runs.

/** The events of a window as parallel columns (lane and kind are indexes into the lanes answer). */
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
}

export type WindowColumns = EventColumns | BucketColumns;
