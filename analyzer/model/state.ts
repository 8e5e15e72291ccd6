// The model's whole mutable state and the small helpers every handler uses:
// rank ids, rooms and their sides, bootstrap threads, HiCache counters,
// transfer queue depths, evidence flags, coverage counters and the
// violations of the event being applied.

import type { CheckId, EventPlace, Profile, Violation } from "./api.js";
import { BootstrapThread } from "./bootstrap.js";
import { CollectiveTracker } from "./collectives.js";
import { LayerDoneCounter } from "./hicache.js";
import { DecodeReceiver } from "./receiver.js";
import { PREFILL, RankRegistry } from "./ranks.js";
import { RoomRegistry, type RoomRec } from "./rooms.js";
import { PageKernels } from "./pageKernels.js";
import type { ModelDumpedPage } from "./pagePath.js";
import { PrefillSender } from "./sender.js";
import { ShadowMemory } from "./shadowMemory.js";
import { LandingLog } from "./transferPairing.js";

export const CHECKS: readonly CheckId[] = [
  "read-before-landed-write",
  "hicache-ungated-read",
  "unhandled-abort",
  "stale-slot-reuse",
  "incomplete-completion",
  "transfer-stall",
  "collective-divergence",
  "metadata-collision",
  "pool-sizing-mismatch",
  "address-overflow",
];
export const CHECK_INDEX = Object.fromEntries(CHECKS.map((c, i) => [c, i])) as Record<CheckId, number>;

/** Kinds of evidence seen so far: bits of ModelState.seen. */
export const SEEN = {
  kernelRead: 1,
  alloc: 2,
  post: 4,
  notify: 8,
  decodePoll: 16,
  bootFrames: 32,
  hicacheLoad: 64,
  hicacheWait: 128,
  config: 256,
} as const;

export interface QueueDepth {
  rank: number;
  queue: number;
  depth: number;
  changedSeq: number;
}

const NONE: Violation[] = [];
Object.freeze(NONE);
export const NO_VIOLATIONS: readonly Violation[] = NONE;

export class ModelState {
  ranks: RankRegistry;
  rooms = new RoomRegistry();
  shadow = new ShadowMemory();
  threads = new Map<number, BootstrapThread>();
  hicache = new Map<number, LayerDoneCounter>();
  collectives = new CollectiveTracker();
  queues = new Map<number, QueueDepth>();
  /** Dumped pages through the kernels. */
  pages = new PageKernels<ModelDumpedPage>();
  /** Bits of SEEN. */
  seen = 0;
  /** Per check: how many times evidence let it be evaluated. */
  checked: number[] = CHECKS.map(() => 0);
  lastSeq = -1;
  lastTsUs = 0;
  applied = 0;
  nextLoadId = 1;
  /** The earliest modelled timeout deadline (µs), Infinity when none is pending. */
  nextDeadlineUs = Infinity;
  /** Index-K dtype per role as `config` records state it (prefill vs decode item_len). */
  roleDtypes: (string | null)[] = [null, null, null, null];
  /** Metadata buffer slots in use per decode rank: rank * 2^20 + aux_index → [room, kv.meta seq]. */
  auxHolders = new Map<number, [string, number]>();
  /** The last event by which decode sent ABORT (any room), -1 before any, and its room. */
  lastAbortSeq = -1;
  lastAbortRoom: string | null = null;
  /** Config-level findings already raised (bits: 1 bytes/token, 2 host stride, 4 item_len, 8 overflow). */
  configFlags = 0;
  out: Violation[] = NONE;
  /** Every post the run landed and what landed it: an output of the run, not part of a snapshot (a restored model starts it empty). */
  readonly landings = new LandingLog();

  constructor(
    readonly profile: Profile,
    readonly qualifyHosts: boolean,
  ) {
    this.ranks = new RankRegistry(qualifyHosts);
  }

  /** Whether layer `layer` of HiCache load `id` on `rank` has landed (a load no longer in its slot has). */
  readonly layerLoaded = (rank: number, id: number, layer: number): boolean => {
    const l = this.hicache.get(rank)?.loadById(id);
    return l == null || l.layerLoaded(layer);
  };

  rankOf(ev: EventPlace, role: number): number {
    return this.ranks.id(ev.host, role, ev.pp, ev.tp);
  }

  emit(v: Violation): void {
    if (this.out === NONE) this.out = [];
    this.out.push(v);
  }

  violation(check: CheckId, ev: Pick<EventPlace, "seq" | "tsUs">, witness: number[], message: string, detail: Record<string, unknown>, room?: string | null, rank?: number): void {
    const v: Violation = { check, seq: ev.seq, tsUs: ev.tsUs, witness: dedupe(witness), message, detail };
    if (room != null) v.room = room;
    if (rank !== undefined) v.rank = this.ranks.label(rank);
    this.emit(v);
  }

  count(check: CheckId): void {
    this.checked[CHECK_INDEX[check]]++;
  }

  room(room: string, ev: EventPlace): RoomRec {
    return this.rooms.get(room, ev.seq, ev.tsUs);
  }

  sender(r: RoomRec, rank: number, ev: EventPlace): PrefillSender {
    let s = r.prefill.get(rank);
    if (s === undefined) {
      r.prefill.set(rank, (s = new PrefillSender(rank, ev.tsUs, ev.seq)));
      this.noteDeadline(s.bootstrapDeadlineUs(this.profile));
    }
    return s;
  }

  receiver(r: RoomRec, rank: number, ev: EventPlace): DecodeReceiver {
    let d = r.decode.get(rank);
    if (d === undefined) r.decode.set(rank, (d = new DecodeReceiver(rank, ev.seq)));
    return d;
  }

  thread(rank: number): BootstrapThread {
    let t = this.threads.get(rank);
    if (t === undefined) this.threads.set(rank, (t = new BootstrapThread(rank)));
    return t;
  }

  counter(rank: number): LayerDoneCounter {
    let c = this.hicache.get(rank);
    if (c === undefined) this.hicache.set(rank, (c = new LayerDoneCounter()));
    return c;
  }

  queueDelta(rank: number, queue: number, delta: number, seq: number): QueueDepth {
    const key = rank * 1024 + queue;
    let q = this.queues.get(key);
    if (q === undefined) this.queues.set(key, (q = { rank, queue, depth: 0, changedSeq: seq }));
    q.depth = Math.max(0, q.depth + delta);
    q.changedSeq = seq;
    return q;
  }

  noteDeadline(us: number): void {
    if (us < this.nextDeadlineUs) this.nextDeadlineUs = us;
  }

  /** Prefill ranks that hold (or would hold) a decode rank's room: the room's own, else the same-tp peers. */
  prefillPeers(r: RoomRec, decodeRank: number): number[] {
    if (r.prefill.size > 0) return [...r.prefill.keys()];
    return this.ranks.withTp(PREFILL, this.ranks.ranks[decodeRank]!.tp);
  }

  /**
   * Prefill ranks a decode rank's ABORT for the room goes to: with equal TP,
   * prefill tp r pairs with decode tp r (§5.2 rank mapping), so the room's
   * sender of that tp when it has one, else prefillPeers.
   */
  abortPeers(r: RoomRec, decodeRank: number): number[] {
    const tp = this.ranks.ranks[decodeRank]!.tp;
    const paired = [...r.prefill.keys()].filter((p) => this.ranks.ranks[p]!.tp === tp);
    return paired.length > 0 ? paired : this.prefillPeers(r, decodeRank);
  }
}

function dedupe(seqs: number[]): number[] {
  const out: number[] = [];
  for (const s of seqs) if (s >= 0 && !out.includes(s)) out.push(s);
  return out;
}
