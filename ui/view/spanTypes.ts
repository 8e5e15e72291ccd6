// How the page draws each kind of span the timeline holds
// (analyzer/timeline/spanTypes.ts numbers them): its legend name, its colour,
// and what the event panel says of it.

import { SPAN_TYPE_NAMES, type SpanTypeName } from "../../analyzer/timeline/spanTypes.js";

export interface SpanType {
  /** The legend's name. */
  name: string;
  colour: string;
  /** Drawn as an outline over a hatch, not a filled bar: something that should have ended and did not. */
  outlined?: boolean;
  /** What the event panel says about the event that defines such a span. */
  note?: string;
}

const LOOKS: Record<SpanTypeName, SpanType> = {
  transfer: { name: "transfer in flight", colour: "rgba(79, 201, 164, 0.75)" },
  room: { name: "room holds pages", colour: "rgba(135, 160, 210, 0.55)" },
  wait: { name: "waiting (until a timeout)", colour: "rgba(240, 160, 75, 0.8)" },
  stage: { name: "trace stage", colour: "rgba(247, 140, 108, 0.8)" },
  orphanedStage: {
    name: "orphaned stage",
    colour: "#ff3b6b",
    outlined: true,
    note: "orphaned stage slice: its request never finished: no root span arrived, and its side never reached its last stage",
  },
  request: { name: "trace request", colour: "rgba(250, 210, 150, 0.45)" },
  collective: { name: "inside a collective", colour: "rgba(224, 189, 94, 0.7)" },
  hicacheWait: { name: "waiting on a HiCache layer", colour: "rgba(60, 182, 216, 0.75)" },
};

/** The looks of each span type, by its number. */
export const SPAN_TYPES: readonly SpanType[] = SPAN_TYPE_NAMES.map((name) => LOOKS[name]);
