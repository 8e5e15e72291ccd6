// A/B diff of two incidents of the same workload under different settings.
// Requests are aligned by identity (shared rids, else arrival order), never by
// wall time; each request's history is reduced to the protocol steps it went
// through (arrive, meta, bootstrapped, post#n, notify#n, timeout, abort,
// corrupted, finish...). The report gives per-incident rates, the settings
// that differ, the first aligned request whose steps differ, and which causes
// the settings difference supports or refutes; where a library hypothesis
// states a cause's mechanism and both incidents determine it, its violation
// rates decide instead (analyzer/hypotheses/causes.ts).

import { z } from "zod";
import { causeHypotheses, causeHypothesisSchema, hypothesisEffect, sideText, type CauseHypothesis } from "../hypotheses/causes.js";
import { eventRoles } from "../../store/read/ranks.js";
import type { IncidentDb } from "../../store/db.js";
import { iterateEvents, type StoredEvent } from "../../store/read/events.js";
import type { ConfigValue } from "./config.js";
import { decodeAs } from "../events/decode.js";
import { Evidence, isoTime } from "./evidence.js";
import { rowBytes } from "../model/indexK.js";
import { nixlPrefillDiesOnAbort } from "../model/profile.js";
import { type AnalysisReport } from "./finding.js";
import { CAUSE_IDS, type CauseId } from "../../domain/vocabulary.js";
import { analyzeIncident } from "./index.js";
import type { AbEvidence } from "./suspects.js";
import { timeoutEvents } from "./roomTimeouts.js";
import { findPlateaus } from "./transferStall.js";

const rateSchema = z.object({ count: z.number().int().nonnegative(), total: z.number().int().nonnegative(), rate: z.number().min(0).max(1) });
const METRICS = ["corrupted-rooms", "timeouts", "aborts", "stalls"] as const;
type Metric = (typeof METRICS)[number];
const stepRefSchema = z.object({ step: z.string(), request: z.string(), ts: z.string(), source: z.string(), line: z.number().int() });

export const incidentDiffSchema = z.object({
  a: z.object({ name: z.string(), rooms: z.number().int() }),
  b: z.object({ name: z.string(), rooms: z.number().int() }),
  settings: z.array(z.object({ key: z.string(), a: z.union([z.string(), z.number(), z.boolean(), z.null()]), b: z.union([z.string(), z.number(), z.boolean(), z.null()]) })),
  rates: z.array(z.object({ metric: z.enum(METRICS), a: rateSchema, b: rateSchema })),
  alignment: z.object({ by: z.enum(["rid", "arrival-order"]), aligned: z.number().int(), onlyA: z.number().int(), onlyB: z.number().int() }),
  firstDivergence: z.object({ index: z.number().int(), a: stepRefSchema.nullable(), b: stepRefSchema.nullable(), description: z.string() }).nullable(),
  causes: z.array(
    z.object({ cause: z.enum(CAUSE_IDS), effect: z.enum(["supports", "refutes", "neutral"]), reason: z.string(), hypothesis: causeHypothesisSchema.optional() }),
  ),
  conclusion: z.string(),
});
export type IncidentDiff = z.infer<typeof incidentDiffSchema>;
type Rate = z.infer<typeof rateSchema>;

type Value = ConfigValue | null;
/** Which of two values of a setting is the riskier one for a cause, if either. */
type Riskier = (a: Value, b: Value) => "a" | "b" | undefined;

const when = (risky: (v: Value) => boolean): Riskier => (a, b) => (risky(b) && !risky(a) ? "b" : risky(a) && !risky(b) ? "a" : undefined);
const fewer: Riskier = (a, b) => (typeof a === "number" && typeof b === "number" && a !== b ? (a < b ? "a" : "b") : undefined);
const more: Riskier = (a, b) => (typeof a === "number" && typeof b === "number" && a !== b ? (a > b ? "a" : "b") : undefined);

