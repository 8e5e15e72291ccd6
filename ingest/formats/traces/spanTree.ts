// The spans of one trace file as `trace.span` events, each with the room,
// rid, role, thread and rank its span tree gives it (docs/telemetry.md
// "OpenTelemetry traces").
//
// A stage slice names none of these itself (./sglangSpans.ts): it inherits
// them from its ancestors (its thread span: thread, rank, role; the request
// span: rid, role; the root: room), and, where its parents never arrived,
// the room from any span of its trace that names one. Root and thread spans
// end, and so are exported, only when the request finishes; after a wedge the
// file holds slices whose parents never arrive: orphaned slices, which keep
// their trace and parent ids and whatever their own name says (the stage,
// its side), and no room.
//
// Resolution needs the whole file, so the events are made at its end.

import type { ParsedEvent } from "../../../domain/event.js";
import { TelemetryKind } from "../../../domain/kinds.js";
import { ownFacts, type OwnFacts } from "./sglangSpans.js";

/** One span as a trace format read it, times in epoch µs, ids lowercase hex. */
export interface SpanRecord {
  /** Where the span stands in its file (an OTLP line, a Jaeger span object's first line). */
  line: number;
  text: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startUs: number;
  endUs?: number;
  attrs: Record<string, unknown>;
  statusCode?: string;
  /** The machine the exporter's resource (or Jaeger process) names. */
  host?: string;
}

/** An id as 2n lowercase hex digits: hex kept, base64 (protobuf's JSON mapping) decoded, short hex padded. */
export function hexId(v: unknown, bytes: 8 | 16): string | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  if (/^[0-9a-fA-F]+$/.test(v) && v.length <= bytes * 2) {
    const hex = v.toLowerCase().padStart(bytes * 2, "0");
    return /^0+$/.test(hex) ? undefined : hex;
  }
  const raw = Buffer.from(v, "base64");
  return raw.length === bytes && raw.some((b) => b !== 0) ? raw.toString("hex") : undefined;
}

const MAX_DEPTH = 64;

/** Facts a span has from itself and its ancestors within the file. */
type Inherited = Omit<OwnFacts, "stage">;

class SpanTree {
  /** Trace id → span id → span (no key is built per lookup). */
  private readonly byId = new Map<string, Map<string, SpanRecord>>();
  private readonly own = new Map<SpanRecord, OwnFacts>();
  private readonly inherited = new Map<SpanRecord, Inherited>();
  /** The rooms each trace's spans name: a slice whose chain names none takes its trace's, when it is one. */
  private readonly traceRooms = new Map<string, Set<string>>();

  constructor(spans: readonly SpanRecord[]) {
    for (const s of spans) {
      const trace = this.byId.get(s.traceId) ?? this.byId.set(s.traceId, new Map()).get(s.traceId)!;
      trace.set(s.spanId, s);
      const facts = ownFacts(s.name, s.attrs);
      this.own.set(s, facts);
      if (facts.room !== undefined) (this.traceRooms.get(s.traceId) ?? this.traceRooms.set(s.traceId, new Set()).get(s.traceId)!).add(facts.room);
    }
  }

  private parentOf(s: SpanRecord): SpanRecord | undefined {
    return s.parentSpanId !== undefined ? this.byId.get(s.traceId)!.get(s.parentSpanId) : undefined;
  }

  /** Own facts first, then the nearest ancestor's; iterative, so a cyclic or deep file cannot overflow the stack. */
  resolve(s: SpanRecord): Inherited {
    const done = this.inherited.get(s);
    if (done) return done;
    const chain: SpanRecord[] = [];
    let base: Inherited = {};
    for (let at: SpanRecord | undefined = s; at !== undefined; at = this.parentOf(at)) {
      const known = this.inherited.get(at);
      if (known) {
        base = known;
        break;
      }
      if (chain.length >= MAX_DEPTH || chain.includes(at)) break;
      chain.push(at);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const { stage: _stage, ...own } = this.own.get(chain[i]!)!;
      base = { ...base, ...own };
      this.inherited.set(chain[i]!, base);
    }
    return base;
  }

  roomOfTrace(traceId: string): string | undefined {
    const rooms = this.traceRooms.get(traceId);
    return rooms?.size === 1 ? [...rooms][0] : undefined;
  }

  stageOf(s: SpanRecord): string | undefined {
    return this.own.get(s)?.stage;
  }
}

/** The spans' events, in end order. */
export function spanEvents(spans: readonly SpanRecord[], out: ParsedEvent[]): void {
  const tree = new SpanTree(spans);
  const events = spans.map((s): ParsedEvent => {
    const facts = tree.resolve(s);
    const stage = tree.stageOf(s);
    const room = facts.room ?? tree.roomOfTrace(s.traceId);
    const attrs: Record<string, unknown> = { name: s.name, traceId: s.traceId, spanId: s.spanId };
    if (stage !== undefined) attrs.stage = stage;
    if (s.parentSpanId !== undefined) attrs.parentSpanId = s.parentSpanId;
    attrs.startUs = s.startUs;
    if (s.endUs !== undefined) attrs.durationUs = s.endUs - s.startUs;
    if (facts.thread !== undefined) attrs.thread = facts.thread.name;
    if (Object.keys(s.attrs).length > 0) attrs.spanAttrs = s.attrs;
    if (s.statusCode !== undefined) attrs.statusCode = s.statusCode;
    // An exporter writes a span when it ends, and what it says (a stage done) holds from then: the event sits at its end.
    const ev: ParsedEvent = { tsUs: s.endUs ?? s.startUs, line: s.line, kind: TelemetryKind.span, text: s.text, attrs };
    if (s.host !== undefined) ev.host = s.host;
    // A slice's own side (prefill_*, decode_*) was applied over its ancestors' (resolve).
    if (facts.role !== undefined) ev.role = facts.role;
    if (facts.thread?.tp !== undefined) ev.tp = facts.thread.tp;
    if (room !== undefined) ev.room = room;
    if (facts.rid !== undefined) ev.rid = facts.rid;
    return ev;
  });
  events.sort((a, b) => a.tsUs - b.tsUs);
  for (const ev of events) out.push(ev);
}
