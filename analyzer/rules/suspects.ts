// Ranked root-cause suspects. Each cause lists the findings and settings that
// speak for it, with a weight per piece of evidence; the pieces combine as
// independent indications (noisy-or: 1 - Π(1 - w)), and evidence against the
// cause (a setting that rules it out, an A/B comparison that refutes it)
// scales the result down. The weights encode how directly a finding proves
// the cause: a violated model check or a stale checksum is near-proof, a
// frozen queue only says that something wedged. A cause is ranked only while
// its own rule (checks.ts) is not `consistent`; one whose rule is
// undetermined says so (DESIGN.md "A report agrees with itself").

import { CAUSE_CHECKS } from "./checks.js";
import type { RunConfig } from "./config.js";
import type { Coverage, Suspect } from "./finding.js";
import type { CauseId } from "../../domain/vocabulary.js";
import type { DraftFinding } from "./rule.js";
import { processCrash, transportCase } from "./failureCauses.js";
import { causesOf, ids, roomsOf, timeouts, transportFailures, wedges, type CauseCase, type NumberedFinding, type Of } from "./suspectEvidence.js";

/** What an A/B comparison says about each cause (see diff.ts). */
export interface AbEvidence {
  supports: CauseId[];
  refutes: CauseId[];
  /** One sentence naming the settings and the rates, for the suspect summary. */
  note: string;
}

const MIN_CONFIDENCE = 0.15;

const FALSIFY: Record<CauseId, string> = {
  "overlap-collective-desync":
    "Rerun the same mass abort with --disable-overlap-schedule (event_loop_normal_disagg_*): every rank must take the same branch and the queues must drain.",
  "unhandled-abort":
    "Repeat the mass abort with prefill on SGLang ≥ v0.5.16 (NIXL handles ABORT, #30352) or on Mooncake: the bootstrap thread must survive and new rooms must bootstrap.",
  "hicache-indexk-race": "Disable HiCache at the same load (expect 0% corrupted sessions), or rerun with fp8 index-K at the same concurrency (a narrower window).",
  "stale-slot-reuse":
    "Rerun at the same load with SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1 (decode holds aborted rooms' pages until prefill drains, #35049): stale pages must disappear.",
  "pool-sizing-fp8-hardcoded": "Size the index-K pool for bf16 (256 B/token, 16,384 B host pages) or run fp8 index-K, and compare free memory and HiCache restores.",
  "transfer-saturation":
    "Rerun with fp8 index-K at the same concurrency (half the index-K bytes per room) or with more transfer queues (SGLANG_DISAGGREGATION_QUEUE_SIZE): timeouts must drop.",
  "indexer-address-overflow":
    "Run one request near the maximum context with the indexer at its full row count and compare its top-k with an int64-addressed reference, or cap the context below the first overflowing length.",
  "item-len-mismatch":
    "Run prefill and decode with the same index-K dtype, or a build that addresses the destination with its own item_len: the state pages must land at their own offsets.",
  "uncounted-state-transfer":
    "Request the index-K state in the metadata (non-empty state indices) so that is_done() waits for the state notification: no room may then be read before its state lands.",
  "process-crash":
    "Rerun the same load with the crashed rank's cause removed (memory headroom for an OOM, the hung peer fixed for a watchdog timeout): the rank must stay up and the cluster keep serving.",
  "transport-failure":
    "Rerun the same transfers over a link checked end to end (NIC error counters, the transfer engine's debug log): with a healthy transport the transfers complete and no room fails.",
};

/** What the ranking reads besides the findings. */
export interface SuspectContext {
  config: RunConfig;
  /** Rooms aborted or timed out: each is a release of decode pages before the transfer is known to be done. */
  released: { rooms: Set<string>; count: number };
  /** Each rule's verdict over the incident: a cause is not ranked against its own rule's `consistent`. */
  rules: Coverage["rules"];
  ab?: AbEvidence;
  /** Profile settings the incident states (a flag, a config record, a log line); absent: only config records count. */
  stated?: readonly string[];
  /** A record shows the model keeps an index-K cache (an index-K setting or buffer, an NSA model); otherwise no index-K advice. */
  indexKShown?: boolean;
}

