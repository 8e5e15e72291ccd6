// The kinds of span the timeline holds, by number: the timeline index numbers
// its spans by this table (timelineDetails.ts, stageSlices.ts), the page names
// and colours them by it (ui/view/spanTypes.ts), and the page's URL keeps
// hidden types by number: new types go at the end.

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
  /** A rank inside a collective, enter to exit. */
  collective: 6,
  /** A reader waiting on a HiCache layer, hicache.wait to that layer's hicache.layer. */
  hicacheWait: 7,
} as const;

export type SpanTypeName = keyof typeof SpanTypes;

/** Each type's name, by its number. */
export const SPAN_TYPE_NAMES: readonly SpanTypeName[] = (Object.keys(SpanTypes) as SpanTypeName[]).sort((a, b) => SpanTypes[a] - SpanTypes[b]);
