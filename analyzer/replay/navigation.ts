// Stepping through an incident: to the next or previous event, or to the
// next/previous event of the same room, rank or page. Rooms and ranks read
// only the blocks they occur in (the blocks' side tables); pages test each
// event's range in seq order from the start point.

import type { EventCursor } from "../../store/blocks/eventCursor.js";
import type { EventFilter } from "../../store/blocks/scan.js";
import type { IncidentDb } from "../../store/db.js";
import { eventScope, stepFrom } from "../../store/read/seqs.js";
import { eventRef, type EventRef } from "./eventRefs.js";

export type StepScope =
  | { by: "event" }
  | { by: "room"; room: string }
  | { by: "rank"; host: string | null; role: string | null; tp: number | null }
  | {
      by: "page";
      /** The pool's rank: pages are numbered per rank. Omitted parts match any rank. */
      host?: string | null;
      role?: string | null;
      tp?: number | null;
      /** "kv" or "index_k"; events that name no buffer touch both. */
      buffer?: string;
      /** Events that name no layer touch every layer. */
      layer?: number;
      /** Half-open page range [pageLo, pageHi); any overlap counts. */
      pageLo: number;
      pageHi: number;
    };

export type Direction = "next" | "prev";

export function step(db: IncidentDb, fromSeq: number, direction: Direction, scope: StepScope): EventRef | null {
  const seq = stepFrom(db, fromSeq, direction, scopeFilter(scope), scope.by === "page" ? touchesPages(scope) : undefined);
  return seq === null ? null : eventRef(db, seq);
}

function scopeFilter(scope: StepScope): EventFilter {
  switch (scope.by) {
    case "event":
    case "page":
      return {};
    case "room":
      return { room: scope.room };
    case "rank":
      return { rank: { host: scope.host, role: scope.role, tp: scope.tp } };
  }
}

/** An event touches the pages when its range overlaps them on the scope's rank, layer and buffer (unnamed parts match). */
function touchesPages(scope: Extract<StepScope, { by: "page" }>): (ev: EventCursor) => boolean {
  return (ev) => {
    const lo = ev.pageLo;
    const hi = ev.pageHi;
    if (lo === null || hi === null || !(lo < scope.pageHi && hi > scope.pageLo)) return false;
    if (scope.host !== undefined && ev.host !== scope.host) return false;
    if (scope.role !== undefined && ev.role !== scope.role) return false;
    if (scope.tp !== undefined && ev.tp !== scope.tp) return false;
    if (scope.layer !== undefined && ev.layer !== null && ev.layer !== scope.layer) return false;
    const buffer = ev.attr("buffer");
    return scope.buffer === undefined || buffer === undefined || buffer === null || buffer === scope.buffer;
  };
}

/** The room, rank or page scope of the event at `seq` (null when it has none of that kind). */
export function scopeOfEvent(db: IncidentDb, seq: number, by: StepScope["by"]): StepScope | null {
  const row = eventScope(db, seq);
  if (!row) return null;
  switch (by) {
    case "event":
      return { by };
    case "room":
      return row.room === null ? null : { by, room: row.room };
    case "rank":
      return { by, host: row.host, role: row.role, tp: row.tp };
    case "page": {
      if (row.pageLo === null || row.pageHi === null) return null;
      const scope: StepScope = { by, host: row.host, role: row.role, tp: row.tp, pageLo: row.pageLo, pageHi: row.pageHi };
      if (row.layer !== null) scope.layer = row.layer;
      if (typeof row.buffer === "string") scope.buffer = row.buffer;
      return scope;
    }
  }
}
