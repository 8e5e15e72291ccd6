// An event as a reader cites it: its seq, the file and line it came from and
// the raw text there. Everything the replay reports points at events this way.

import type { IncidentDb } from "../../store/db.js";
import { eventTexts } from "../../store/eventText.js";
import { eventPlaces, type EventPlace } from "../../store/read/seqs.js";

export interface EventRef {
  seq: number;
  tsUs: number;
  kind: string;
  /** Like "decode/tp3" or "p0/prefill/tp3"; null when the event names no rank. */
  rank: string | null;
  room: string | null;
  source: string;
  line: number;
  text: string;
}

/** Host, role and TP rank as one label; the parts an event lacks are left out. */
export function rankLabel(host: string | null, role: string | null, tp: number | null): string | null {
  const parts = [host, role, tp === null ? null : `tp${tp}`].filter((p): p is string => p !== null);
  return parts.length ? parts.join("/") : null;
}

function toRef(db: IncidentDb, r: EventPlace): EventRef {
  return {
    seq: r.seq,
    tsUs: r.tsUs,
    kind: r.kind,
    rank: rankLabel(r.host, r.role, r.tp),
    room: r.room,
    source: r.source,
    line: r.line,
    text: eventTexts(db).text(r.sourceId, r.line),
  };
}

export function eventRef(db: IncidentDb, seq: number): EventRef | null {
  const place = eventPlaces(db, [seq]).get(seq);
  return place ? toRef(db, place) : null;
}

/** The refs of many seqs at once, keyed by seq; seqs that name no event are absent. */
export function eventRefs(db: IncidentDb, seqs: Iterable<number>): Map<number, EventRef> {
  const out = new Map<number, EventRef>();
  for (const [seq, place] of eventPlaces(db, seqs)) out.set(seq, toRef(db, place));
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}
