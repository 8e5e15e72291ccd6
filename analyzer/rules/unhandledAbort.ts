// unhandled-abort: decode sends `ABORT` frames (since #27372, v0.5.13) but the
// NIXL prefill bootstrap thread of v0.5.13–v0.5.15 has no handler: the frame
// fails the GUARD assertion and the (non-daemon) thread dies; from then on the
// rank never takes metadata, so new rooms stay Bootstrapping on prefill and
// time out in WaitingForInput on decode (docs/protocol.md §7.1,
// UNVERIFIED at runtime there; Mooncake handles ABORT, §7.2).

import { LogKind } from "../../domain/kinds.js";
import type { StoredEvent } from "../../store/read/events.js";
import { roomFirstRecord } from "../../store/read/seqs.js";
import { decodeAs } from "../events/decode.js";
import { isoTime, uniqueEvents, type Evidence } from "./evidence.js";
import { abortHandlingFor } from "../model/profile.js";
import { serverOfRank } from "../model/ranks.js";
import { consistent, undetermined, type DraftFinding, type Rule, type RuleContext, type RuleResult } from "./rule.js";
import { violationsOf } from "./replayEvidence.js";
import { timeoutEvents } from "./roomTimeouts.js";
import { stoppedRequests } from "../telemetry/spans.js";
import { TRACE_QUIET_US } from "./telemetryWedge.js";

const GUARD_ASSERT = /First message should be/;
/** How far after a traceback's inherited time its thread may really have died. */
const STAMP_SLACK_US = 10_000_000;

export const unhandledAbort: Rule = {
  restsOn: ["backend", "version", "abortHandling"],
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
      return { checked: aborts.length + deaths.length, findings: deaths.map((d) => deathFinding(evidence, d, abortsBehind(ctx, d, aborts), handling)) };
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
  const taken = evidence.of("boot.msg").filter((e) => decodeAs(e, "boot.msg")!.frame === "ABORT");
  return taken.length > 0 ? taken : evidence.of(LogKind.abortSent).filter((e) => decodeAs(e, LogKind.abortSent)!.failed !== true);
}

interface Deaths {
  /** The prefill instance ("p0/prefill", or "prefill"). */
  instance: string;
  /** The first record of each dead rank's end: those with a time of their own first, then in seq order. */
  perRank: { rank: string; ev: StoredEvent }[];
  /** The tracebacks of the deaths as the logs show them, by rank. */
  tracebacks: Map<string, StoredEvent>;
}

/**
 * A traceback carries no time of its own (its time is inferred from the lines
 * around it), so it cannot say which rank died first: records with their own
 * time (a probe's boot.exit) come first, then seq order.
 */
function byEvidenceOrder(a: StoredEvent, b: StoredEvent): number {
  return Number(a.tsInferred) - Number(b.tsInferred) || a.seq - b.seq;
}

/** Bootstrap-thread ends (probe boot.exit, `Exception in thread … (bootstrap_thread)`), by prefill instance. */
function threadDeaths(evidence: Evidence): Deaths[] {
  const exits = evidence.of("boot.exit");
  const exceptions = evidence.of(LogKind.exception).filter((e) => /bootstrap_thread/.test(decodeAs(e, LogKind.exception)!.thread ?? ""));
  const groups = new Map<string, Deaths>();
  for (const ev of [...exits, ...exceptions].sort(byEvidenceOrder)) {
    const rank = evidence.rank(ev);
    const instance = serverOfRank(rank);
    const g: Deaths = groups.get(instance) ?? { instance, perRank: [], tracebacks: new Map() };
    groups.set(instance, g);
    if (!g.perRank.some((d) => d.rank === rank)) g.perRank.push({ rank, ev });
    if (ev.kind === LogKind.exception && !g.tracebacks.has(rank)) g.tracebacks.set(rank, ev);
  }
  return [...groups.values()];
}

/**
 * The ABORT behind each dead rank's thread, decided as the replay decides it
 * (model/abortPath.ts abortBehind): the replay's own answer when one ran,
 * else the same order read off the records — the first ABORT that rank's
 * thread took (probe boot.msg), else the first decode sent to its TP peer,
 * else the last one sent before the death.
 */
function abortsBehind(ctx: RuleContext, deaths: Deaths, aborts: StoredEvent[]): Map<string, StoredEvent | undefined> {
  const { evidence, replay } = ctx;
  const out = new Map<string, StoredEvent | undefined>();
  const modelled = violationsOf(replay, "unhandled-abort");
  for (const { rank, ev } of deaths.perRank) {
    const v = modelled.find((x) => x.rank === rank);
    if (replay) {
      out.set(rank, typeof v?.detail.abortSeq === "number" ? evidence.event(v.detail.abortSeq) : undefined);
      continue;
    }
    // A death of unknown time (a file with no dated line) may follow any ABORT.
    const before = ev.timeless ? aborts : aborts.filter((a) => a.seq < ev.seq || a.tsUs <= ev.tsUs + (ev.tsInferred ? STAMP_SLACK_US : 0));
    const tp = rank.slice(rank.lastIndexOf("/tp"));
    const taken = before.find((a) => a.kind === "boot.msg" && evidence.rank(a) === rank);
    const sent = before.find((a) => a.kind !== "boot.msg" && evidence.rank(a).endsWith(tp));
    out.set(rank, taken ?? sent ?? before.at(-1));
  }
  return out;
}