/**
 * The run's settings plus two that are read off others: PD or single server,
 * and whether the index-K pool was sized below what its dtype needs (§2.3: a
 * bf16 pool sized at fp8's 132 B/token), which is what the pool-sizing cause
 * depends on, not the dtype alone.
 */
function withDerivedSettings(flat: Record<string, ConfigValue>, roles: Set<string>): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = { ...flat, topology: roles.has("prefill") && roles.has("decode") ? "pd" : "single" };
  const dtype = flat.index_k_dtype;
  const sized = flat.index_k_bytes_per_token;
  if ((dtype === "fp8" || dtype === "bf16") && typeof sized === "number") out.index_k_pool_undersized = sized < rowBytes(dtype);
  return out;
}

/** Which settings each cause depends on and the metric it drives. */
const SENSITIVITY: Record<CauseId, { metric: Metric; settings: Record<string, Riskier> }> = {
  "hicache-indexk-race": { metric: "corrupted-rooms", settings: { hicache: when((v) => v === true), index_k_dtype: when((v) => v === "bf16") } },
  "stale-slot-reuse": { metric: "corrupted-rooms", settings: { index_k_dtype: when((v) => v === "bf16"), topology: when((v) => v === "pd") } },
  "pool-sizing-fp8-hardcoded": { metric: "corrupted-rooms", settings: { index_k_pool_undersized: when((v) => v === true) } },
  "transfer-saturation": { metric: "timeouts", settings: { index_k_dtype: when((v) => v === "bf16"), transfer_queues: fewer } },
  "overlap-collective-desync": { metric: "stalls", settings: { overlap: when((v) => v === true) } },
  "unhandled-abort": {
    metric: "stalls",
    // NIXL prefill dies on ABORT between decode sending it and prefill handling it (§7.1).
    settings: { version: when((v) => typeof v === "string" && nixlPrefillDiesOnAbort(v)), backend: when((v) => v === "nixl") },
  },
  "indexer-address-overflow": { metric: "corrupted-rooms", settings: { max_context: more } },
  "item-len-mismatch": { metric: "corrupted-rooms", settings: {} },
  "uncounted-state-transfer": { metric: "corrupted-rooms", settings: {} },
  "process-crash": { metric: "stalls", settings: {} },
  "transport-failure": { metric: "timeouts", settings: {} },
};

/** Rules whose violated findings show a room's data corrupted: checksums where dumped, else the model's racing reads. */
const OBSERVED_CORRUPTION = new Set(["checksum-mismatch", "metadata-collision"]);
const RACED_READS = new Set(["read-before-landed-write", "hicache-ungated-read", "stale-slot-reuse"]);
/** Rate changes below this (absolute) are noise, unless one side had none at all. */
const MIN_RATE_DELTA = 0.02;

/** Whether a rate moved: by MIN_RATE_DELTA or more, or from none to some (or back). */
function moved(a: Rate, b: Rate): boolean {
  if (a.count === b.count && a.rate === b.rate) return false;
  return Math.abs(b.rate - a.rate) >= MIN_RATE_DELTA || (a.count === 0) !== (b.count === 0);
}

interface Side {
  name: string;
  settings: Record<string, ConfigValue>;
  rates: Record<Metric, Rate>;
  requests: RequestHistory[];
}

interface RequestHistory {
  id: string;
  rid: string | undefined;
  steps: { step: string; ev: StoredEvent }[];
}

