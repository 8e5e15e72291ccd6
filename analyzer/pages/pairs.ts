// The dumped pages through the kernels and the diagnosis (issue 15). The
// kernels (../model/pageKernels.ts) recompute each page's own checksum, decode
// its rows and pair each decode page with prefill's page of the same (room,
// buffer, layer, pos), byte for byte: the replay runs them on the incident in
// seq order (analyzer/replay/replay.ts), `replayPages` runs them on a list.
// Each pair the kernels found unequal is diagnosed (./diagnosis.ts) with the
// candidates for what the page held before: the decode page's previous owners
// (earlier dumps of the same pool page by other rooms), their prefill pages,
// any other room's page with the same bytes (found by content hash), and
// zeros. Pure.

import { pageChecksum, type ChecksumAlgo } from "../model/checksum.js";
import { PageKernels, type DumpedPageInput, type KernelPair } from "../model/pageKernels.js";
import { diagnose, type Diagnosis, type OtherPage, type PageCase, type RoomPage } from "./diagnosis.js";

export interface DumpedPage<T = unknown> extends DumpedPageInput {
  checksum?: { algo: ChecksumAlgo; value: string };
  ref: T;
}

export interface ChecksumDisagreement<T> {
  page: DumpedPage<T>;
  recomputed: string;
}

/** A pair of pages as the kernels paired them, with the diagnosis of an unequal one. */
export interface DiagnosedPair<P> {
  prefill: P;
  decode: P;
  /** Undefined when the two pages are equal byte for byte. */
  diagnosis: Diagnosis | undefined;
}

export type PagePair<T> = DiagnosedPair<DumpedPage<T>>;

export interface PagesReplayed<P> {
  pages: P[];
  disagreements: { page: P; recomputed: string }[];
  /** Pages whose length is not their dtype's page (8,448 B fp8, 16,384 B bf16). */
  offSize: P[];
  pairs: DiagnosedPair<P>[];
  /** Decode pages with no prefill page of the same (room, buffer, layer, pos). */
  unpaired: P[];
}

export type PageReplay<T> = PagesReplayed<DumpedPage<T>>;

const DECODE_SIDES = new Set(["decode_recv", "decode_read"]);

const pairKey = (p: DumpedPageInput) => `${p.room}|${p.buffer}|${p.layer}|${p.pos}`;
const poolPageKey = (p: DumpedPageInput) => `${p.pool}|${p.buffer}|${p.layer}|${p.page}`;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** The kernels over `pages` (in seq order), then the diagnosis of every unequal pair. */
export function replayPages<T>(pages: DumpedPage<T>[]): PageReplay<T> {
  const kernels = new PageKernels<DumpedPage<T>>();
  for (const p of pages) kernels.dump(p);
  return diagnosePages(kernels);
}