function deathFinding(evidence: Evidence, deaths: Deaths, behind: Map<string, StoredEvent | undefined>, handling: string | undefined): DraftFinding {
  const first = deaths.perRank[0]!.ev;
  const ranks = deaths.perRank.map((d) => d.rank).sort();
  const abort = behind.get(deaths.perRank[0]!.rank);
  const abortRooms = [...new Set(deaths.perRank.flatMap((d) => behind.get(d.rank)?.room ?? []))];
  const perRank = deaths.perRank.length > 1
    ? ` Each thread's ABORT: ${deaths.perRank.map((d) => { const a = behind.get(d.rank); return `${d.rank} room ${a?.room ?? "?"}${a ? ` (${evidence.where(a)})` : ""}`; }).join(", ")}.`
    : "";
  const stalled = stalledAfter(evidence, first);
  const proof = deaths.tracebacks.get(deaths.perRank[0]!.rank) ?? deaths.tracebacks.values().next().value ?? first;
  const ended = decodeAs(first, "boot.exit", LogKind.exception)!;
  const guard = GUARD_ASSERT.test(proof.text) || GUARD_ASSERT.test((ended.kind === LogKind.exception ? ended.excMessage ?? ended.error : ended.error) ?? "");
  const witness = uniqueEvents([...(abort ? [abort] : []), first, proof, ...(stalled[0] ? [stalled[0].ev] : [])]);
  const cause = abort ? `an ABORT frame for room ${abort.room ?? "?"} reached it (${evidence.where(abort)})` : "no ABORT frame is recorded before it";
  const profileNote = handling === "fatal-assert" ? ", as NIXL prefill v0.5.13–v0.5.15 does (docs/protocol.md §7.1)" : "";
  const others = ranks.length > 1 ? ` The bootstrap threads of ${ranks.length} ranks died this way (${ranks.join(", ")}).` : "";
  return {
    rule: "unhandled-abort",
    severity: abort ? "critical" : "high",
    verdict: "violated",
    title: `Prefill bootstrap thread${ranks.length > 1 ? `s of ${ranks.length} ranks` : ""} on ${deaths.instance} died${abort ? " on an unhandled ABORT" : ""}; ${stalled.length} room(s) stalled after`,
    ...(abort?.room && { room: abort.room }),
    ...(abortRooms.length > 1 && { rooms: abortRooms }),
    ranks,
    ...(!first.timeless && { tsUs: first.tsUs }),
    witness: uniqueEvents([...witness, ...deaths.perRank.slice(1, 4).flatMap((d) => behind.get(d.rank) ?? [])]),
    explanation:
      `Let the prefill bootstrap thread on ${deaths.perRank[0]!.rank} take frames from decode; ${cause}. ` +
      `Then the thread must handle the frame and keep taking metadata (docs/protocol.md §7.1), ` +
      `but it ended at ${evidence.where(first)}${guard ? ` failing the GUARD assertion (\`First message should be …\`, ${evidence.where(proof)})` : ""}${profileNote}.${others}${perRank} ` +
      (stalled.length > 0
        ? `From ${first.timeless ? "its death (its time unknown: no line of its file is dated)" : isoTime(first.tsUs)} on no new room can bootstrap there: ${stalled.length} room(s) that started later timed out or stopped short of their finish, the first at ${evidence.where(stalled[0]!.ev)}.`
        : "No room that started after it is recorded as timing out or stopping short of its finish."),
    falsify: "Repeat the mass abort on NIXL prefill ≥ v0.5.16 (ABORT handled, #30352) or on Mooncake; the bootstrap thread must survive and new rooms must bootstrap.",
    checked: ranks.length,
    count: ranks.length,
    because: [...(abort ? [{ cause: abort, effect: first }] : []), ...(stalled[0] ? [{ cause: first, effect: stalled[0].ev }] : [])],
    facts: { deadRanks: ranks, deathUs: first.tsUs, abortSeen: abort !== undefined, stalledRooms: stalled.map((x) => x.room), handling, abortRoomByRank: Object.fromEntries(deaths.perRank.map((d) => [d.rank, behind.get(d.rank)?.room ?? null])) },
  };
}

/** Rooms whose first record follows the death and that later timed out, or whose trace stopped, once each. */
function stalledAfter(evidence: Evidence, death: StoredEvent): { room: string; ev: StoredEvent }[] {
  const out = new Map<string, StoredEvent>();
  const waited = [
    ...timeoutEvents(evidence).flatMap((t) => (t.room === undefined ? [] : [{ room: t.room, ev: t.ev }])),
    ...stoppedRequests(evidence, TRACE_QUIET_US).flatMap((r) => (r.room === null ? [] : [{ room: r.room, ev: r.lastProgress }])),
  ];
  for (const t of waited) {
    if (t.ev.seq < death.seq || out.has(t.room)) continue;
    if ((roomFirstRecord(evidence.db, t.room)?.seq ?? -1) > death.seq) out.set(t.room, t.ev);
  }
  return [...out].map(([room, ev]) => ({ room, ev }));
}