export function rankSuspects(findings: readonly NumberedFinding[], ctx: SuspectContext): Suspect[] {
  const { config, ab } = ctx;
  const violated = findings.filter((f) => f.draft.verdict === "violated");
  const of = (rule: DraftFinding["rule"]): NumberedFinding[] => violated.filter((f) => f.draft.rule === rule);
  const cases: Record<CauseId, CauseCase> = {
    "overlap-collective-desync": overlapDesync(of, config),
    "unhandled-abort": unhandledAbortCase(of),
    "hicache-indexk-race": hicacheRace(of, ctx),
    "stale-slot-reuse": staleReuse(of, ctx),
    "pool-sizing-fp8-hardcoded": poolSizing(of),
    "transfer-saturation": saturation(of, config),
    "indexer-address-overflow": addressOverflowCase(of),
    "item-len-mismatch": itemLenCase(of),
    "uncounted-state-transfer": uncountedState(of),
    "process-crash": processCrash(of),
    "transport-failure": transportCase(of),
  };
  const scored = (Object.entries(cases) as [CauseId, CauseCase][]).map(([cause, c]) => {
    if (ab?.supports.includes(cause) && c.for.length > 0) c.for.push({ weight: 0.3, findings: [], note: `A/B: ${ab.note}` });
    if (ab?.refutes.includes(cause)) c.against.push({ factor: 0.3, note: `A/B: ${ab.note}` });
    const support = 1 - c.for.reduce((p, i) => p * (1 - i.weight), 1);
    const confidence = round2(c.against.reduce((p, a) => p * a.factor, support));
    return { cause, confidence, c, check: ownCheck(cause, ctx.rules) };
  });
  return scored
    .filter((s) => s.confidence >= MIN_CONFIDENCE && s.check.verdict !== "consistent")
    .sort((a, b) => b.confidence - a.confidence)
    .map((s, i) => ({
      rank: i + 1,
      cause: s.cause,
      confidence: s.confidence,
      findings: [...new Set(s.c.for.flatMap((x) => x.findings))],
      summary: [...s.c.for.map((x) => x.note), ...s.c.against.map((a) => `against: ${a.note}`), ...undeterminedNote(s.check)].join("; "),
      falsify: s.c.falsify ?? falsifyOf(s.cause, ctx),
    }));
}

/** Whether the incident states a setting, rather than the analysis assuming its default. */
function isStated(ctx: SuspectContext, field: "indexKDtype" | "overlap", configKey: string): boolean {
  return ctx.stated !== undefined ? ctx.stated.includes(field) : ctx.config.byRole(configKey).length > 0;
}

/**
 * The experiment that would refute a cause. One that changes a setting the
 * incident never stated (the index-K dtype, the overlap schedule) could rest
 * on a guess: it is replaced by the experiment that settles the setting first.
 */
function falsifyOf(cause: CauseId, ctx: SuspectContext): string {
  const dtype = isStated(ctx, "indexKDtype", "index_k_dtype");
  switch (cause) {
    case "transfer-saturation":
      // A model without index-K (or not shown to have one) has no index-K dtype to try.
      if (!ctx.indexKShown) return "Rerun with more transfer queues (SGLANG_DISAGGREGATION_QUEUE_SIZE) at the same concurrency: timeouts must drop.";
      return dtype
        ? FALSIFY[cause]
        : "Rerun with more transfer queues (SGLANG_DISAGGREGATION_QUEUE_SIZE) at the same concurrency: timeouts must drop. The index-K dtype is assumed (no record states it): read it from the launch command before trying a dtype.";
    case "hicache-indexk-race":
      return dtype ? FALSIFY[cause] : "Disable HiCache at the same load: no session may come out corrupted. The index-K dtype is assumed (no record states it): read it from the launch command before comparing dtypes.";
    case "overlap-collective-desync":
      return isStated(ctx, "overlap", "overlap")
        ? FALSIFY[cause]
        : `The overlap schedule is assumed on (no server_args line or config record states it): read --disable-overlap-schedule from the launch command first. ${FALSIFY[cause]}`;
    default:
      return FALSIFY[cause];
  }
}

