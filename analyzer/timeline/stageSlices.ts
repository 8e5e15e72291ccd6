// The spans of SGLang's request traces as timeline slices: each trace.span
// event (placed at its end) from its startUs to its end. A span with a stage
// is a stage slice; one without (the room's root span, a request span, a
// thread span) is a request slice. Which stage slices are orphaned (their
// request never finished) is the analyzer's judgement
// (analyzer/telemetry/spans.ts), drawn here as it is.

import type { IncidentDb } from "../../store/db.js";
import { eachDetailRow } from "../../store/read/records.js";
import { TelemetryKind } from "../../domain/kinds.js";
import { orphanedSlices, type SpanFacts } from "../telemetry/spans.js";
import { SpanTypes } from "./spanTypes.js";

export interface PlacedSlice {
  start: number;
  end: number;
  lane: number;
  type: number;
  seq: number;
  label: string;
  room: string | null;
}

/** Where an event sits in the timeline index. */
export interface SlicePlacement {
  posOf(seq: number): number | undefined;
  ts: Float64Array;
  lane: Uint16Array;
}

const KINDS = [TelemetryKind.span];
const WITH_ATTRS: ReadonlySet<string> = new Set(KINDS);
/** Longer span names (thread spans name host and pid) are cut for the slice's label. */
const MAX_LABEL = 40;

interface Span extends SpanFacts {
  name: string;
  startUs: number | undefined;
}

function cut(name: string): string {
  return name.length <= MAX_LABEL ? name : `${name.slice(0, MAX_LABEL - 1)}…`;
}

/** The trace slices of an incident, typed stage, orphaned stage or request. */
export function stageSlices(db: IncidentDb, at: SlicePlacement): PlacedSlice[] {
  const spans: Span[] = [];
  eachDetailRow(db, KINDS, WITH_ATTRS, (seq, _kind, room, _chunk, _state, attrs) => {
    const stage = typeof attrs?.["stage"] === "string" && attrs["stage"] ? attrs["stage"] : undefined;
    const name = typeof attrs?.["name"] === "string" ? attrs["name"] : (stage ?? "span");
    const startUs = typeof attrs?.["startUs"] === "number" ? attrs["startUs"] : undefined;
    const id = (key: string) => (typeof attrs?.[key] === "string" ? (attrs[key] as string) : null);
    spans.push({ seq, room, stage, name, startUs, traceId: id("traceId"), spanId: id("spanId") });
  });
  const orphans = orphanedSlices(spans);
  const out: PlacedSlice[] = [];
  for (const s of spans) {
    const pos = at.posOf(s.seq);
    if (pos === undefined) continue;
    const end = at.ts[pos]!;
    // An exporter's start after its end (clock steps) is drawn with no length.
    const start = Math.min(end, s.startUs ?? end);
    const type = s.stage === undefined ? SpanTypes.request : orphans.has(s.seq) ? SpanTypes.orphanedStage : SpanTypes.stage;
    out.push({ start, end, lane: at.lane[pos]!, type, seq: s.seq, label: cut(s.stage ?? s.name), room: s.room });
  }
  return out;
}
