// The replay of dumped pages through the kernels (issue 15): each page's own
// checksum recomputed (checksum.ts), each decode page paired with prefill's
// page of the same (room, buffer, layer, pos) and compared byte for byte, and
// each differing pair diagnosed (./diagnosis.ts) with the candidates for what
// the page held before: the decode page's previous owners (earlier dumps of
// the same pool page by other rooms), their prefill pages, any other room's
// page with the same bytes (found by content hash), and zeros. Pure.

import type { IndexKDtype } from "../model/api.js";
import { pageChecksum, type ChecksumAlgo } from "../model/checksum.js";
import { diagnose, type Diagnosis, type OtherPage, type PageCase, type RoomPage } from "./diagnosis.js";
import { hasPageSize } from "./pageImage.js";

export interface DumpedPage<T = unknown> {
  /** The record's place in the incident (for previous owners: earlier dumps). */
  seq: number;
  room: string;
  side: string;
  buffer: string;
  layer: number;
  page: number;
  pos: number;
  dtype: IndexKDtype;
  /** The dumping rank's pool: pages of one pool share page numbers. */
  pool: string;
  bytes: Uint8Array;
  checksum?: { algo: ChecksumAlgo; value: string };
  ref: T;
}

export interface ChecksumDisagreement<T> {
  page: DumpedPage<T>;
  recomputed: string;
}

export interface PagePair<T> {
  prefill: DumpedPage<T>;
  decode: DumpedPage<T>;
  /** Undefined when the two pages are equal byte for byte. */
  diagnosis: Diagnosis | undefined;
}

export interface PageReplay<T> {
  pages: DumpedPage<T>[];
  disagreements: ChecksumDisagreement<T>[];
  /** Pages whose length is not their dtype's page (8,448 B fp8, 16,384 B bf16). */
  offSize: DumpedPage<T>[];
  pairs: PagePair<T>[];
  /** Decode pages with no prefill page of the same (room, buffer, layer, pos). */
  unpaired: DumpedPage<T>[];
}

const DECODE_SIDES = new Set(["decode_recv", "decode_read"]);

const pairKey = (p: DumpedPage) => `${p.room}|${p.buffer}|${p.layer}|${p.pos}`;
const poolPageKey = (p: DumpedPage) => `${p.pool}|${p.buffer}|${p.layer}|${p.page}`;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function replayPages<T>(pages: DumpedPage<T>[]): PageReplay<T> {
  const disagreements: ChecksumDisagreement<T>[] = [];
  for (const p of pages) {
    if (!p.checksum) continue;
    const recomputed = pageChecksum(p.bytes, p.checksum.algo);
    if (recomputed !== p.checksum.value.padStart(recomputed.length, "0")) disagreements.push({ page: p, recomputed });
  }
  const prefill = pages.filter((p) => p.side === "prefill_store");
  const decode = pages.filter((p) => DECODE_SIDES.has(p.side));
  const prefillByKey = new Map<string, DumpedPage<T>>();
  const prefillByRoomLayer = new Map<string, DumpedPage<T>[]>();
  const byHash = new Map<string, DumpedPage<T>[]>();
  for (const p of prefill) {
    if (!prefillByKey.has(pairKey(p))) prefillByKey.set(pairKey(p), p);
    push(prefillByRoomLayer, `${p.room}|${p.buffer}|${p.layer}`, p);
  }
  const hashOf = new Map(pages.map((p) => [p, pageChecksum(p.bytes, "xxh64")]));
  for (const p of pages) push(byHash, hashOf.get(p)!, p);
  const byPoolPage = new Map<string, DumpedPage<T>[]>();
  const decodePageOf = new Map<string, number>();
  for (const d of decode) {
    push(byPoolPage, poolPageKey(d), d);
    decodePageOf.set(pairKey(d), d.page);
  }
  const ctx: CaseContext<T> = { prefillByRoomLayer, byHash, hashOf, byPoolPage, decodePageOf };
  const pairs: PagePair<T>[] = [];
  const unpaired: DumpedPage<T>[] = [];
  for (const d of decode) {
    const s = prefillByKey.get(pairKey(d));
    if (!s) {
      unpaired.push(d);
      continue;
    }
    pairs.push({ prefill: s, decode: d, diagnosis: diagnose(pageCase(d, s, ctx)) });
  }
  return { pages, disagreements, offSize: pages.filter((p) => !hasPageSize(p)), pairs, unpaired };
}

interface CaseContext<T> {
  prefillByRoomLayer: Map<string, DumpedPage<T>[]>;
  byHash: Map<string, DumpedPage<T>[]>;
  hashOf: Map<DumpedPage<T>, string>;
  byPoolPage: Map<string, DumpedPage<T>[]>;
  decodePageOf: Map<string, number>;
}

function pageCase<T>(d: DumpedPage<T>, s: DumpedPage<T>, ctx: CaseContext<T>): PageCase {
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
  return { room: d.room, decode: { dtype: d.dtype, bytes: d.bytes, page: d.page, pos: d.pos }, prefill: { dtype: s.dtype, bytes: s.bytes }, others, roomPages };
}

function other(p: DumpedPage, label: string, previousOwner: boolean): OtherPage {
  return { room: p.room, label, previousOwner, dtype: p.dtype, bytes: p.bytes };
}
