// The shapes of the server's JSON answers, as the page reads them
// (ui/server is their source of truth). Events and model states are the
// store's and the model's own types.

import type { StoredEvent } from "../../domain/event.js";
import type { ModelStateView } from "../../analyzer/model/api.js";
import type { PageView } from "../../analyzer/pages/pageView.js";
import type { CounterTrack, Finding, Lane, Suspect } from "../wire.js";
import type { Component } from "../../domain/vocabulary.js";
export type { Component };
import type { HypothesisVerdict as HypothesisVerdictView } from "../../analyzer/hypotheses/verdict.js";
import type { PlacedViolation } from "../server/routes-hypotheses.js";
import type { SelectionTotals } from "../../analyzer/replay/stateSelection.js";

export type { ModelStateView, StoredEvent };

export type { IncidentRecord, IncidentStatus } from "../server/incidentRecord.js";

export interface LanesAnswer {
  lanes: Lane[];
  kinds: string[];
  /** Per kind: the component lane it lands in, and its tone (2 failure, 1 warning, 0 routine). */
  kindComponents: Component[];
  kindTones: number[];
  kindCounts: number[];
  /** Names of events (label ids of the window answers; [0] is none). */
  labels: string[];
  /** The counter tracks, by track id (CounterPoints.track). */
  counterTracks: CounterTrack[];
  firstTsUs: number | null;
  lastTsUs: number | null;
  /** Where records of unknown time are drawn, apart before the dated ones; null when there are none. */
  unknownTsUs: number | null;
  /** The first dated record's time: the reference of offsets. */
  datedFromUs: number | null;
  events: number;
}

export type { BucketColumns, CounterPoints, CountersAnswer, CounterTrack, EventColumns, Finding, Lane, OverviewAnswer, PlacedWitness, SpanWire, Suspect, WindowColumns } from "../wire.js";

export interface SearchAnswer {
  rooms: { room: string; firstSeq: number; events: number }[];
  rids: { rid: string; firstSeq: number }[];
  kinds: { kind: string; firstSeq: number; events: number }[];
  text: { complete: boolean; hits: { seq: number; source: string; line: number; excerpt: string }[] } | null;
}

export interface EventAnswer {
  /** `text` is the start of the record when it is long: `textLength` is its full length (ui/server/excerpt.ts). */
  event: StoredEvent;
  textLength: number;
  /** Characters left out of each cut attribute string. */
  attrsCut: Record<string, number>;
  source: { path: string; format: string } | null;
  lane: number | null;
  /** The types of the spans the event defines (ui/view/spanTypes.ts). */
  spanTypes: number[];
}

export interface FindingsAnswer {
  findings: Finding[];
  suspects: Suspect[];
}

export interface RoomFlow {
  room: string;
  events: { seq: number; tsUs: number; kind: string; step: string; lane: number | null }[];
  edges: { from: number; to: number; label: string }[];
  truncated: boolean;
}

/** Which rooms and pages of the state to send (ui/server/params.ts StateQuery). */
export interface StateRequest {
  limit: number;
  text: string;
  /** Only the rooms of this finding. */
  finding?: string;
  notSuccess: boolean;
  /** This room first, and only its pages. */
  focus?: string;
}

export interface StateAnswer {
  atSeq: number;
  tsUs: number;
  kind: string;
  state: ModelStateView;
  /** Rooms and pages in the state, and those that pass the request's selection (the state lists the first `limit`). */
  totals: SelectionTotals;
  /** The event behind each `changedAt` / last-writer seq in the state. */
  changes: Record<string, { source: string; line: number; kind: string }>;
}

export interface TextSlice {
  from: number;
  text: string;
  textLength: number;
}

export interface StepAnswer {
  seq: number | null;
  tsUs: number | null;
}

/** GET /incidents/:id/pages: a dumped page at the cursor (ui/server/routes-pages.ts). */
export interface PageAnswer {
  page: PageView;
}

export type { HypothesisVerdictView, PlacedViolation };

/** The named hypotheses and each one's verdict on the incident (the ledger). */
export interface HypothesisLedger {
  library: { name: string; statement: string }[];
  ledger: HypothesisVerdictView[];
}

export interface HypothesisCheck {
  verdict: HypothesisVerdictView;
  placed: PlacedViolation[];
}