type RuleCoverage = Coverage["rules"][number];

/** The verdict of the rule whose check is the cause's mechanism. */
function ownCheck(cause: CauseId, rules: Coverage["rules"]): RuleCoverage {
  const rule = CAUSE_CHECKS[cause].rule;
  return rules.find((r) => r.rule === rule) ?? { rule, verdict: "undetermined", checked: 0, missing: [] };
}

/** Why a cause is ranked although its own rule could not decide. */
function undeterminedNote(check: RuleCoverage): string[] {
  if (check.verdict !== "undetermined") return [];
  const missing = check.missing.length ? ` (missing: ${check.missing.join("; ")})` : "";
  return [`${check.rule}, the cause's own check, is undetermined${missing}: the cause rests on these findings alone`];
}

function overlapDesync(of: Of, config: RunConfig): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const div = of("collective-divergence");
  const hangs = div.filter((f) => f.draft.facts?.hang === true);
  const idle = div.filter((f) => ((f.draft.facts?.onIdle as string[] | undefined) ?? []).length > 0);
  if (hangs.length) c.for.push({ weight: 0.7, findings: ids(hangs), note: "ranks of a group deadlocked on a collective some never entered" });
  else if (div.length) c.for.push({ weight: 0.5, findings: ids(div), note: "ranks of a group diverged on a collective" });
  if (idle.length) c.for.push({ weight: 0.3, findings: ids(idle), note: "the culprit ranks branched to on_idle while their peers ran a batch (the overlap loop's asymmetry, docs/hicache-indexk.md §3.5)" });
  if (div.length && wedges(of).length) c.for.push({ weight: 0.1, findings: ids(wedges(of)), note: "the PD queues froze" });
  const overlap = config.bool("overlap");
  if (c.for.length && overlap === true) c.for.push({ weight: 0.1, findings: [], note: "the overlap scheduler was on" });
  if (overlap === false) c.against.push({ factor: 0.2, note: "the overlap scheduler was off" });
  return c;
}

function unhandledAbortCase(of: Of): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const deaths = of("unhandled-abort");
  const onAbort = deaths.filter((f) => f.draft.facts?.abortSeen === true);
  if (onAbort.length) c.for.push({ weight: 0.85, findings: ids(onAbort), note: "a prefill bootstrap thread died on an ABORT frame it does not handle" });
  else if (deaths.length) c.for.push({ weight: 0.5, findings: ids(deaths), note: "a prefill bootstrap thread died" });
  const stalled = deaths.filter((f) => ((f.draft.facts?.stalledRooms as string[] | undefined) ?? []).length > 0);
  if (stalled.length) c.for.push({ weight: 0.3, findings: ids(stalled), note: "rooms that started after the death timed out" });
  if (deaths.length && wedges(of).length) c.for.push({ weight: 0.1, findings: ids(wedges(of)), note: "the PD queues froze" });
  const deadThread = timeouts(of).filter((f) => Number(causesOf(f)["bootstrap-thread-dead"] ?? 0) > 0);
  if (deaths.length && deadThread.length) c.for.push({ weight: 0.2, findings: ids(deadThread), note: "replayed, the rooms timed out because the bootstrap thread was dead" });
  return c;
}

function hicacheRace(of: Of, ctx: SuspectContext): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const ungated = of("hicache-ungated-read");
  if (ungated.length) c.for.push({ weight: 0.8, findings: ids(ungated), note: "an index-K reader did not wait for its HiCache layer load (#22811)" });
  const readOnly = of("checksum-mismatch").filter((f) => mismatchSides(f).every((side) => side === "decode_read"));
  const hicacheOn = ctx.config.byRole("hicache").some((e) => e.value === true);
  if (readOnly.length && hicacheOn) c.for.push({ weight: 0.3, findings: ids(readOnly), note: "decode read index-K that differs from what prefill stored, with HiCache loading pages" });
  if (c.for.length && ctx.config.byRole("index_k_dtype").some((e) => e.value === "bf16")) {
    c.for.push({ weight: 0.05, findings: [], note: "bf16 index-K doubles the bytes per layer load, widening the window" });
  }
  const stated = ctx.config.byRole("hicache");
  if (stated.length > 0 && !hicacheOn) c.against.push({ factor: 0.1, note: "HiCache was off" });
  return c;
}