export function diffIncidents(a: { db: IncidentDb; name: string; report?: AnalysisReport }, b: { db: IncidentDb; name: string; report?: AnalysisReport }): IncidentDiff {
  const sa = side(a.db, a.name, a.report);
  const sb = side(b.db, b.name, b.report);
  const evA = new Evidence(a.db);
  const evB = new Evidence(b.db);
  const settings = differingSettings(sa.settings, sb.settings);
  const rates = METRICS.map((metric) => ({ metric, a: sa.rates[metric], b: sb.rates[metric] }));
  const { by, pairs, onlyA, onlyB } = align(sa.requests, sb.requests);
  const firstDivergence = divergence(by, pairs, evA, evB);
  const hypotheses = causeHypotheses(a.db, b.db);
  const causes = CAUSE_IDS.map((cause) => weighed(causeEffect(cause, settings, sa.rates, sb.rates), hypotheses.get(cause)));
  return {
    a: { name: sa.name, rooms: sa.requests.length },
    b: { name: sb.name, rooms: sb.requests.length },
    settings,
    rates,
    alignment: { by, aligned: pairs.length, onlyA, onlyB },
    firstDivergence,
    causes,
    conclusion: conclusion(settings, rates),
  };
}

/** What the comparison says about the causes of incident B (the one analyzed) against baseline A. */
export function abEvidenceOf(diff: IncidentDiff): AbEvidence {
  return {
    supports: diff.causes.filter((c) => c.effect === "supports").map((c) => c.cause),
    refutes: diff.causes.filter((c) => c.effect === "refutes").map((c) => c.cause),
    note: diff.conclusion,
  };
}

function side(db: IncidentDb, name: string, given: AnalysisReport | undefined): Side {
  const evidence = new Evidence(db);
  const report = given ?? analyzeIncident(db, { name });
  const requests = histories(evidence, report);
  const total = requests.length;
  const corrupted = corruptedRooms(report);
  const timedOut = new Set(timeoutEvents(evidence).flatMap((t) => (t.room ? [t.room] : [])));
  const aborted = new Set(requests.filter((r) => r.steps.some((s) => s.step === "abort")).map((r) => r.id));
  const wedged = findPlateaus(evidence, evidence.endUs()).length > 0 ? 1 : 0;
  const rate = (count: number, of: number): Rate => ({ count, total: of, rate: of === 0 ? 0 : count / of });
  const roles = new Set(eventRoles(db));
  return {
    name,
    settings: withDerivedSettings(evidence.config().flat(), roles),
    rates: {
      "corrupted-rooms": rate(corrupted.size, total),
      timeouts: rate(timedOut.size, total),
      aborts: rate(aborted.size, total),
      stalls: rate(wedged, 1),
    },
    requests,
  };
}

/**
 * Rooms whose data was corrupted. Checksums compare the bytes, so where the
 * incident has them they decide (a race whose late write landed after the
 * read corrupted nothing); without them the model's racing reads stand in.
 */
function corruptedRooms(report: AnalysisReport): Set<string> {
  const checksums = report.coverage.rules.find((r) => r.rule === "checksum-mismatch");
  const rules = checksums && checksums.checked > 0 ? OBSERVED_CORRUPTION : new Set([...OBSERVED_CORRUPTION, ...RACED_READS]);
  return new Set(report.findings.filter((f) => f.verdict === "violated" && rules.has(f.rule)).flatMap((f) => f.rooms ?? (f.room ? [f.room] : [])));
}

/** Protocol step of an event, or undefined for events that are not a step of a request. */
function stepOf(ev: StoredEvent): string | undefined {
  switch (ev.kind) {
    case "req.arrive": return "arrive";
    case "kv.alloc": return "alloc";
    case "kv.meta":
    case "boot.metadata_sent": return "meta";
    case "boot.got_info":
    case "boot.bootstrapped": return "bootstrapped";
    case "kv.post":
    case "xfer.notif_sent": return ev.chunk === null ? "post" : `post#${ev.chunk}`;
    case "kv.done": return ev.chunk === null ? "done" : `done#${ev.chunk}`;
    case "kv.notify": return ev.chunk === null ? "notify" : `notify#${ev.chunk}`;
    case "kernel.read": return "read";
    case "kv.timeout": return "timeout";
    case "req.abort":
    case "abort.sent":
    case "abort.received": return "abort";
    case "req.finish": return "finish";
    case "pd.transfer_failed":
    case "pd.handshake_failed":
    case "pd.bootstrap_failed": {
      const reason = decodeAs(ev, "pd.transfer_failed", "pd.handshake_failed", "pd.bootstrap_failed")?.reasonKind;
      return reason === "timeout" ? "timeout" : reason === "abort" ? "abort" : `failed:${reason ?? "unknown"}`;
    }
    default: return undefined;
  }
}

