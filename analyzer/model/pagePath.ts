// A `page.dump` record reaching the model with its bytes (the replay reads
// them through the store and hands them over; the model does no I/O): the
// record's fields and the bytes go through the page kernels (pageKernels.ts),
// whose verdicts are part of the state at every point of the replay.

import { PAGE_DUMP_KIND } from "../../domain/kinds.js";
import type { DumpedPageView, ModelEvent } from "./api.js";
import { decodeAs } from "../events/decode.js";
import { isChecksumAlgo } from "./checksum.js";
import type { DumpedPageInput, PageKernels } from "./pageKernels.js";
import { rankLabel } from "./ranks.js";
import type { ModelState } from "./state.js";

/** A dumped page as the model keeps it: the record's provenance, to find its bytes again after a snapshot. */
export interface ModelDumpedPage extends DumpedPageInput {
  sourceId: number;
  line: number;
  rank: string;
}

/** The key of a page's bytes in the store (store/pages.ts): the index record's source and line. */
export const pageBytesKey = (sourceId: number, line: number): string => `${sourceId}:${line}`;

/** The record's page, or undefined when the record lacks what the kernels need (its ingest reported why). */
export function dumpedPageOf(ev: ModelEvent, bytes: Uint8Array, qualifyHosts: boolean): ModelDumpedPage | undefined {
  const d = decodeAs(ev, PAGE_DUMP_KIND);
  if (!d) return undefined;
  const { room, side, buffer, layer, pos, dtype, algo, checksum } = d;
  if (room === undefined || side === undefined || layer === undefined || pos === undefined || ev.pageLo === null || (dtype !== "fp8" && dtype !== "bf16")) return undefined;
  const rank = rankLabel(ev.host, ev.role ?? "unknown", ev.pp, ev.tp, qualifyHosts);
  return {
    seq: ev.seq,
    sourceId: ev.sourceId,
    line: ev.line,
    room,
    side,
    buffer: buffer ?? "index_k",
    layer,
    page: ev.pageLo,
    pos,
    dtype,
    rank,
    pool: `${ev.host ?? ""}|${rank}`,
    bytes,
    ...(checksum !== undefined && algo !== undefined && isChecksumAlgo(algo) && { checksum: { algo, value: checksum } }),
  };
}

export function onPageDump(s: ModelState, ev: ModelEvent, bytes: Uint8Array): void {
  const page = dumpedPageOf(ev, bytes, s.qualifyHosts);
  if (page) s.pages.dump(page);
}

/** The dumped pages at this point of the replay, with the kernels' verdicts (of one room, or all). */
export function dumpedPageViews(kernels: PageKernels<ModelDumpedPage>, room?: string): DumpedPageView[] {
  return kernels.pages
    .filter((p) => room === undefined || p.room === room)
    .map((p) => {
      const v = kernels.verdicts.get(p)!;
      const pair = kernels.pairFor(p);
      return {
        seq: p.seq,
        rank: p.rank,
        room: p.room,
        side: p.side,
        buffer: p.buffer,
        layer: p.layer,
        page: p.page,
        pos: p.pos,
        dtype: p.dtype,
        bytes: p.bytes.length,
        pageSized: v.pageSized,
        checksum: p.checksum ? { algo: p.checksum.algo, stated: p.checksum.value, recomputed: v.recomputed!, agrees: v.checksumAgrees! } : null,
        nonFiniteRows: v.nonFiniteRows,
        pair: pair ? { prefillSeq: pair.prefill.seq, equal: pair.equal, differingRows: pair.differingRows } : null,
      };
    });
}

/** Snapshot form: the records' fields, not the bytes, which stay in the store. */
export function encodePages(kernels: PageKernels<ModelDumpedPage>): unknown[] {
  return kernels.pages.map((p) => [p.seq, p.sourceId, p.line, p.room, p.side, p.buffer, p.layer, p.page, p.pos, p.dtype, p.rank, p.pool, p.checksum?.algo ?? null, p.checksum?.value ?? null]);
}

/**
 * The pages back through the kernels in their seq order, with the bytes the
 * replay read for them again: the same verdicts and pairs as before the snapshot.
 */
export function decodePages(kernels: PageKernels<ModelDumpedPage>, encoded: unknown[], pageBytes: ReadonlyMap<string, Uint8Array>): void {
  for (const e of encoded as [number, number, number, string, string, string, number, number, number, "fp8" | "bf16", string, string, string | null, string | null][]) {
    const [seq, sourceId, line, room, side, buffer, layer, page, pos, dtype, rank, pool, algo, value] = e;
    const bytes = pageBytes.get(pageBytesKey(sourceId, line));
    if (bytes === undefined) throw new Error(`snapshot: the bytes of the page dumped at seq ${seq} (source ${sourceId} line ${line}) were not handed over`);
    const checksum = algo !== null && value !== null && isChecksumAlgo(algo) ? { checksum: { algo, value } } : {};
    kernels.dump({ seq, sourceId, line, room, side, buffer, layer, page, pos, dtype, rank, pool, bytes, ...checksum });
  }
}