function staleReuse(of: Of, ctx: SuspectContext): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const reuse = of("stale-slot-reuse");
  if (reuse.length) c.for.push({ weight: 0.8, findings: ids(reuse), note: "decode gave pages still being written for an aborted room to a new room, which read them" });
  const stale = of("checksum-mismatch").filter((f) => Number(f.draft.facts?.stale ?? 0) > 0);
  const fromReleased = stale.filter((f) => staleSources(f).some((room) => ctx.released.rooms.has(room)));
  const received = stale.filter((f) => !fromReleased.includes(f) && hasAttribution(f, "stale", "decode_recv"));
  const readOnly = stale.filter((f) => !fromReleased.includes(f) && !received.includes(f));
  const count = (fs: NumberedFinding[]): number => fs.reduce((n, f) => n + roomsOf(f).length, 0);
  if (fromReleased.length) c.for.push({ weight: 0.7, findings: ids(fromReleased), note: `${count(fromReleased)} room(s) hold index-K of a room decode released early (timed out or aborted)` });
  if (received.length) c.for.push({ weight: 0.6, findings: ids(received), note: `${count(received)} room(s) received another room's index-K (stale checksums after the transfer)` });
  if (readOnly.length) c.for.push({ weight: 0.3, findings: ids(readOnly), note: `${count(readOnly)} room(s) read another room's index-K` });
  const staleBytes = pageMechanism(of, "stale");
  if (staleBytes.length) c.for.push({ weight: 0.6, findings: ids(staleBytes), note: `${count(staleBytes)} room(s) hold another room's index-K byte for byte (page dumps)` });
  const crossRoom = of("read-before-landed-write").filter((f) => f.draft.facts?.crossRoom === true);
  if (crossRoom.length) c.for.push({ weight: 0.4, findings: ids(crossRoom), note: "reads raced a write of another (earlier) room" });
  const t = timeouts(of);
  if (c.for.length && t.length) c.for.push({ weight: 0.1, findings: ids(t), note: "rooms timed out and were aborted, freeing their pages" });
  if (!reuse.length && ctx.released.count === 0) c.against.push({ factor: 0.5, note: "no room was aborted or timed out, so decode released no page early" });
  return c;
}

function poolSizing(of: Of): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const kind = (k: string): NumberedFinding[] => of("pool-sizing-mismatch").filter((f) => f.draft.facts?.kind === k);
  const perToken = kind("bytes-per-token");
  if (perToken.length) c.for.push({ weight: 0.6, findings: ids(perToken), note: "the index-K pool is sized with a smaller row than the buffer holds" });
  const layout = pageMechanism(of, "layout");
  if (layout.length) c.for.push({ weight: 0.4, findings: ids(layout), note: "dumped decode pages hold prefill's page in the other dtype's layout" });
  const stride = kind("host-page-stride");
  if (stride.length) c.for.push({ weight: 0.4, findings: ids(stride), note: "the HiCache host pool copies index-K pages with the fp8 stride" });
  return c;
}

function addressOverflowCase(of: Of): CauseCase {
  const overflow = of("address-overflow");
  return { for: overflow.length ? [{ weight: 0.5, findings: ids(overflow), note: "the indexer's int32 logits address overflows at the configured context" }] : [], against: [] };
}

