// The part of a state view a reader looks at: the rooms that pass a filter,
// the focus room first, and at most a page of rooms and pages. A wedged
// incident's state holds tens of thousands of rooms; the UI shows a couple of
// hundred, and sending (and resolving the provenance of) all of them would
// cost the server most of a second and megabytes of JSON per cursor move.

import { type ModelStateView, type PageView, type RoomView } from "../model/api.js";
import { KVPoll } from "../../domain/vocabulary.js";

export interface StateSelection {
  /** Rooms whose number holds this text. */
  text?: string;
  /** Only these rooms (a finding's). */
  among?: ReadonlySet<string>;
  /** Only rooms with a side not at Success (an unknown side is not at Success). */
  notSuccess?: boolean;
  /** This room first among the rooms; its pages only among the pages. */
  focus?: string;
  /** At most this many rooms and this many pages. */
  limit?: number;
}

/** How many rooms and pages the state holds, how many pass the selection (the view lists the first `limit` of those). */
export interface SelectionTotals {
  rooms: number;
  roomsMatched: number;
  pages: number;
  pagesMatched: number;
}

function roomMatches(r: RoomView, sel: StateSelection): boolean {
  if (sel.text && !r.room.includes(sel.text)) return false;
  if (sel.among && !sel.among.has(r.room)) return false;
  return !sel.notSuccess || r.prefill.state !== KVPoll.Success || r.decode.state !== KVPoll.Success;
}

function pageMatches(p: PageView, focus: string | undefined): boolean {
  return focus === undefined || p.ownerRoom === focus || p.lastWriter?.room === focus;
}

export function selectState(view: ModelStateView, sel: StateSelection): { view: ModelStateView; totals: SelectionTotals } {
  const limit = sel.limit ?? Infinity;
  const matched = view.rooms.filter((r) => roomMatches(r, sel));
  const focused = matched.findIndex((r) => r.room === sel.focus);
  if (focused > 0) matched.unshift(...matched.splice(focused, 1));
  const pages = view.pages.filter((p) => pageMatches(p, sel.focus));
  return {
    view: { ...view, rooms: matched.slice(0, limit), pages: pages.slice(0, limit) },
    totals: { rooms: view.rooms.length, roomsMatched: matched.length, pages: view.pages.length, pagesMatched: pages.length },
  };
}
