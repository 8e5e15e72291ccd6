// An in-memory column index of an incident's events, sorted by time, so that a
// window query over a million events is a binary search and one pass over
// typed arrays instead of a SQL scan. Only what the timeline draws is kept
// (time, seq, lane, kind, tone); everything else is fetched per event.

import { renameSync, writeFileSync } from "node:fs";
import { eventsFingerprint } from "../../analyzer/replay/fingerprint.js";
import type { IncidentDb } from "../../ingest/store/db.js";
import { timelineRows } from "../../ingest/store/viewQueries.js";
import type { Lane } from "../wire.js";
import { componentOfKind, groupLabel, laneKey, rankLabel, sortLanes, toneOfKind } from "./lanes.js";
import type { BucketColumns, WindowColumns } from "../wire.js";

export interface TimelineIndex {
  lanes: Lane[];
  kinds: string[];
  /** Event columns, sorted by (ts, seq). */
  ts: Float64Array;
  seq: Uint32Array;
  lane: Uint16Array;
  kind: Uint16Array;
  tone: Uint8Array;
  /** Position in the columns of each seq; 0xffffffff where a seq is absent. */
  posOfSeq: Uint32Array;
  firstTsUs: number | null;
  lastTsUs: number | null;
}

const ABSENT = 0xffffffff;

export function buildTimelineIndex(db: IncidentDb): TimelineIndex {
  const { count: n, maxSeq, rows } = timelineRows(db);
  // Read in table order, then sort by time if seq order is not already time order.
  const rawTs = new Float64Array(n);
  const rawSeq = new Uint32Array(n);
  const rawLane = new Uint32Array(n);
  const rawKind = new Uint16Array(n);
  const rawTone = new Uint8Array(n);

  const kindIds = new Map<string, number>();
  const kindTones: number[] = [];
  const laneIds = new Map<string, number>();
  const laneParts: Omit<Lane, "id">[] = [];

  let i = 0;
  let sorted = true;
  for (const row of rows) {
    const [s, t, host, role, dp, pp, tp, k, state] = row;
    let kid = kindIds.get(k);
    if (kid === undefined) {
      kid = kindIds.size;
      kindIds.set(k, kid);
      kindTones.push(toneOfKind(k, null));
    }
    const component = componentOfKind(k);
    const key = laneKey({ host, role, dp, pp, tp, component });
    let lid = laneIds.get(key);
    if (lid === undefined) {
      lid = laneParts.length;
      laneIds.set(key, lid);
      laneParts.push({ host, role, dp, pp, tp, component, group: groupLabel(host, role), rank: rankLabel(dp, pp, tp), events: 0 });
    }
    laneParts[lid]!.events++;
    if (i > 0 && t < rawTs[i - 1]!) sorted = false;
    rawTs[i] = t;
    rawSeq[i] = s;
    rawLane[i] = lid;
    rawKind[i] = kid;
    rawTone[i] = state === 0 ? 2 : kindTones[kid]!;
    i++;
  }

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

  const order = new Uint32Array(n);
  for (let j = 0; j < n; j++) order[j] = j;
  if (!sorted) order.sort((a, b) => rawTs[a]! - rawTs[b]! || rawSeq[a]! - rawSeq[b]!);

  const ts = new Float64Array(n);
  const seq = new Uint32Array(n);
  const lane = new Uint16Array(n);
  const kind = new Uint16Array(n);
  const tone = new Uint8Array(n);
  const posOfSeq = new Uint32Array(maxSeq + 1).fill(ABSENT);
  for (let j = 0; j < n; j++) {
    const from = order[j]!;
    ts[j] = rawTs[from]!;
    seq[j] = rawSeq[from]!;
    lane[j] = renumber[rawLane[from]!]!;
    kind[j] = rawKind[from]!;
    tone[j] = rawTone[from]!;
    posOfSeq[seq[j]!] = j;
  }

  return { lanes, kinds: [...kindIds.keys()], ts, seq, lane, kind, tone, posOfSeq, firstTsUs: n ? ts[0]! : null, lastTsUs: n ? ts[n - 1]! : null };
}

export function positionOfSeq(idx: TimelineIndex, seq: number): number | undefined {
  const p = seq >= 0 && seq < idx.posOfSeq.length ? idx.posOfSeq[seq]! : ABSENT;
  return p === ABSENT ? undefined : p;
}

/** First position whose time is >= tsUs. */
export function lowerBound(ts: Float64Array, tsUs: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < tsUs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}


/**
 * The events of [fromUs, toUs) when there are at most maxEvents of them;
 * otherwise the window cut into `buckets` equal slices per lane.
 */
