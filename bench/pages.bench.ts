// Page diagnosis throughput (issue 15): 10,000 prefill/decode page pairs of
// fp8 index-K replayed through the kernels (analyzer/model/pageKernels.ts:
// checksums recomputed, rows decoded, pages compared), each differing page
// diagnosed (analyzer/pages/pairs.ts). A fifth of the decode pages are equal, the others stale, torn at a row,
// scale-only or corrupted by nothing known, each against a previous owner.
// Prints figures (the target: ≤ 5 s); not a pass/fail test.

import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { pageChecksum } from "../analyzer/model/checksum.js";
import { fp8Encode } from "../analyzer/model/fp8.js";
import { IndexKPool } from "../analyzer/model/indexK.js";
import { replayPages, type DumpedPage } from "../analyzer/pages/pairs.js";

/** New rooms; each also brings its page's previous owner, whose own pair is compared too. */
const PAIRS = Number(process.env.PAIRS ?? 10_000);
const KINDS = ["equal", "stale", "torn", "scale-only", "none"] as const;

/** A room's page: row values from the room's number, stored by SetKAndS; rows [from, to) only. */
function store(pool: IndexKPool, page: number, seed: number, from: number, to: number, scaleSeed = seed): void {
  const n = to - from;
  const k = new Uint8Array(n * 128);
  for (let r = 0; r < n; r++) for (let i = 0; i < 128; i++) k[r * 128 + i] = fp8Encode((((Math.imul(seed, 2654435761) ^ ((from + r) * 131 + i * 7919)) >>> 0) % 61) - 30);
  const scales = Array.from({ length: n }, (_, r) => 0.001 * (1 + ((scaleSeed + from + r) % 97)));
  pool.store(0, Array.from({ length: n }, (_, r) => page * 64 + from + r), k, scales);
}

function pageOf(seed: number, build: (pool: IndexKPool) => void = (p) => store(p, 0, seed, 0, 64)): Uint8Array {
  const pool = new IndexKPool("fp8", 1);
  build(pool);
  return pool.page(0, 0).slice();
}

function dumped(seq: number, room: string, side: string, page: number, bytes: Uint8Array): DumpedPage<null> {
  return { seq, room, side, buffer: "index_k", layer: 0, page, pos: 0, dtype: "fp8", pool: side === "prefill_store" ? "p0" : "d0", bytes, checksum: { algo: "crc32", value: pageChecksum(bytes, "crc32") }, ref: null };
}

/** Per pair: the old owner's prefill and decode page, then the new room's prefill page and its decode page. */
function incident(pairs: number): DumpedPage<null>[] {
  const pages: DumpedPage<null>[] = [];
  let seq = 0;
  for (let i = 0; i < pairs; i++) {
    const oldSeed = 2 * i + 1;
    const newSeed = 2 * i + 2;
    const oldRoom = String(9_000_000_000_000_000_000n + BigInt(oldSeed));
    const newRoom = String(9_000_000_000_000_000_000n + BigInt(newSeed));
    const old = pageOf(oldSeed);
    const fresh = pageOf(newSeed);
    const kind = KINDS[i % KINDS.length]!;
    const decode =
      kind === "equal" ? fresh
      : kind === "stale" ? old
      : kind === "torn" ? pageOf(0, (p) => (store(p, 0, newSeed, 0, 37), store(p, 0, oldSeed, 37, 64)))
      : kind === "scale-only" ? pageOf(0, (p) => store(p, 0, newSeed, 0, 64, oldSeed))
      : pageOf(1_000_000_000 + newSeed);
    pages.push(dumped(++seq, oldRoom, "prefill_store", i, old), dumped(++seq, oldRoom, "decode_recv", i, old));
    pages.push(dumped(++seq, newRoom, "prefill_store", pairs + i, fresh), dumped(++seq, newRoom, "decode_read", i, decode));
  }
  return pages;
}

const pages = incident(PAIRS);
let best = Infinity;
let counts: Record<string, number> = {};
for (let round = 0; round < 3; round++) {
  const t0 = performance.now();
  const replay = replayPages(pages);
  best = Math.min(best, performance.now() - t0);
  counts = {};
  for (const p of replay.pairs) counts[p.diagnosis?.mechanism ?? "equal"] = (counts[p.diagnosis?.mechanism ?? "equal"] ?? 0) + 1;
}
const pairs = pages.length / 2;
console.log(`bench:pages  ${pairs} page pairs (${pages.length} fp8 pages, ${PAIRS} new rooms) diagnosed in ${(best / 1000).toFixed(2)} s (best of 3; target ≤ 5 s): ${Math.round(pairs / (best / 1000))} pairs/s`);
console.log(`  mechanisms: ${Object.entries(counts).map(([k, n]) => `${k} ${n}`).join(", ")}`);
console.log(`  load average ${loadavg().map((x) => x.toFixed(2)).join(" ")} (1/5/15 min; the machine is shared)`);
