// The ReplayModel: dispatches each stored event to the piece of the PD path
// it concerns, collects the violations with their witnesses, and keeps
// coverage, the state view and snapshots. `apply` is the hot path: one map
// lookup on the kind, nothing allocated for kinds the model ignores.

import type { CheckCoverage, ModelEvent, ModelStateView, Profile, ReplayModel, Violation } from "./api.js";
import { LogKind, TelemetryKind } from "../../domain/kinds.js";
import { onTraceSpan } from "./tracePath.js";
import type { KnownKind } from "../../domain/kinds.js";
import { EventDecoder } from "../events/decode.js";
import type { DomainEvent, EventOf } from "../../domain/domainEvent.js";
import {
  onAbortAckSent,
  onAbortReceived,
  onAbortSent,
  onBootExit,
  onBootMsg,
  onBootstrapped,
  onGotInfo,
  onLogException,
  onRegister,
  onRequestAbort,
  onRequestArrive,
  reportPendingDeaths,
} from "./abortPath.js";
import { checkProfileAtEnd, onConfig } from "./configPath.js";
import { onHicacheLayer, onHicacheLoad, onHicacheWait, onKernelRead, onKernelStore, onKvAlloc, onKvFree } from "./memoryPath.js";
import { onCollEnter, onCollExit, onSchedIter, reportDivergence } from "./schedulerPath.js";
import { decodeState, encodeState } from "./snapshot.js";
import { CHECKS, ModelState, NO_VIOLATIONS, SEEN } from "./state.js";
import { onFailureLine, onRoomTimeout } from "./stalls.js";
import { fireTimeouts, stuckOnDeadThreads } from "./timeouts.js";
import {
  onContextCorruption,
  onKvDone,
  onKvMeta,
  onKvNotify,
  onKvPoll,
  onKvPost,
  onKvTimeout,
  onMetadataNotReady,
  onNotifSent,
  onTransferError,
} from "./transferPath.js";
import { buildView } from "./view.js";
import { onPageDump, type ModelDumpedPage } from "./pagePath.js";
import type { PageKernels } from "./pageKernels.js";
import type { LandingColumns } from "./transferPairing.js";

/** One handler per kind the model reads, typed by that kind's decoded event. */
type Handlers = { [K in KnownKind]?: (s: ModelState, ev: EventOf<K>) => void };

/** Kinds the model reads; every other kind (batch lines, access logs, checksums, unparsed lines) is skipped undecoded. */
const HANDLED: Handlers = {
  "req.arrive": onRequestArrive,
  "req.abort": onRequestAbort,
  "kv.alloc": onKvAlloc,
  "kv.free": onKvFree,
  "kv.meta": onKvMeta,
  "kv.post": onKvPost,
  "kv.done": onKvDone,
  "kv.notify": onKvNotify,
  "kv.poll": onKvPoll,
  "kv.timeout": onKvTimeout,
  "boot.msg": onBootMsg,
  "boot.exit": onBootExit,
  "hicache.load": onHicacheLoad,
  "hicache.layer": onHicacheLayer,
  "hicache.wait": onHicacheWait,
  "kernel.store": onKernelStore,
  "kernel.read": onKernelRead,
  "sched.iter": onSchedIter,
  "coll.enter": onCollEnter,
  "coll.exit": onCollExit,
  [LogKind.config]: onConfig,
  [LogKind.handshakeFailed]: onFailureLine,
  [LogKind.transferFailed]: onFailureLine,
  [LogKind.bootstrapFailed]: onFailureLine,
  [LogKind.roomTimeout]: onRoomTimeout,
  [LogKind.contextCorruption]: onContextCorruption,
  [LogKind.metadataNotReady]: onMetadataNotReady,
  [LogKind.notifSent]: onNotifSent,
  [LogKind.gotInfo]: onGotInfo,
  [LogKind.bootstrapped]: onBootstrapped,
  [LogKind.registerKvArgs]: onRegister,
  [LogKind.abortReceived]: onAbortReceived,
  [LogKind.abortSent]: onAbortSent,
  [LogKind.abortAckSent]: onAbortAckSent,
  [LogKind.abortRequest]: onRequestAbort,
  [LogKind.transportError]: onTransferError,
  [LogKind.exception]: onLogException,
  [TelemetryKind.span]: onTraceSpan,
};

/** The same table for the hot path: a handler is called with its event decoded (EventDecoder) as its own kind. */
const HANDLERS = new Map(Object.entries(HANDLED) as [string, (s: ModelState, ev: DomainEvent) => void][]);

/** Every this many events: retire settled rooms, drop pages that hold nothing. */
const HOUSEKEEPING_MASK = 16383;
/** Settled rooms stay visible this long (µs of incident time) before they retire. */
export const ROOM_RETIRE_US = 10e6;
/** Ranks inside a collective this long at the end, with a peer missing, are a divergence. */
export const COLLECTIVE_HANG_US = 10e6;

/**
 * How long a room decode gave up on is remembered when prefill never showed
 * it: twice the longer PD timeout, since prefill may post a room's transfer a
 * whole timeout after decode freed its pages.
 */
function lateWriteHorizonUs(p: Profile): number {
  return 2 * Math.max(p.waitingTimeoutS, p.bootstrapTimeoutS) * 1e6;
}

export interface ModelOptions {
  /** Qualify rank labels with the host ("d0/decode/tp3"); the replay sets it when hosts differ. */
  qualifyHosts?: boolean;
}