function histories(evidence: Evidence, report: AnalysisReport): RequestHistory[] {
  const corrupted = corruptedRooms(report);
  const byRoom = new Map<string, RequestHistory>();
  for (const ev of iterateEvents(evidence.db)) {
    if (ev.room === null) continue;
    let h = byRoom.get(ev.room);
    if (!h) byRoom.set(ev.room, (h = { id: ev.room, rid: undefined, steps: [] }));
    if (ev.rid !== null) h.rid ??= ev.rid;
    const step = stepOf(ev);
    if (step && !h.steps.some((s) => s.step === step)) h.steps.push({ step, ev });
  }
  for (const f of report.findings) {
    if (f.verdict !== "violated" || !(OBSERVED_CORRUPTION.has(f.rule) || RACED_READS.has(f.rule))) continue;
    const witnessed = f.witness.flatMap((w) => evidence.event(w.seq) ?? []);
    for (const room of f.rooms ?? (f.room !== undefined ? [f.room] : [])) {
      const h = corrupted.has(room) ? byRoom.get(room) : undefined;
      // A grouped finding cites a line of some of its rooms; the lead room's is its last witness line.
      const ev = witnessed.filter((e) => e.room === room).at(-1) ?? (room === f.room ? witnessed.at(-1) : undefined);
      if (h && ev && !h.steps.some((s) => s.step === "corrupted")) h.steps.push({ step: "corrupted", ev });
    }
  }
  return [...byRoom.values()];
}

function align(a: RequestHistory[], b: RequestHistory[]): { by: "rid" | "arrival-order"; pairs: [RequestHistory, RequestHistory][]; onlyA: number; onlyB: number } {
  const bByRid = new Map(b.flatMap((r) => (r.rid ? [[r.rid, r] as const] : [])));
  const shared = a.filter((r) => r.rid && bByRid.has(r.rid));
  if (shared.length > 0 && shared.length >= a.length / 2) {
    const pairs = shared.map((r) => [r, bByRid.get(r.rid!)!] as [RequestHistory, RequestHistory]);
    return { by: "rid", pairs, onlyA: a.length - pairs.length, onlyB: b.length - pairs.length };
  }
  const n = Math.min(a.length, b.length);
  const pairs = [...Array(n).keys()].map((i) => [a[i]!, b[i]!] as [RequestHistory, RequestHistory]);
  return { by: "arrival-order", pairs, onlyA: a.length - n, onlyB: b.length - n };
}

function divergence(by: string, pairs: [RequestHistory, RequestHistory][], evA: Evidence, evB: Evidence): IncidentDiff["firstDivergence"] {
  const ref = (e: Evidence, r: RequestHistory, s: { step: string; ev: StoredEvent }) =>
    ({ step: s.step, request: r.rid ? `${r.rid} (room ${r.id})` : `room ${r.id}`, ts: isoTime(s.ev.tsUs), source: e.witness(s.ev).source, line: s.ev.line });
  for (let i = 0; i < pairs.length; i++) {
    const [ra, rb] = pairs[i]!;
    const stepsA = new Set(ra.steps.map((s) => s.step));
    const stepsB = new Set(rb.steps.map((s) => s.step));
    const onlyA = ra.steps.find((s) => !stepsB.has(s.step));
    const onlyB = rb.steps.find((s) => !stepsA.has(s.step));
    if (!onlyA && !onlyB) continue;
    const a = onlyA ? ref(evA, ra, onlyA) : null;
    const b = onlyB ? ref(evB, rb, onlyB) : null;
    return {
      index: i,
      a,
      b,
      description:
        `aligned request #${i + 1} (by ${by}): ` +
        [a && `A went through ${a.step} (${a.source}:${a.line}) which B did not`, b && `B went through ${b.step} (${b.source}:${b.line}) which A did not`]
          .filter(Boolean)
          .join("; "),
    };
  }
  return null;
}

