// The kernels on the replay path (issue 15): each dumped page the replay
// reaches, in seq order, with the bytes the replay read for it through the
// store. Its own checksum is recomputed (checksum.ts) and compared with the
// one the dump states; its rows are decoded by the store kernel's addressing
// (fp8 with each row's scale, bf16 as bf16: pageRows.ts, docs/hicache-indexk.md
// §2.1, §2.2); a decode page is compared byte for byte with prefill's page of
// the same (room, buffer, layer, pos) as soon as both have been dumped. Pure:
// pages in, verdicts out.

import type { DumpedPageKey } from "./api.js";
import { pageChecksum, type ChecksumAlgo } from "./checksum.js";
import { bytesEqual, differingRows, hasPageSize, nonFiniteRows } from "./pageRows.js";

/** One dumped page as its index record and the store give it. */
export interface DumpedPageInput extends DumpedPageKey {
  /** The dumping rank's pool: pages of one pool share page numbers. */
  pool: string;
  bytes: Uint8Array;
  checksum?: { algo: ChecksumAlgo; value: string };
}

/** What the kernels make of one page. */
export interface PageVerdict {
  /** The checksum recomputed over the bytes, when the dump states one. */
  recomputed?: string;
  /** The stated checksum equals the recomputed one. */
  checksumAgrees?: boolean;
  /** The bytes are a whole page of the dtype (8,448 B fp8, 16,384 B bf16). */
  pageSized: boolean;
  /** Rows with a value that decodes to no finite number. */
  nonFiniteRows: number[];
}

export interface KernelPair<P> {
  prefill: P;
  decode: P;
  /** Same dtype and every byte equal. */
  equal: boolean;
  /** Rows whose bytes differ (both pages of one dtype and page size), else empty; compared row by row when first asked. */
  readonly differingRows: number[];
}

class Pair<P extends DumpedPageInput> implements KernelPair<P> {
  private rows: number[] | undefined;
  constructor(
    readonly prefill: P,
    readonly decode: P,
    readonly equal: boolean,
  ) {}

  get differingRows(): number[] {
    const { prefill, decode } = this;
    this.rows ??= !this.equal && prefill.dtype === decode.dtype && hasPageSize(prefill) && hasPageSize(decode) ? differingRows(decode, prefill) : [];
    return this.rows;
  }
}

export const DECODE_SIDES: ReadonlySet<string> = new Set(["decode_recv", "decode_read"]);

export const pairKey = (p: DumpedPageInput): string => `${p.room}|${p.buffer}|${p.layer}|${p.pos}`;

export class PageKernels<P extends DumpedPageInput = DumpedPageInput> {
  /** Every page dumped so far, in seq order. */
  readonly pages: P[] = [];
  readonly verdicts = new Map<P, PageVerdict>();
  /** Pairs formed so far, in the order they formed. */
  private readonly formed: KernelPair<P>[] = [];
  /** Prefill's first page per pair key. */
  private readonly prefillByKey = new Map<string, P>();
  /** Decode pages whose prefill page is not dumped yet, per pair key. */
  private readonly waiting = new Map<string, P[]>();
  private readonly pairOf = new Map<P, KernelPair<P>>();

  dump(p: P): void {
    this.pages.push(p);
    const verdict: PageVerdict = { pageSized: hasPageSize(p), nonFiniteRows: nonFiniteRows(p) };
    if (p.checksum) {
      const recomputed = pageChecksum(p.bytes, p.checksum.algo);
      verdict.recomputed = recomputed;
      verdict.checksumAgrees = recomputed === p.checksum.value.padStart(recomputed.length, "0");
    }
    this.verdicts.set(p, verdict);
    const key = pairKey(p);
    if (p.side === "prefill_store") {
      if (this.prefillByKey.has(key)) return;
      this.prefillByKey.set(key, p);
      for (const d of this.waiting.get(key) ?? []) this.pair(p, d);
      this.waiting.delete(key);
    } else if (DECODE_SIDES.has(p.side)) {
      const prefill = this.prefillByKey.get(key);
      if (prefill) this.pair(prefill, p);
      else this.waiting.set(key, [...(this.waiting.get(key) ?? []), p]);
    }
  }

  private pair(prefill: P, decode: P): void {
    const pair = new Pair(prefill, decode, prefill.dtype === decode.dtype && bytesEqual(prefill.bytes, decode.bytes));
    this.formed.push(pair);
    this.pairOf.set(decode, pair);
  }

  /** The pair a decode page is in, once prefill's page of its key has been dumped. */
  pairFor(decode: P): KernelPair<P> | undefined {
    return this.pairOf.get(decode);
  }

  /** Every pair, in the decode pages' seq order. */
  pairs(): KernelPair<P>[] {
    return [...this.formed].sort((a, b) => a.decode.seq - b.decode.seq);
  }

  /** Decode pages with no prefill page of their key (yet), in seq order. */
  unpaired(): P[] {
    return this.pages.filter((p) => DECODE_SIDES.has(p.side) && !this.pairOf.has(p));
  }

  /** Pages whose bytes do not hash to the checksum their dump states, with the recomputed checksum. */
  disagreements(): { page: P; recomputed: string }[] {
    return this.pages.flatMap((page) => {
      const v = this.verdicts.get(page)!;
      return v.checksumAgrees === false ? [{ page, recomputed: v.recomputed! }] : [];
    });
  }
}
