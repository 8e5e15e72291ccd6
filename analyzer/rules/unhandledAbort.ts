// unhandled-abort: decode sends `ABORT` frames (since #27372, v0.5.13) but the
// NIXL prefill bootstrap thread of v0.5.13–v0.5.15 has no handler: the frame
// fails the GUARD assertion and the (non-daemon) thread dies; from then on the
// rank never takes metadata, so new rooms stay Bootstrapping on prefill and
// time out in WaitingForInput on decode (sglang-pd-logs-and-protocol.md §7.1,
// UNVERIFIED at runtime there; Mooncake handles ABORT, §7.2).

import { LogKind } from "../../ingest/event.js";
import type { StoredEvent } from "../../ingest/store/queries.js";
import { attrString, isoTime, uniqueEvents, type Evidence } from "./evidence.js";
import { abortHandlingFor } from "../model/profile.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleContext, type RuleResult } from "./rule.js";
import { timeoutEvents } from "./transferStall.js";

const GUARD_ASSERT = /First message should be/;

export const unhandledAbort: Rule = {
  id: "unhandled-abort",
  needs: [
    "ABORT frames: probe boot.msg kind=ABORT, or decode `Sent abort notification` lines",
    "the bootstrap thread's end: `Exception in thread … bootstrap_thread` traceback or probe boot.exit",
    "config: backend and version (which versions handle ABORT)",
  ],
  run(ctx): RuleResult {
    const { evidence } = ctx;
    const aborts = abortFrames(evidence);
    const deaths = threadDeaths(evidence);
    const handling = handlingOf(ctx);
    if (deaths.length > 0) {
      return { checked: aborts.length + deaths.length, findings: deaths.map((d) => deathFinding(evidence, d, aborts, handling)) };
    }
    const handled = evidence.ofKinds(LogKind.abortReceived, LogKind.abortAckSent);
    if (aborts.length === 0 && handled.length === 0) {
      return consistent("unhandled-abort", "No ABORT frame reached a prefill bootstrap thread",
        "The incident records no ABORT sent by decode or taken by a prefill bootstrap thread, and no bootstrap thread ended.", 0);
    }
    if (handled.length > 0 || handling === "failed-no-ack" || handling === "failed-ack") {
      return consistent("unhandled-abort", `${Math.max(aborts.length, handled.length)} ABORT frame(s) handled by prefill`,
        `Prefill handled the ABORT frames (${handled.length} handler line(s)${handling ? `; the profile's bootstrap thread handles ABORT: ${handling}` : ""}) and no bootstrap thread ended.`,
        Math.max(aborts.length, handled.length));
    }
    return undetermined("unhandled-abort", `${aborts.length} ABORT frame(s) sent; whether prefill survived them is unknown`,
      [handling ? "prefill stderr (`Exception in thread`) or probe boot.exit" : "config: backend and version", "prefill bootstrap-thread debug lines"],
      `Decode sent ABORT (${evidence.where(aborts[0]!)}) but nothing shows whether the prefill bootstrap thread handled it or died.`, aborts.length);
  },
};

/** How the profile's bootstrap thread answers ABORT, when the incident states its backend and version. */
function handlingOf(ctx: RuleContext): string | undefined {
  const { replay } = ctx;
  if (replay?.stated.includes("backend") && replay.stated.includes("version")) return replay.profile.abortHandling;
  const config = ctx.evidence.config();
  const backend = config.str("backend", "prefill");
  const version = config.str("version", "prefill");
  return (backend === "nixl" || backend === "mooncake") && version !== undefined ? abortHandlingFor(backend, version) : undefined;
}

/** ABORT frames as prefill took them (probe) or as decode sent them (debug log). */
function abortFrames(evidence: Evidence): StoredEvent[] {
  const taken = evidence.of("boot.msg").filter((e) => attrString(e, "kind") === "ABORT");
  return taken.length > 0 ? taken : evidence.of(LogKind.abortSent).filter((e) => e.attrs?.failed !== true);
}

