// The boundary of the reference model: what the replay feeds it, what it
// reports back, and the state view that `replay --at` and the UI show.
// Everything here is plain data; the model itself does no I/O.

import type { Backend, IndexKDtype, KVPollValue } from "../../domain/vocabulary.js";
import type { StoredEvent } from "../../domain/event.js";
import type { Envelope } from "../../domain/domainEvent.js";
import type { ModelDumpedPage } from "./pagePath.js";
import type { PageKernels } from "./pageKernels.js";
import type { LandingColumns } from "./transferPairing.js";


/** How the prefill bootstrap thread answers an ABORT frame (§7.1, §7.2). */
export type AbortHandling = "fatal-assert" | "failed-no-ack" | "failed-ack";

/** The SGLang behaviour a replay reproduces: backend, version band and settings. */
export interface Profile {
  backend: Backend;
  /** SGLang version, e.g. "0.5.14". */
  version: string;
  indexKDtype: IndexKDtype;
  /** Index-K tokens per page (64 on CUDA). */
  indexKPageSize: number;
  kvPageSize: number;
  hicache: boolean;
  overlap: boolean;
  transferQueues: number;
  queueRouting: "room-mod" | "dst-port-sum";
  abortHandling: AbortHandling;
  /** NIXL prefill only times out in Bootstrapping from v0.5.18 on. */
  prefillBootstrapTimeout: boolean;
  /** Decode sends ABORT to prefill on abort() and waiting timeout (v0.5.13+, #27372); derived from version when absent. */
  decodeSendsAbort?: boolean;
  /** NIXL decode drains notifications before its waiting-timeout check (v0.5.17+, #32267); derived when absent. */
  drainsBeforeTimeout?: boolean;
  bootstrapTimeoutS: number;
  waitingTimeoutS: number;
  /** Whether the ragged index-K accessors wait for their HiCache layer (#22811 and later). */
  indexKRaggedAccessorsWait: boolean;
  /** Index-K bytes per token the pool was sized with, when the run says so. */
  indexKBytesPerTokenConfigured?: number;
  /** Host (HiCache) index-K page stride in bytes, when the run says so. */
  hostIndexKPageStride?: number;
  maxContext?: number;
  /** Rows `b` of the indexer logits buffer addressed as `b * max_seq_len + t` (int32); see indexK.ts. */
  indexerLogitRows?: number;
}

/**
 * What the replay feeds the model: stored events as they are. The model
 * decodes the kinds it reads (analyzer/events) and its handlers see only
 * typed DomainEvents.
 */
export type ModelEvent = StoredEvent;

/** Where and when an event happened: what the model's state keeps of the event it is handling (a stored or a decoded one). */
export type EventPlace = Pick<Envelope, "seq" | "tsUs" | "tsInferred" | "host" | "role" | "dp" | "pp" | "tp"> & { readonly kind: string };

/** Stable check ids; they match the rule ids of DESIGN.md where a rule consumes them. */
export type CheckId =
  | "read-before-landed-write"
  | "hicache-ungated-read"
  | "unhandled-abort"
  | "stale-slot-reuse"
  | "incomplete-completion"
  | "transfer-stall"
  | "collective-divergence"
  | "metadata-collision"
  | "pool-sizing-mismatch"
  | "address-overflow";

export interface Violation {
  check: CheckId;
  /** The event at which the check failed. */
  seq: number;
  tsUs: number;
  room?: string;
  /** Like "decode/tp3" or "p0/prefill/tp3". */
  rank?: string;
  /** The seqs that prove it, in the order a reader should check them. */
  witness: number[];
  message: string;
  detail: Record<string, unknown>;
}

/** How much of a check the evidence allowed; undetermined names what was missing. */
export interface CheckCoverage {
  check: CheckId;
  checked: number;
  undetermined?: string;
}

/**
 * State a later line implies (a timeout "after 300.0s in KVPoll.WaitingForInput"
 * puts its room in WaitingForInput 300 s before it; a batch line's gauge counts
 * rooms in a queue): shown in time travel, marked as resting on that line.
 */
export interface Inferred {
  /** Since when (µs) the line implies the state. */
  since: number;
  /** The line the inference rests on. */
  seq: number;
  reason: string;
}

export interface RoomView {
  room: string;
  /** Set when the room's state (or a side of it) is inferred from a later line, not replayed. */
  inferred?: Inferred;
  /** What the model had to assume to apply the room's observed events (a bootstrap it did not see, pages known only from a free). */
  assumed?: string[];
  prefill: { state: KVPollValue | null; ranks: string[]; chunksPosted: number; chunksDone: number; queue: number | null; changedAt: number | null };
  decode: { state: KVPollValue | null; ranks: string[]; chunksNotified: number; auxReceived: boolean; pages: [number, number][]; changedAt: number | null };
}

