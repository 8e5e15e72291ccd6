// The spans of SGLang's request traces as timeline slices: each trace.span
// event (placed at its end) from its startUs to its end. A span with a stage
// is a stage slice; one without (the room's root span, a request span, a
// thread span) is a request slice. Root and thread spans end only when the
// request finishes, so a stage slice of a room with no stage-less span, whose
// side never reached its last stage (domain/telemetry.ts SGLANG_STAGES
// `finishes`), is orphaned: its request never finished (a wedge).

import type { IncidentDb } from "../../store/db.js";
import { detailRows } from "../../store/read/records.js";
import { TelemetryKind } from "../../domain/kinds.js";
import { SGLANG_STAGES } from "../../domain/telemetry.js";
import { SpanTypes } from "../view/spanTypes.js";

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

interface Span {
  seq: number;
  room: string | null;
  stage: string | undefined;
  name: string;
  startUs: number | undefined;
}

function cut(name: string): string {
  return name.length <= MAX_LABEL ? name : `${name.slice(0, MAX_LABEL - 1)}…`;
}

/** The trace slices of an incident, typed stage, orphaned stage or request. */
export function stageSlices(db: IncidentDb, at: SlicePlacement): PlacedSlice[] {
  const spans: Span[] = [];
  /** Rooms with a span that has no stage: their request's spans arrived. */
  const rooted = new Set<string>();
  /** `${room}:${side}` for each side of a room that reached its last stage. */
  const finished = new Set<string>();
  for (const [seq, , room, , , attrs] of detailRows(db, KINDS, WITH_ATTRS)) {
    const stage = typeof attrs?.["stage"] === "string" && attrs["stage"] ? attrs["stage"] : undefined;
    const name = typeof attrs?.["name"] === "string" ? attrs["name"] : (stage ?? "span");
    const startUs = typeof attrs?.["startUs"] === "number" ? attrs["startUs"] : undefined;
    spans.push({ seq, room, stage, name, startUs });
    if (room === null) continue;
    if (stage === undefined) rooted.add(room);
    else {
      const spec = SGLANG_STAGES[stage];
      if (spec?.finishes) finished.add(`${room}:${spec.side}`);
    }
  }
  const out: PlacedSlice[] = [];
  for (const s of spans) {
    const pos = at.posOf(s.seq);
    if (pos === undefined) continue;
    const end = at.ts[pos]!;
    // An exporter's start after its end (clock steps) is drawn with no length.
    const start = Math.min(end, s.startUs ?? end);
    const type = s.stage === undefined ? SpanTypes.request : orphaned(s, rooted, finished) ? SpanTypes.orphanedStage : SpanTypes.stage;
    out.push({ start, end, lane: at.lane[pos]!, type, seq: s.seq, label: cut(s.stage ?? s.name), room: s.room });
  }
  return out;
}

function orphaned(s: Span, rooted: ReadonlySet<string>, finished: ReadonlySet<string>): boolean {
  if (s.room === null || rooted.has(s.room)) return false;
  const side = SGLANG_STAGES[s.stage!]?.side;
  // A stage SGLang's table does not know has no known side: only a room where neither side finished orphans it.
  return side === undefined ? !finished.has(`${s.room}:prefill`) && !finished.has(`${s.room}:decode`) : !finished.has(`${s.room}:${side}`);
}
