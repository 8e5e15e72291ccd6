// Stepping through an incident: to the next or previous event, or to the
// next/previous event of the same room, rank or page. Each step is one
// indexed query (rooms: events_room; ranks: events_rank; pages: the
// events_pages index the replay adds with its caches, REPLAY_CACHE_TABLES).

import type { IncidentDb } from "../../ingest/store/db.js";
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
  const { where, params } = scopeFilter(scope);
  const cmp = direction === "next" ? ">" : "<";
  const order = direction === "next" ? "ASC" : "DESC";
  const seq = db
    .prepare(`SELECT seq FROM events WHERE seq ${cmp} ? ${where} ORDER BY seq ${order} LIMIT 1`)
    .pluck()
    .get(fromSeq, ...params) as number | undefined;
  return seq === undefined ? null : eventRef(db, seq);
}

function scopeFilter(scope: StepScope): { where: string; params: unknown[] } {
  switch (scope.by) {
    case "event":
      return { where: "", params: [] };
    case "room":
      return { where: "AND room = ?", params: [scope.room] };
    case "rank":
      return { where: "AND host IS ? AND role IS ? AND tp IS ?", params: [scope.host, scope.role, scope.tp] };
    case "page": {
      const parts = ["AND page_lo IS NOT NULL AND page_lo < ? AND page_hi > ?"];
      const params: unknown[] = [scope.pageHi, scope.pageLo];
      if (scope.host !== undefined) (parts.push("AND host IS ?"), params.push(scope.host));
      if (scope.role !== undefined) (parts.push("AND role IS ?"), params.push(scope.role));
      if (scope.tp !== undefined) (parts.push("AND tp IS ?"), params.push(scope.tp));
      if (scope.layer !== undefined) (parts.push("AND (layer IS NULL OR layer = ?)"), params.push(scope.layer));
      if (scope.buffer !== undefined) {
        parts.push("AND (json_extract(attrs, '$.buffer') IS NULL OR json_extract(attrs, '$.buffer') = ?)");
        params.push(scope.buffer);
      }
      return { where: parts.join(" "), params };
    }
  }
}

/** The room, rank or page scope of the event at `seq` (null when it has none of that kind). */
export function scopeOfEvent(db: IncidentDb, seq: number, by: StepScope["by"]): StepScope | null {
  const row = db
    .prepare("SELECT host, role, tp, room, layer, page_lo AS pageLo, page_hi AS pageHi, json_extract(attrs, '$.buffer') AS buffer FROM events WHERE seq = ?")
    .get(seq) as
    | { host: string | null; role: string | null; tp: number | null; room: string | null; layer: number | null; pageLo: number | null; pageHi: number | null; buffer: unknown }
    | undefined;
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