/** What the kernels found (the replay's or replayPages'), each unequal pair diagnosed against the whole incident's pages. */
export function diagnosePages<P extends DumpedPageInput>(kernels: PageKernels<P>): PagesReplayed<P> {
  const pages = kernels.pages;
  const prefillByRoomLayer = new Map<string, P[]>();
  const byHash = new Map<string, P[]>();
  const prefillByPool = new Map<string, Map<number, SenderPage>>();
  for (const p of pages) {
    if (p.side !== "prefill_store") continue;
    push(prefillByRoomLayer, `${p.room}|${p.buffer}|${p.layer}`, p);
    const key = `${p.pool}|${p.buffer}|${p.layer}`;
    const pool = prefillByPool.get(key) ?? new Map<number, SenderPage>();
    if (!pool.has(p.page)) pool.set(p.page, { bytes: p.bytes, pos: p.pos, room: p.room });
    prefillByPool.set(key, pool);
  }
  const buffersOf = new Map<string, Set<string>>();
  for (const p of pages) buffersOf.set(p.room, (buffersOf.get(p.room) ?? new Set()).add(p.buffer));
  const otherBuffers = new Map<string, P[]>();
  for (const p of pages) for (const b of buffersOf.get(p.room)!) if (b !== p.buffer) push(otherBuffers, `${p.room}|${b}`, p);
  const hashOf = new Map(pages.map((p) => [p, pageChecksum(p.bytes, "xxh64")]));
  for (const p of pages) push(byHash, hashOf.get(p)!, p);
  const byPoolPage = new Map<string, P[]>();
  const decodePageOf = new Map<string, number>();
  for (const d of pages) {
    if (!DECODE_SIDES.has(d.side)) continue;
    push(byPoolPage, poolPageKey(d), d);
    decodePageOf.set(pairKey(d), d.page);
  }
  const ctx: CaseContext<P> = { prefillByRoomLayer, prefillByPool, otherBuffers, byHash, hashOf, byPoolPage, decodePageOf };
  const pairs = kernels.pairs().map((k: KernelPair<P>): DiagnosedPair<P> => ({
    prefill: k.prefill,
    decode: k.decode,
    diagnosis: k.equal ? undefined : diagnose(pageCase(k.decode, k.prefill, ctx)),
  }));
  const offSize = pages.filter((p) => !kernels.verdicts.get(p)!.pageSized);
  return { pages, disagreements: kernels.disagreements(), offSize, pairs, unpaired: kernels.unpaired() };
}

type SenderPage = { bytes: Uint8Array; pos: number; room: string };

interface CaseContext<P> {
  prefillByRoomLayer: Map<string, P[]>;
  /** Prefill pages by pool, buffer and layer, then by pool page (the first dumped): the sending pool's pages, any room's. */
  prefillByPool: Map<string, Map<number, SenderPage>>;
  /** Per room and buffer: the room's dumped pages of its other buffers (the main KV's, for an index-K page). */
  otherBuffers: Map<string, P[]>;
  byHash: Map<string, P[]>;
  hashOf: Map<P, string>;
  byPoolPage: Map<string, P[]>;
  decodePageOf: Map<string, number>;
}

function pageCase<P extends DumpedPageInput>(d: P, s: P, ctx: CaseContext<P>): PageCase {
  const roomLayer = (room: string) => ctx.prefillByRoomLayer.get(`${room}|${d.buffer}|${d.layer}`) ?? [];
  const earlier = (ctx.byPoolPage.get(poolPageKey(d)) ?? []).filter((o) => o.room !== d.room && o.seq < d.seq).reverse();
  const owners = [...new Set(earlier.map((o) => o.room))];
  const others: OtherPage[] = [
    ...earlier.map((o) => other(o, `its ${o.side} dump of decode page ${o.page}`, true)),
    ...owners.flatMap((room) => roomLayer(room).map((o) => other(o, `prefill's pos ${o.pos}`, true))),
    ...(ctx.byHash.get(ctx.hashOf.get(d)!) ?? []).filter((o) => o.room !== d.room).map((o) => other(o, `${o.side} pos ${o.pos}`, false)),
    { room: null, label: "never written", previousOwner: false, dtype: d.dtype, bytes: new Uint8Array(d.bytes.length) },
  ];
  const roomPages: RoomPage[] = roomLayer(d.room).map((p) => ({ dtype: p.dtype, bytes: p.bytes, pos: p.pos, page: p.page, decodePage: ctx.decodePageOf.get(pairKey(p)) }));
  const senderPages = ctx.prefillByPool.get(`${s.pool}|${s.buffer}|${s.layer}`);
  const mainKvItemLens = (ctx.otherBuffers.get(`${d.room}|${d.buffer}`) ?? []).map((p) => p.bytes.length);
  return { room: d.room, decode: { dtype: d.dtype, bytes: d.bytes, page: d.page, pos: d.pos }, prefill: { dtype: s.dtype, bytes: s.bytes }, others, roomPages, ...(senderPages && { senderPages }), mainKvItemLens };
}

function other(p: DumpedPageInput, label: string, previousOwner: boolean): OtherPage {
  return { room: p.room, label, previousOwner, dtype: p.dtype, bytes: p.bytes };
}