const UNDETERMINED: Record<string, (s: ModelState) => string | undefined> = {
  "read-before-landed-write": (s) =>
    !(s.seen & SEEN.kernelRead) ? "no kernel.read probe records" : !(s.seen & SEEN.post) ? "no kv.post probe records" : undefined,
  "hicache-ungated-read": (s) =>
    !(s.seen & SEEN.hicacheLoad)
      ? s.profile.hicache ? "HiCache is on but there are no hicache.load probe records" : "no hicache.load probe records: no HiCache layer load is in the evidence"
      : !(s.seen & SEEN.kernelRead) ? "no kernel.read probe records" : "no read overlapped a HiCache load",
  "unhandled-abort": () => "no ABORT frame or bootstrap-thread evidence (abort.*, boot.msg, boot.exit, log.exception)",
  "stale-slot-reuse": (s) => (!(s.seen & SEEN.alloc) ? "no kv.alloc/kv.free probe records" : "no kernel.read probe records"),
  "incomplete-completion": () => "no decode kv.poll records or metadata-readiness lines",
  "transfer-stall": () => "no per-room transfer evidence (kv.meta probe records or PD failure lines)",
  "collective-divergence": () => "no coll.enter/coll.exit probe records",
  "metadata-collision": () => "no kv.meta aux_index fields or context-corruption lines",
  "pool-sizing-mismatch": () => "no config record or profile setting with index_k_bytes_per_token or host_index_k_page_stride",
  "address-overflow": () => "no max_context in a config record or the profile",
};

export class PdModel implements ReplayModel {
  /** One reused view: a handler reads its event while it runs and keeps none of it (the replay's cursor is reused too). */
  private readonly decoder = new EventDecoder();

  constructor(private readonly s: ModelState) {}

  get profile(): Profile {
    return this.s.profile;
  }

  apply(ev: ModelEvent, pageBytes?: Uint8Array): Violation[] {
    const s = this.s;
    // The replay's event is a cursor whose fields decode on each read: read the time once.
    const tsUs = ev.tsUs;
    s.out = NO_VIOLATIONS as Violation[];
    s.lastSeq = ev.seq;
    s.lastTsUs = tsUs;
    const kind = ev.kind;
    const h = HANDLERS.get(kind);
    if (h !== undefined) h(s, this.decoder.decode(ev, kind));
    else if (pageBytes !== undefined) onPageDump(s, ev, pageBytes);
    if (tsUs >= s.nextDeadlineUs) fireTimeouts(s, ev);
    if ((++s.applied & HOUSEKEEPING_MASK) === 0) this.housekeeping(tsUs);
    return s.out;
  }

  finish(lastTsUs: number): Violation[] {
    const s = this.s;
    s.out = NO_VIOLATIONS as Violation[];
    const end: ModelEvent = {
      seq: s.lastSeq, tsUs: lastTsUs, tsInferred: false, sourceId: 0, line: 0, host: null, role: null, dp: null, pp: null, tp: null, kind: "end",
      room: null, rid: null, chunk: null, layer: null, pageLo: null, pageHi: null, state: null, attrs: null, text: "",
    };
    fireTimeouts(s, end);
    stuckOnDeadThreads(s, end);
    reportPendingDeaths(s);
    for (const d of s.collectives.finalDecisions((r) => s.ranks.label(r), lastTsUs, COLLECTIVE_HANG_US)) reportDivergence(s, end, d);
    if (!(s.seen & SEEN.config)) checkProfileAtEnd(s, end);
    return s.out;
  }

  coverage(): CheckCoverage[] {
    const s = this.s;
    return CHECKS.map((check, i) => {
      const c: CheckCoverage = { check, checked: s.checked[i]! };
      if (c.checked === 0) {
        const why = UNDETERMINED[check]!(s);
        if (why !== undefined) c.undetermined = why;
      }
      return c;
    });
  }

  landings(): LandingColumns {
    return this.s.landings.columns();
  }

  pageKernels(): PageKernels<ModelDumpedPage> {
    return this.s.pages;
  }

  view(filter?: { room?: string }): ModelStateView {
    return buildView(this.s, filter);
  }

  snapshot(): unknown {
    return encodeState(this.s);
  }

  liveState(): number {
    const { rooms, shadow } = this.s;
    return rooms.size + shadow.pageCount + shadow.writes.live;
  }

  private housekeeping(nowUs: number): void {
    const s = this.s;
    s.rooms.retire(nowUs, ROOM_RETIRE_US, lateWriteHorizonUs(s.profile));
    s.shadow.sweep((rank, id) => {
      const l = s.hicache.get(rank)?.loadById(id);
      return l != null && !l.finished();
    });
  }
}

export function createModel(profile: Profile, options: ModelOptions = {}): ReplayModel {
  return new PdModel(new ModelState(profile, options.qualifyHosts ?? false));
}

/**
 * Continues from `snapshot()`; the profile is the one the snapshot was taken
 * under. `pageBytes` holds the bytes of the pages dumped before it, by
 * pageBytesKey (the replay reads them through the store).
 */
export function restoreModel(profile: Profile, snapshot: unknown, pageBytes: ReadonlyMap<string, Uint8Array> = new Map()): ReplayModel {
  return new PdModel(decodeState(profile, snapshot, pageBytes));
}