export interface PageView {
  /** The rank whose pool holds the page (pages are per rank). */
  rank: string;
  buffer: string;
  /** -1: the entry covers every layer (transfers and HiCache loads write all layers). */
  layer: number;
  page: number;
  ownerRoom: string | null;
  lastWriter: { room: string; chunk: number | null; epoch: number; seq: number } | null;
  landed: boolean;
  changedAt: number;
}

/** Which page a `page.dump` record dumped: its place in the incident and in the room's sequence. */
export interface DumpedPageKey {
  /** The index record's seq. */
  seq: number;
  room: string;
  side: string;
  buffer: string;
  layer: number;
  /** The page index in the dumping side's pool. */
  page: number;
  /** The page's position in the room's sequence. */
  pos: number;
  dtype: IndexKDtype;
}

/** A dumped page (a `page.dump` record with its bytes) as the page kernels left it (pageKernels.ts). */
export interface DumpedPageView extends DumpedPageKey {
  rank: string;
  /** Its length in bytes. */
  bytes: number;
  /** A whole page of its dtype (8,448 B fp8, 16,384 B bf16). */
  pageSized: boolean;
  /** The dump's own checksum against the one recomputed over its bytes. */
  checksum: { algo: string; stated: string; recomputed: string; agrees: boolean } | null;
  /** Rows with a value that decodes to no finite number (fp8 NaN bytes, non-finite scales, bf16 NaN/inf). */
  nonFiniteRows: number[];
  /** A decode page compared with prefill's page of its (room, buffer, layer, pos), once both were dumped. */
  pair: { prefillSeq: number; equal: boolean; differingRows: number[] } | null;
}

export interface ModelStateView {
  /** The last event applied. */
  atSeq: number;
  profile: Profile;
  rooms: RoomView[];
  pages: PageView[];
  /** Pages dumped so far, their bytes through the kernels. */
  dumpedPages: DumpedPageView[];
  /**
   * Transfer queue depths; an inferred entry is a batch line's gauge (`gauge`:
   * "#transfer-req", "#inflight-req", "#bootstrap-req"; queue -1): rooms the
   * line counts, which the replay may not know by name.
   */
  queues: { rank: string; queue: number; depth: number; changedAt: number; gauge?: string; inferred?: Inferred }[];
  bootstrapThreads: { rank: string; alive: boolean; changedAt: number | null; error?: string }[];
  hicacheSlots: { rank: string; slot: number; layersDone: number; layers: number; consumer: boolean; changedAt: number }[];
  collectives: { rank: string; group: string; seq: number; op: string; site: string; inside: boolean; changedAt: number }[];
  /**
   * The model's decision on each group that split so far (collectives.ts):
   * `where` (host and role) and `name` make `group`; `ranks` the majority,
   * in `op` #`seq`; `culprits` every rank of the minority. Ranks yet to enter
   * the seq are named only when the records end (the replay's finish).
   */
  collectiveDivergences: { group: string; where: string; name: string; seq: number; kind: string; op: string; ranks: string[]; culprits: string[]; changedAt: number }[];
}

/** What the replay drives. One instance per replay; `snapshot` and `restoreModel` make time travel cheap. */
export interface ReplayModel {
  readonly profile: Profile;
  /**
   * Apply one event in seq order; returns the violations it revealed (often
   * none: then a shared frozen empty array, so copy before mutating). A
   * `page.dump` record comes with its page's bytes, read by the replay
   * through the store.
   */
  apply(ev: ModelEvent, pageBytes?: Uint8Array): Violation[];
  /** The page kernels' pages, verdicts and pairs so far (pageKernels.ts). */
  pageKernels(): PageKernels<ModelDumpedPage>;
  /** Called once after the last event: timeouts and stalls that only the end reveals. */
  finish(lastTsUs: number): Violation[];
  /** Every post landed since the model was created (not since a snapshot it was restored from), with what landed it. */
  landings(): LandingColumns;
  coverage(): CheckCoverage[];
  view(filter?: { room?: string }): ModelStateView;
  /** JSON-serialisable state; restoreModel(profile, snapshot) continues exactly where this left off. */
  snapshot(): unknown;
  /**
   * How much a snapshot would hold now: rooms, tracked pages and writes in
   * flight. A count of the state, so unlike encoded bytes it is the same on
   * every run.
   */
  liveState(): number;
}
