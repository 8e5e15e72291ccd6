// The kinds of span the timeline draws: the server numbers spans by this
// table (ui/server/timeline-details.ts, stage-slices.ts) and the page names,
// colours and filters them by it. A type's number is its place here, and the
// page's URL keeps hidden types by number: new types go at the end.

export interface SpanType {
  /** The legend's name. */
  name: string;
  colour: string;
  /** Drawn as an outline over a hatch, not a filled bar: something that should have ended and did not. */
  outlined?: boolean;
  /** What the event panel says about the event that defines such a span. */
  note?: string;
}

export const SpanTypes = {
  /** A chunk's RDMA write, post to landing. */
  transfer: 0,
  /** A decode room's pages, kv.alloc to kv.free. */
  room: 1,
  /** A timeout's wait, back from its line. */
  wait: 2,
  /** A trace stage slice (`decode_waiting`, …). */
  stage: 3,
  /** A stage slice of a room whose request never finished. */
  orphanedStage: 4,
  /** A root, request or thread span of a trace. */
  request: 5,
} as const;

export const SPAN_TYPES: readonly SpanType[] = [
  { name: "transfer in flight", colour: "rgba(79, 201, 164, 0.75)" },
  { name: "room holds pages", colour: "rgba(135, 160, 210, 0.55)" },
  { name: "waiting (until a timeout)", colour: "rgba(240, 160, 75, 0.8)" },
  { name: "trace stage", colour: "rgba(247, 140, 108, 0.8)" },
  {
    name: "orphaned stage",
    colour: "#ff3b6b",
    outlined: true,
    note: "orphaned stage slice: its request never finished: no root span arrived, and its side never reached its last stage",
  },
  { name: "trace request", colour: "rgba(250, 210, 150, 0.45)" },
];
