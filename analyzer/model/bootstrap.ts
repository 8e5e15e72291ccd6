// The prefill bootstrap thread (one per prefill rank): which frames it takes
// and what ABORT does per backend and version
// (docs/protocol.md §7.1, §7.2; docs/hicache-indexk.md §4 #30352).

import type { AbortHandling } from "./api.js";
import type { Backend } from "../../domain/vocabulary.js";

/** A frame's first part, as the thread dispatches on it. */
export type BootFrame = "register" | "meta" | "ABORT" | "WATERMARK" | "STAGING_RSP" | "foreign";

export interface FrameOutcome {
  /** The frame was handled (the thread was alive and knew it). */
  handled: boolean;
  /** The thread ended on this frame. */
  died: boolean;
  /** For ABORT: the room is marked Failed. */
  roomFailed: boolean;
  /** For ABORT: an ABORT_ACK goes back to decode (Mooncake only, legacy 2-frame form). */
  ack: boolean;
}

const NOTHING: FrameOutcome = { handled: false, died: false, roomFailed: false, ack: false };

/** NIXL's GUARD assertion text (§7.1), used in messages. */
export const GUARD_ASSERTION = 'assert waiting_req_bytes[0] == GUARD, f"First message should be {GUARD}. Foreign traffic?"';

export function frameFromName(kind: string): BootFrame {
  switch (kind) {
    case "register":
    case "meta":
    case "ABORT":
    case "WATERMARK":
    case "STAGING_RSP":
      return kind;
    case "abort":
      return "ABORT";
    case "metadata":
      return "meta";
    default:
      return "foreign";
  }
}

export class BootstrapThread {
  alive = true;
  diedSeq: number | null = null;
  /** When it died (µs), as the event that ended it carries. */
  diedTsUs: number | null = null;
  /** What established the death: the profile's modelled assertion, or a logged exception / probe boot.exit. */
  basis: "profile" | "log" | null = null;
  error: string | null = null;
  changedSeq: number | null = null;
  /** Times a processed frame contradicted a death the model had assumed. */
  contradicted = 0;
  /** The event that carried the last ABORT to this thread (decode's abort or timeout, or a probe boot.msg). */
  abortSeq: number | null = null;
  /** The first ABORT the thread took as its own probe records it (boot.msg kind=ABORT), and its room. */
  taken: { seq: number; room: string } | null = null;
  /** The first ABORT decode sent to this rank, and its room. */
  sent: { seq: number; room: string } | null = null;
  /** An end whose record has no time of its own (a traceback): reported at an end with its own time, or at the end of the replay. */
  pendingEnd: { seq: number; tsUs: number; error: string } | null = null;
  /** The death was reported (once per thread). */
  reported = false;

  constructor(readonly rank: number) {}

  /**
   * The thread takes one frame. NIXL: ABORT is handled from v0.5.16 (Failed,
   * no ACK: a TODO in the source); before that, and for any foreign frame, the
   * GUARD assertion raises and the (non-daemon) thread ends. Mooncake: ABORT
   * marks the room Failed and answers ABORT_ACK. The thread death in
   * v0.5.13–v0.5.15 is UNVERIFIED at runtime per the reference (derived from code).
   */
  take(backend: Backend, handling: AbortHandling, frame: BootFrame, seq: number): FrameOutcome {
    if (!this.alive) return NOTHING;
    if (frame === "ABORT") {
      this.abortSeq = seq;
      if (handling === "fatal-assert") return this.die(seq, "profile", `ABORT frame failed the GUARD assertion: ${GUARD_ASSERTION}`);
      this.changedSeq = seq;
      return { handled: true, died: false, roomFailed: true, ack: handling === "failed-ack" };
    }
    if (frame === "foreign" && backend === "nixl") {
      return this.die(seq, "profile", `foreign frame failed the GUARD assertion: ${GUARD_ASSERTION}`);
    }
    return { handled: frame !== "foreign", died: false, roomFailed: false, ack: false };
  }

  /** The thread ended: an `Exception in thread` record or a probe boot.exit says so. */
  observedExit(seq: number, error: string): boolean {
    const wasAlive = this.alive;
    this.alive = false;
    this.basis = "log";
    this.error = error;
    this.changedSeq = seq;
    if (wasAlive) this.diedSeq = seq;
    return wasAlive;
  }

  /**
   * The thread processed a frame (a `got info` / `is bootstrapped` line or a
   * probe boot.msg) while the model held it dead: the evidence wins.
   */
  sawAlive(seq: number): boolean {
    if (this.alive) return false;
    this.alive = true;
    this.contradicted++;
    this.changedSeq = seq;
    this.diedSeq = null;
    this.basis = null;
    this.error = null;
    return true;
  }

  private die(seq: number, basis: "profile" | "log", error: string): FrameOutcome {
    this.alive = false;
    this.diedSeq = seq;
    this.basis = basis;
    this.error = error;
    this.changedSeq = seq;
    return { handled: false, died: true, roomFailed: false, ack: false };
  }

  encode(): unknown[] {
    return [
      this.rank, this.alive ? 1 : 0, this.diedSeq, this.basis, this.error, this.changedSeq, this.contradicted, this.abortSeq,
      this.taken && [this.taken.seq, this.taken.room], this.sent && [this.sent.seq, this.sent.room],
      this.pendingEnd && [this.pendingEnd.seq, this.pendingEnd.tsUs, this.pendingEnd.error], this.reported ? 1 : 0, this.diedTsUs,
    ];
  }

  static decode(a: unknown[]): BootstrapThread {
    const t = new BootstrapThread(a[0] as number);
    t.alive = a[1] === 1;
    t.diedSeq = a[2] as number | null;
    t.basis = a[3] as "profile" | "log" | null;
    t.error = a[4] as string | null;
    t.changedSeq = a[5] as number | null;
    t.contradicted = a[6] as number;
    t.abortSeq = a[7] as number | null;
    const taken = a[8] as [number, string] | null;
    const sent = a[9] as [number, string] | null;
    const pending = a[10] as [number, number, string] | null;
    t.taken = taken && { seq: taken[0], room: taken[1] };
    t.sent = sent && { seq: sent[0], room: sent[1] };
    t.pendingEnd = pending && { seq: pending[0], tsUs: pending[1], error: pending[2] };
    t.reported = a[11] === 1;
    t.diedTsUs = a[12] as number | null;
    return t;
  }
}