function itemLenCase(of: Of): CauseCase {
  const itemLen = of("pool-sizing-mismatch").filter((f) => f.draft.facts?.kind === "item-len");
  const c: CauseCase = { for: itemLen.length ? [{ weight: 0.5, findings: ids(itemLen), note: "prefill posts index-K pages with its own item_len into decode pages of another size" }] : [], against: [] };
  const shifted = pageMechanism(of, "item-length");
  if (shifted.length) c.for.push({ weight: 0.7, findings: ids(shifted), note: "dumped decode pages are prefill's pages placed at the sender's item length (page bytes)" });
  return c;
}

/** page-bytes findings whose diagnosis is `mechanism`. */
function pageMechanism(of: Of, mechanism: string): NumberedFinding[] {
  return of("page-bytes").filter((f) => f.draft.facts?.mechanism === mechanism);
}

function uncountedState(of: Of): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const incomplete = of("incomplete-completion");
  if (incomplete.length) c.for.push({ weight: 0.6, findings: ids(incomplete), note: "decode took rooms as transferred before all their notifications arrived" });
  const rooms = new Set(incomplete.flatMap(roomsOf));
  const earlyOwnRead = of("read-before-landed-write").filter((f) => f.draft.facts?.crossRoom === false && roomsOf(f).some((r) => rooms.has(r)));
  if (earlyOwnRead.length) c.for.push({ weight: 0.3, findings: ids(earlyOwnRead), note: "those rooms read their own index-K before it landed" });
  return c;
}

function saturation(of: Of, config: RunConfig): CauseCase {
  const c: CauseCase = { for: [], against: [] };
  const t = timeouts(of);
  const waiting = t.filter((f) => Number((f.draft.facts?.states as Record<string, number> | undefined)?.WaitingForInput ?? 0) > 0);
  if (waiting.length) c.for.push({ weight: 0.45, findings: ids(waiting), note: "rooms timed out waiting for their KV transfer" });
  else if (t.length) c.for.push({ weight: 0.3, findings: ids(t), note: "rooms timed out in the PD path" });
  const inFlight = t.filter((f) => Number(causesOf(f)["transfer-in-flight"] ?? 0) > 0);
  if (inFlight.length) c.for.push({ weight: 0.3, findings: ids(inFlight), note: "replayed, the timed-out rooms had chunks posted and not done: queued behind other transfers" });
  if (c.for.length && config.byRole("index_k_dtype").some((e) => e.value === "bf16")) {
    c.for.push({ weight: 0.15, findings: [], note: "bf16 index-K doubles the transfer volume per room" });
  }
  if (of("unhandled-abort").length) c.against.push({ factor: 0.3, note: "a dead bootstrap thread explains the timeouts" });
  if (of("collective-divergence").some((f) => f.draft.facts?.hang === true)) c.against.push({ factor: 0.3, note: "a collective deadlock explains the stall" });
  if (of("process-failure").some((f) => f.draft.facts?.fatal === true)) c.against.push({ factor: 0.3, note: "a crashed process explains the timeouts" });
  else if (transportFailures(of).length) c.against.push({ factor: 0.5, note: "failed transfers explain the timeouts" });
  return c;
}

/** A checksum finding's per-page attributions, over every room it groups. */
function attributions(f: NumberedFinding): { attribution: string; side: string; sourceRoom?: string }[] {
  const facts = (f.draft.facts?.grouped as Record<string, unknown>[] | undefined) ?? [f.draft.facts ?? {}];
  return facts.flatMap((x) => (x.attributions as { attribution: string; side: string; sourceRoom?: string }[] | undefined) ?? []);
}

/** The rooms whose data a checksum finding's stale pages carry. */
function staleSources(f: NumberedFinding): string[] {
  return attributions(f).flatMap((a) => (a.attribution === "stale" && a.sourceRoom ? [a.sourceRoom] : []));
}

/** The dump sides ("decode_recv", "decode_read") on which a checksum finding saw mismatches. */
function mismatchSides(f: NumberedFinding): string[] {
  return attributions(f).map((a) => a.side);
}

function hasAttribution(f: NumberedFinding, attribution: string, side: string): boolean {
  return attributions(f).some((a) => a.attribution === attribution && a.side === side);
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