export function queryWindow(idx: TimelineIndex, fromUs: number, toUs: number, buckets: number, maxEvents: number): WindowColumns {
  const i0 = lowerBound(idx.ts, fromUs);
  const i1 = lowerBound(idx.ts, toUs);
  const total = i1 - i0;
  if (total <= maxEvents) {
    return {
      mode: "events",
      fromUs,
      toUs,
      total,
      seq: Array.from(idx.seq.subarray(i0, i1)),
      ts: Array.from(idx.ts.subarray(i0, i1)),
      lane: Array.from(idx.lane.subarray(i0, i1)),
      kind: Array.from(idx.kind.subarray(i0, i1)),
      tone: Array.from(idx.tone.subarray(i0, i1)),
    };
  }
  const bucketUs = (toUs - fromUs) / buckets;
  const laneCount = idx.lanes.length;
  const counts = new Uint32Array(laneCount * buckets);
  const tones = new Uint8Array(laneCount * buckets);
  for (let i = i0; i < i1; i++) {
    const b = Math.min(buckets - 1, Math.floor((idx.ts[i]! - fromUs) / bucketUs));
    const cell = idx.lane[i]! * buckets + b;
    counts[cell]!++;
    if (idx.tone[i]! > tones[cell]!) tones[cell] = idx.tone[i]!;
  }
  const out: BucketColumns = { mode: "buckets", fromUs, toUs, total, bucketUs, buckets, lane: [], bucket: [], count: [], tone: [] };
  for (let cell = 0; cell < counts.length; cell++) {
    const c = counts[cell]!;
    if (c === 0) continue;
    out.lane.push(Math.floor(cell / buckets));
    out.bucket.push(cell % buckets);
    out.count.push(c);
    out.tone.push(tones[cell]!);
  }
  return out;
}

/** Builds the index and writes it to `path` (atomically), keyed by the events' fingerprint. */
export function writeTimelineIndex(db: IncidentDb, path: string): void {
  const buf = serializeIndex(buildTimelineIndex(db), { events: eventsFingerprint(db) });
  writeFileSync(`${path}.tmp`, buf);
  renameSync(`${path}.tmp`, path);
}

/** What a cached index was built from (the replay's eventsFingerprint); a cache whose events changed is rebuilt. */
export interface IndexFingerprint {
  events: string;
}

interface IndexHeader {
  version: typeof INDEX_VERSION;
  fingerprint: IndexFingerprint;
  lanes: Lane[];
  kinds: string[];
  n: number;
  maxSeq: number;
}

const INDEX_VERSION = 3;

/** The index as one buffer: a JSON header, then the columns, each 8-byte aligned. */
export function serializeIndex(idx: TimelineIndex, fingerprint: IndexFingerprint): Buffer {
  const n = idx.ts.length;
  const header: IndexHeader = { version: INDEX_VERSION, fingerprint, lanes: idx.lanes, kinds: idx.kinds, n, maxSeq: idx.posOfSeq.length - 1 };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const columns = [idx.ts, idx.seq, idx.lane, idx.kind, idx.tone];
  const offsets: number[] = [];
  let size = align8(4 + headerBytes.length);
  for (const c of columns) {
    offsets.push(size);
    size = align8(size + c.byteLength);
  }
  const out = Buffer.alloc(size);
  out.writeUInt32LE(headerBytes.length, 0);
  headerBytes.copy(out, 4);
  columns.forEach((c, i) => Buffer.from(c.buffer, c.byteOffset, c.byteLength).copy(out, offsets[i]));
  return out;
}

/** The index in a buffer from serializeIndex, or undefined when it is stale or not an index. */
export function deserializeIndex(buf: Buffer, fingerprint: IndexFingerprint): TimelineIndex | undefined {
  if (buf.length < 4) return undefined;
  const headerLen = buf.readUInt32LE(0);
  let header: IndexHeader;
  try {
    header = JSON.parse(buf.subarray(4, 4 + headerLen).toString("utf8")) as IndexHeader;
  } catch {
    return undefined;
  }
  if (header.version !== INDEX_VERSION || header.fingerprint.events !== fingerprint.events) return undefined;
  const { n } = header;
  // Copy into a fresh, aligned ArrayBuffer: a Buffer's own offset need not be aligned.
  const body = new Uint8Array(buf.length);
  body.set(buf);
  let at = align8(4 + headerLen);
  const take = <T>(make: (b: ArrayBuffer, off: number, len: number) => T, bytesPer: number): T => {
    const col = make(body.buffer, at, n);
    at = align8(at + n * bytesPer);
    return col;
  };
  const ts = take((b, o, l) => new Float64Array(b, o, l), 8);
  const seq = take((b, o, l) => new Uint32Array(b, o, l), 4);
  const lane = take((b, o, l) => new Uint16Array(b, o, l), 2);
  const kind = take((b, o, l) => new Uint16Array(b, o, l), 2);
  const tone = take((b, o, l) => new Uint8Array(b, o, l), 1);
  const posOfSeq = new Uint32Array(header.maxSeq + 1).fill(ABSENT);
  for (let i = 0; i < n; i++) posOfSeq[seq[i]!] = i;
  return {
    lanes: header.lanes,
    kinds: header.kinds,
    ts,
    seq,
    lane,
    kind,
    tone,
    posOfSeq,
    firstTsUs: n ? ts[0]! : null,
    lastTsUs: n ? ts[n - 1]! : null,
  };
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
