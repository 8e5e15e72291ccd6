// A block made ready to be written: its content encoded and compressed, with
// its side-table rows (seq and time range, keys). Sealing is most of the
// cost of writing a block (bench/RESULTS.md "bench:ingest"), and it needs no
// database: a large ingest seals on a worker thread (ingest/load/blockSealer.ts)
// while the main thread merges, and only the writing of sealed blocks stays
// on the transaction's thread (blockWriter.ts).

import { compress } from "../codec.js";
import { encodeBlock, type BlockColumns, type BlockContent } from "./blockCodec.js";
import { KeyDim, rankKey } from "./blockTables.js";

export interface SealedBlock {
  block: number;
  firstSeq: number;
  lastSeq: number;
  count: number;
  minTsUs: number;
  maxTsUs: number;
  /** The compressed block (blockCodec.ts). */
  data: Uint8Array;
  /** The block's distinct keys per dimension (event_block_keys). */
  keys: [KeyDim, string[]][];
}

export function sealBlock(block: number, content: BlockContent): SealedBlock {
  const n = content.count;
  const ts = content.num.tsUs;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (ts[i]! < min) min = ts[i]!;
    if (ts[i]! > max) max = ts[i]!;
  }
  const seq = content.num.seq;
  const keys = blockKeys(content);
  return { block, firstSeq: seq[0]!, lastSeq: seq[n - 1]!, count: n, minTsUs: min, maxTsUs: max, data: compress(encodeBlock(content)), keys };
}

/**
 * Where the blocks a writer fills go to be sealed: `seal` takes each block's
 * content in block order, and the sealer hands each sealed block to the
 * writer's `write` in the same order, at once or on a later call, with the
 * columns it came in (for the writer to fill again).
 */
export interface BlockSealer {
  seal(block: number, content: BlockContent): void;
  /** Returns once every block given has been written. */
  finish(): void;
  /** Ends the sealer; blocks not yet written are dropped (their transaction is rolled back). */
  close(): void;
}

/** Makes the sealer of a writer, given how it writes a sealed block. */
export type BlockSealerFactory = (write: (sealed: SealedBlock, spent: BlockColumns) => void) => BlockSealer;

/** Seals each block on this thread as it is given. */
export const sealInThread: BlockSealerFactory = (write) => ({
  seal: (block, content) => write(sealBlock(block, content), content),
  finish: () => undefined,
  close: () => undefined,
});

/** Equal numbers, NaN (NULL) equal to NaN. */
function same(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** The distinct kinds, ranks, sources and rooms of a block's rows. */
function blockKeys(r: BlockContent): [KeyDim, string[]][] {
  const ranks = new Set<string>();
  const sources = new Set<string>();
  const { host, role } = r.ids;
  const { tp, sourceId } = r.num;
  const hosts = r.dicts.host;
  const roles = r.dicts.role;
  // Neighbouring rows mostly share their rank and source: a key is made only where one changes.
  let h = -1;
  let o = -1;
  let t = -1;
  let src = -1;
  for (let i = 0; i < r.count; i++) {
    if (i === 0 || !same(tp[i]!, t) || !same(host[i]!, h) || !same(role[i]!, o)) {
      t = tp[i]!;
      h = host[i]!;
      o = role[i]!;
      ranks.add(rankKey(h === h ? hosts[h]! : null, o === o ? roles[o]! : null, t === t ? t : null));
    }
    if (i === 0 || sourceId[i] !== src) sources.add(String((src = sourceId[i]!)));
  }
  // A dictionary holds exactly the values its block's rows use.
  return [
    [KeyDim.kind, r.dicts.kind],
    [KeyDim.rank, [...ranks]],
    [KeyDim.source, [...sources]],
    [KeyDim.room, r.dicts.room],
  ];
}
