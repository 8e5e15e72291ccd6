// A dumped page at a point of the incident (time travel, issue 15): the
// latest dump of a page at or before the cursor, its rows in hex and decoded
// (fp8 × its row's scale, bf16 as bf16), the prefill page of the same (room,
// buffer, layer, pos) beside it, which rows differ, and the diagnosis.

import type { StoredEvent } from "../../store/read/events.js";
import { INDEX_HEAD_DIM, storeAddress } from "../model/indexK.js";
import type { Evidence } from "../rules/evidence.js";
import { incidentPages } from "./dumpedPages.js";
import { decodeRow, hasPageSize, hex, rowScale, rowsOf, type PageImage } from "./pageImage.js";
import type { DumpedPage } from "./pairs.js";

export interface PageQuery {
  /** The cursor: dumps with seq ≤ this. */
  seq: number;
  /** The page index in the dumping side's pool. */
  page: number;
  room?: string;
  layer?: number;
}

export interface PageRow {
  row: number;
  /** The row's K bytes (128 fp8 or 256 bf16 bytes) in hex. */
  hex: string;
  values: number[];
  /** fp8: the row's fp32 scale and its 4 bytes in hex. */
  scale?: number;
  scaleHex?: string;
  /** The row's bytes (data or scale) differ from prefill's row. */
  differs: boolean;
}

export interface PageSideView {
  room: string;
  side: string;
  rank: string;
  page: number;
  pos: number;
  layer: number;
  dtype: string;
  bytes: number;
  seq: number;
  source: string;
}

export interface PageView {
  page: PageSideView;
  prefill: PageSideView | null;
  rows: PageRow[];
  prefillRows: PageRow[];
  diagnosis: { mechanism: string; corruption: boolean; detail: string; rows: number[]; ranges: { start: number; end: number }[]; tornAt?: { row: number; byte: number }; sourceRoom?: string | null } | null;
  checksum: { algo: string; stated: string; recomputed: string } | null;
}

/** Undefined when no dump of that page lies at or before the cursor. */
export function pageViewAt(evidence: Evidence, q: PageQuery): PageView | undefined {
  const replay = incidentPages(evidence);
  const candidates = replay.pages.filter(
    (p) => p.page === q.page && p.seq <= q.seq && (q.room === undefined || p.room === q.room) && (q.layer === undefined || p.layer === q.layer),
  );
  const dump = candidates.reduce<DumpedPage<StoredEvent> | undefined>((best, p) => (best === undefined || p.seq > best.seq ? p : best), undefined);
  if (!dump) return undefined;
  const pair = replay.pairs.find((p) => p.decode === dump);
  const prefill = pair?.prefill ?? null;
  const disagreement = replay.disagreements.find((d) => d.page === dump);
  const d = pair?.diagnosis;
  const differing = new Set(d?.rows ?? []);
  return {
    page: sideView(evidence, dump),
    prefill: prefill && sideView(evidence, prefill),
    rows: rowsView(dump, (r) => differing.has(r)),
    prefillRows: prefill ? rowsView(prefill, (r) => differing.has(r)) : [],
    diagnosis: d
      ? { mechanism: d.mechanism, corruption: d.corruption, detail: d.detail, rows: d.rows, ranges: d.ranges, ...(d.tornAt && { tornAt: d.tornAt }), ...(d.sourceRoom !== undefined && { sourceRoom: d.sourceRoom }) }
      : null,
    checksum: dump.checksum ? { algo: dump.checksum.algo, stated: dump.checksum.value, recomputed: disagreement?.recomputed ?? dump.checksum.value } : null,
  };
}

function sideView(evidence: Evidence, p: DumpedPage<StoredEvent>): PageSideView {
  return { room: p.room, side: p.side, rank: evidence.rank(p.ref), page: p.page, pos: p.pos, layer: p.layer, dtype: p.dtype, bytes: p.bytes.length, seq: p.seq, source: evidence.where(p.ref) };
}

function rowsView(p: DumpedPage, differs: (row: number) => boolean): PageRow[] {
  const image: PageImage = { dtype: p.dtype, bytes: p.bytes };
  if (!hasPageSize(image)) return [];
  const width = p.dtype === "fp8" ? INDEX_HEAD_DIM : INDEX_HEAD_DIM * 2;
  return Array.from({ length: rowsOf(image) }, (_, row) => {
    const a = storeAddress(row, p.dtype);
    const values = Array.from(decodeRow(image, row), (v) => Number(v.toPrecision(5)));
    return {
      row,
      hex: hex(p.bytes, a.k, width),
      values,
      ...(a.scale !== null && { scale: rowScale(image, row), scaleHex: hex(p.bytes, a.scale, 4) }),
      differs: differs(row),
    };
  });
}
