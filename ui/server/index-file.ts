// The timeline index as one file beside the incident database: a JSON header
// (what it was built from, lanes, kinds, labels, gaps), then the columns, each
// 8-byte aligned, read back without parsing. A file built from other events,
// or by another version of this code, is not used.

import type { TimelineIndex } from "./timeline-index.js";

/** posOfSeq's value for a seq with no event. */
export const ABSENT = 0xffffffff;

/** What a cached index was built from (the replay's eventsFingerprint); a cache whose events changed is rebuilt. */
export interface IndexFingerprint {
  events: string;
}

const INDEX_VERSION = 4;

interface IndexHeader {
  version: typeof INDEX_VERSION;
  fingerprint: IndexFingerprint;
  lanes: TimelineIndex["lanes"];
  kinds: string[];
  labels: string[];
  spanRooms: string[];
  gaps: [number, number][];
  shortSpanUs: number;
  n: number;
  spans: number;
  maxSeq: number;
}

type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array;

function columnsOf(idx: TimelineIndex): Column[] {
  const s = idx.spans;
  return [idx.ts, idx.seq, idx.lane, idx.kind, idx.tone, idx.label, s.start, s.end, s.lane, s.type, s.open, s.seq, s.label, s.room];
}

export function serializeIndex(idx: TimelineIndex, fingerprint: IndexFingerprint): Buffer {
  const header: IndexHeader = {
    version: INDEX_VERSION,
    fingerprint,
    lanes: idx.lanes,
    kinds: idx.kinds,
    labels: idx.labels,
    spanRooms: idx.spanRooms,
    gaps: idx.gaps,
    shortSpanUs: idx.shortSpanUs,
    n: idx.ts.length,
    spans: idx.spans.start.length,
    maxSeq: idx.posOfSeq.length - 1,
  };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const columns = columnsOf(idx);
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
  // Copy into a fresh, aligned ArrayBuffer: a Buffer's own offset need not be aligned.
  const body = new Uint8Array(buf.length);
  body.set(buf);
  let at = align8(4 + headerLen);
  function take<T extends Column>(make: new (b: ArrayBuffer, off: number, len: number) => T, len: number): T {
    const col = new make(body.buffer, at, len);
    at = align8(at + col.byteLength);
    return col;
  }
  const { n, spans: m } = header;
  const ts = take(Float64Array, n);
  const seq = take(Uint32Array, n);
  const lane = take(Uint16Array, n);
  const kind = take(Uint16Array, n);
  const tone = take(Uint8Array, n);
  const label = take(Uint16Array, n);
  const spans = {
    start: take(Float64Array, m),
    end: take(Float64Array, m),
    lane: take(Uint16Array, m),
    type: take(Uint8Array, m),
    open: take(Uint8Array, m),
    seq: take(Uint32Array, m),
    label: take(Uint16Array, m),
    room: take(Uint32Array, m),
  };
  const posOfSeq = new Uint32Array(header.maxSeq + 1).fill(ABSENT);
  for (let i = 0; i < n; i++) posOfSeq[seq[i]!] = i;
  return {
    lanes: header.lanes,
    kinds: header.kinds,
    labels: header.labels,
    spanRooms: header.spanRooms,
    gaps: header.gaps,
    shortSpanUs: header.shortSpanUs,
    ts,
    seq,
    lane,
    kind,
    tone,
    label,
    spans,
    posOfSeq,
    firstTsUs: n ? ts[0]! : null,
    lastTsUs: n ? ts[n - 1]! : null,
  };
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