function differingSettings(a: Record<string, ConfigValue>, b: Record<string, ConfigValue>): IncidentDiff["settings"] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((k) => a[k] !== b[k]).map((k) => ({ key: k, a: a[k] ?? null, b: b[k] ?? null }));
}

function causeEffect(cause: CauseId, settings: IncidentDiff["settings"], ra: Record<Metric, Rate>, rb: Record<Metric, Rate>): IncidentDiff["causes"][number] {
  const { metric, settings: sens } = SENSITIVITY[cause];
  const delta = rb[metric].rate - ra[metric].rate;
  const changed = moved(ra[metric], rb[metric]);
  const relevant = settings.filter((s) => s.key in sens && sens[s.key]!(s.a, s.b) !== undefined);
  const pct = (r: Rate): string => `${(r.rate * 100).toFixed(1)}%`;
  const metricText = `${metric} ${pct(ra[metric])} → ${pct(rb[metric])}`;
  if (Object.keys(sens).length === 0) return { cause, effect: "neutral", reason: `depends on no setting a run states; ${metricText}` };
  if (relevant.length === 0) {
    return changed && settings.length > 0
      ? { cause, effect: "refutes", reason: `${metricText} changed, but none of the settings it depends on (${Object.keys(sens).join(", ")}) differ` }
      : { cause, effect: "neutral", reason: `no setting it depends on differs; ${metricText}` };
  }
  const riskierB = relevant.some((s) => sens[s.key]!(s.a, s.b) === "b");
  const riskierA = relevant.some((s) => sens[s.key]!(s.a, s.b) === "a");
  const names = relevant.map((s) => `${s.key} ${String(s.a)} → ${String(s.b)}`).join(", ");
  if (!changed) return { cause, effect: "refutes", reason: `${names} differ, yet ${metricText} did not change` };
  if ((delta > 0 && riskierB) || (delta < 0 && riskierA)) return { cause, effect: "supports", reason: `${names}: ${metricText}, in the direction the cause predicts` };
  return { cause, effect: "refutes", reason: `${names}: ${metricText}, against the direction the cause predicts` };
}

/** A cause's effect as its hypothesis decides it, when both incidents determine the hypothesis; the hypothesis is shown either way. */
function weighed(base: IncidentDiff["causes"][number], h: CauseHypothesis | undefined): IncidentDiff["causes"][number] {
  if (!h) return base;
  const decided = hypothesisEffect(h);
  return decided ? { ...base, ...decided, hypothesis: h } : { ...base, reason: `${base.reason} (${h.name}: ${sideText(h.a)} → ${sideText(h.b)})`, hypothesis: h };
}

/** The settings that differ and every rate that moved, largest move first. */
function conclusion(settings: IncidentDiff["settings"], rates: IncidentDiff["rates"]): string {
  const pct = (r: Rate): string => `${(r.rate * 100).toFixed(1)}% (${r.count}/${r.total})`;
  const diffText = settings.length === 0 ? "no stated setting differs" : settings.map((s) => `${s.key} ${String(s.a)} → ${String(s.b)}`).join(", ");
  const changed = rates.filter((r) => moved(r.a, r.b)).sort((x, y) => Math.abs(y.b.rate - y.a.rate) - Math.abs(x.b.rate - x.a.rate));
  if (changed.length === 0) return `${diffText}; no rate changes by ${MIN_RATE_DELTA * 100} points or more`;
  const changes = changed.map((r) => `${r.b.rate > r.a.rate ? "raises" : "lowers"} ${r.metric} from ${pct(r.a)} to ${pct(r.b)}`);
  return `${diffText} ${changes.join(", and ")}`;
}
