// SGLang's request traces as the checks and the timeline read them: per
// request, the stage slices each side completed and whether the request
// finished. SGLang ends a request's root span, its `<role> Req …` span and
// its thread span only when the request finishes, and names the room only
// on those (python/sglang/srt/tracing/trace.py; docs/telemetry.md); an
// exporter writes a span only when it ends. So after a wedge a request's
// trace holds the stages it got through and nothing after them — and no
// room: such a trace is known by its trace id. This file is the one judge of
// which slices are orphaned (analyzer/timeline/stageSlices.ts draws its answer).

import { TelemetryKind } from "../../domain/kinds.js";
import { SGLANG_STAGES } from "../../domain/telemetry.js";
import type { StoredEvent } from "../../store/read/events.js";
import { decodeAs } from "../events/decode.js";
import type { Evidence } from "../rules/evidence.js";

/** What the judgement needs of one span. */
export interface SpanFacts {
  seq: number;
  room: string | null;
  traceId: string | null;
  spanId: string | null;
  stage: string | undefined;
}

export type Side = "prefill" | "decode";

/** One request's spans: those of its room, or of one trace when no span of the trace names a room. */
export interface RequestTrace {
  /** The room, or null when the trace never names one (its request never finished). */
  room: string | null;
  traceId: string | null;
  /** Its stage slices, in seq order (the order of their ends). */
  stages: SpanFacts[];
  /** A span that ends only when the request does (root, request or thread span) was written. */
  finished: boolean;
  /** Sides whose last stage (prefill_transfer_kv_cache, decode_transferred, …) ended. */
  sidesDone: Set<Side>;
}

/** The requests of a list of spans; a span seen twice (the same trace in two files) counts once. */
export function requestTraces(spans: readonly SpanFacts[]): RequestTrace[] {
  const traces = new Map<string, RequestTrace>();
  const seen = new Set<string>();
  for (const s of spans) {
    if (s.traceId !== null && s.spanId !== null) {
      const id = `${s.traceId}/${s.spanId}`;
      if (seen.has(id)) continue;
      seen.add(id);
    }
    const key = s.room ?? (s.traceId === null ? null : `trace:${s.traceId}`);
    if (key === null) continue;
    let t = traces.get(key);
    if (!t) traces.set(key, (t = { room: s.room, traceId: s.traceId, stages: [], finished: false, sidesDone: new Set() }));
    if (s.stage === undefined) {
      t.finished = true;
      continue;
    }
    t.stages.push(s);
    const spec = SGLANG_STAGES[s.stage];
    if (spec?.finishes) t.sidesDone.add(spec.side);
  }
  return [...traces.values()];
}

/** A stage slice whose request never finished and whose side never reached its last stage: its parents never arrived. */
export function isOrphaned(t: RequestTrace, slice: SpanFacts): boolean {
  if (t.finished || slice.stage === undefined) return false;
  const side = SGLANG_STAGES[slice.stage]?.side;
  // A stage SGLang's table does not know has no known side: only a request where neither side finished orphans it.
  return side === undefined ? t.sidesDone.size === 0 : !t.sidesDone.has(side);
}

/** The seqs of the orphaned slices among the spans. */
export function orphanedSlices(spans: readonly SpanFacts[]): Set<number> {
  const out = new Set<number>();
  for (const t of requestTraces(spans)) for (const s of t.stages) if (isOrphaned(t, s)) out.add(s.seq);
  return out;
}

const cache = new WeakMap<Evidence, { traces: RequestTrace[]; events: Map<number, StoredEvent> }>();

function tracesOf(evidence: Evidence): { traces: RequestTrace[]; events: Map<number, StoredEvent> } {
  let got = cache.get(evidence);
  if (got) return got;
  const events = new Map<number, StoredEvent>();
  const facts: SpanFacts[] = [];
  for (const ev of evidence.of(TelemetryKind.span)) {
    const span = decodeAs(ev, TelemetryKind.span);
    if (!span) continue;
    events.set(ev.seq, ev);
    facts.push({ seq: ev.seq, room: span.room ?? null, traceId: span.traceId ?? null, spanId: span.spanId ?? null, stage: span.stage });
  }
  got = { traces: requestTraces(facts).filter((t) => t.stages.length > 0), events };
  cache.set(evidence, got);
  return got;
}

/** Requests with at least one stage slice. */
export function tracedRequests(evidence: Evidence): RequestTrace[] {
  return tracesOf(evidence).traces;
}

/** A request whose trace stopped on a side: stages ended there, nothing after them, no finish, long before the incident ends. */
export interface StoppedRequest {
  room: string | null;
  traceId: string | null;
  /** Its last completed stage on each side that stopped short of its end: the event and its stage. */
  lastStages: { ev: StoredEvent; stage: string; side: Side }[];
  /** The latest of them: the request's last sign of progress. */
  lastProgress: StoredEvent;
}

export function stoppedRequests(evidence: Evidence, quietUs: number): StoppedRequest[] {
  const { traces, events } = tracesOf(evidence);
  const endUs = evidence.endUs();
  const out: StoppedRequest[] = [];
  for (const t of traces) {
    const lastBySide = new Map<Side, { ev: StoredEvent; stage: string; side: Side }>();
    for (const s of t.stages) {
      const side = SGLANG_STAGES[s.stage!]?.side;
      if (side !== undefined && isOrphaned(t, s)) lastBySide.set(side, { ev: events.get(s.seq)!, stage: s.stage!, side });
    }
    if (lastBySide.size === 0) continue;
    const lastStages = [...lastBySide.values()].sort((a, b) => a.ev.tsUs - b.ev.tsUs);
    const lastProgress = lastStages.at(-1)!.ev;
    if (endUs - lastProgress.tsUs < quietUs) continue;
    out.push({ room: t.room, traceId: t.traceId, lastStages, lastProgress });
  }
  return out.sort((a, b) => a.lastProgress.tsUs - b.lastProgress.tsUs);
}