function threadDeaths(evidence: Evidence): StoredEvent[] {
  const exits = evidence.of("boot.exit");
  const exceptions = evidence.of(LogKind.exception).filter((e) => /bootstrap_thread/.test(attrString(e, "thread") ?? ""));
  const perRank = new Map<string, StoredEvent>();
  for (const ev of [...exits, ...exceptions].sort((a, b) => a.seq - b.seq)) {
    const rank = evidence.rank(ev);
    if (!perRank.has(rank)) perRank.set(rank, ev);
  }
  return [...perRank.values()];
}

function deathFinding(evidence: Evidence, death: StoredEvent, aborts: StoredEvent[], handling: string | undefined): DraftFinding {
  const rank = evidence.rank(death);
  const abort = abortBefore(evidence, death, aborts);
  const stalled = stalledAfter(evidence, death);
  const guard = GUARD_ASSERT.test(death.text) || GUARD_ASSERT.test(attrString(death, "excMessage") ?? attrString(death, "error") ?? "");
  const witness = uniqueEvents([...(abort ? [abort] : []), death, ...(stalled[0] ? [stalled[0].ev] : [])]);
  const cause = abort
    ? `an ABORT frame for room ${abort.room ?? "?"} reached it (${evidence.where(abort)})`
    : "no ABORT frame is recorded before it";
  const profileNote = handling === "fatal-assert" ? ", the behaviour of NIXL prefill v0.5.13–v0.5.15 (§7.1)" : "";
  return {
    rule: "unhandled-abort",
    severity: abort ? "critical" : "high",
    verdict: "violated",
    title: `Prefill bootstrap thread on ${rank} died${abort ? " on an unhandled ABORT" : ""}; ${stalled.length} room(s) stalled after it`,
    ...(abort?.room && { room: abort.room }),
    ranks: [rank],
    tsUs: death.tsUs,
    witness,
    explanation:
      `Let the prefill bootstrap thread on ${rank} take frames from decode; ${cause}. ` +
      `Then the thread must handle the frame and keep taking metadata (§7.1), ` +
      `but it ended at ${evidence.where(death)}${guard ? " failing the GUARD assertion (`First message should be …`)" : ""}${profileNote}. ` +
      (stalled.length > 0
        ? `From ${isoTime(death.tsUs)} on no new room can bootstrap: ${stalled.length} room(s) that started later timed out, the first at ${evidence.where(stalled[0]!.ev)}.`
        : "No room that started after it is recorded as timing out.") ,
    falsify: "Repeat the mass abort on NIXL prefill ≥ v0.5.16 (ABORT handled, #30352) or on Mooncake; the bootstrap thread must survive and new rooms must bootstrap.",
    checked: aborts.length,
    facts: { deadRank: rank, deathUs: death.tsUs, abortSeen: abort !== undefined, stalledRooms: stalled.map((s) => s.room), handling },
  };
}

/** The ABORT that preceded the death: taken by that rank, else the last one sent before it. */
function abortBefore(evidence: Evidence, death: StoredEvent, aborts: StoredEvent[]): StoredEvent | undefined {
  const before = aborts.filter((a) => a.seq < death.seq);
  return before.filter((a) => evidence.rank(a) === evidence.rank(death)).at(-1) ?? before.at(-1);
}

/** Rooms whose first record follows the death and that later timed out. */
function stalledAfter(evidence: Evidence, death: StoredEvent): { room: string; ev: StoredEvent }[] {
  const firstSeq = evidence.db.prepare("SELECT MIN(seq) AS s FROM events WHERE room = ?");
  return timeoutEvents(evidence)
    .filter((t): t is typeof t & { room: string } => t.room !== undefined && t.ev.seq > death.seq)
    .filter((t) => ((firstSeq.get(t.room) as { s: number }).s ?? 0) > death.seq)
    .map((t) => ({ room: t.room, ev: t.ev }));
}
