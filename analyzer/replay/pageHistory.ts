// "The last write to this page before this read": for each page a read
// touches, the write the model's shadow memory holds for it just before the
// read (a kernel.store, or a kv.post whose destination it is: a post names the
// prefill's own pages, the decode pages come from the room's metadata, so only
// the model knows the mapping), and the kv.done that landed it, if one did
// before the read.

import { rankLabel } from "../model/index.js";
import type { IncidentDb } from "../../store/db.js";
import { eventBySeq } from "../../store/read/events.js";
import { eventRef, type EventRef } from "./eventRefs.js";
import { timeline, viewAt } from "./timeTravel.js";
import { landingBetween, lastSeqAtOrBefore } from "../../store/read/seqs.js";

export interface PageLastWrite {
  rank: string;
  buffer: string;
  page: number;
  ownerRoom: string | null;
  /** The writing room and chunk, and the allocation epoch it wrote under. */
  writer: { room: string; chunk: number | null; epoch: number } | null;
  /** The event that posted (or stored) the write. */
  write: EventRef | null;
  /** Whether the write had landed when the read ran. */
  landed: boolean;
  /** The kv.done that reported the chunk's transfer done, when one came before the read. */
  landing: EventRef | null;
}

export interface LastWriteAnswer {
  read: EventRef;
  pages: PageLastWrite[];
}

/** The pages an event names: attrs.pages ranges, else its [pageLo, pageHi) hull. */
function pagesOf(attrs: Record<string, unknown> | null, lo: number | null, hi: number | null): [number, number][] {
  const v = attrs?.pages;
  if (Array.isArray(v)) {
    return v.filter((r): r is [number, number] => Array.isArray(r) && typeof r[0] === "number" && typeof r[1] === "number");
  }
  return lo !== null && hi !== null ? [[lo, hi]] : [];
}

/** Null when `readSeq` names no event or an event without pages. */
export function lastWriteBefore(db: IncidentDb, readSeq: number, profileFlag?: string): LastWriteAnswer | null {
  const ev = eventBySeq(db, readSeq);
  const read = eventRef(db, readSeq);
  if (!ev || !read) return null;
  const ranges = pagesOf(ev.attrs, ev.pageLo, ev.pageHi);
  if (ranges.length === 0) return null;
  const buffer = typeof ev.attrs?.buffer === "string" ? ev.attrs.buffer : null;
  const line = timeline(db, profileFlag);
  const rank = rankLabel(ev.host, ev.role ?? "decode", ev.pp, ev.tp, line.options.qualifyHosts ?? false);
  const before = lastSeqAtOrBefore(db, readSeq - 1);
  const view = viewAt(line, before);
  const inRange = (p: number): boolean => ranges.some(([lo, hi]) => p >= lo && p < hi);
  const pages = view.pages
    .filter((p) => p.rank === rank && (buffer === null || p.buffer === buffer) && inRange(p.page))
    .sort((a, b) => a.page - b.page || (a.buffer < b.buffer ? -1 : 1))
    .map((p): PageLastWrite => {
      const w = p.lastWriter;
      const landingSeq = w ? landingBetween(db, w.room, w.chunk, w.seq, readSeq) : null;
      return {
        rank: p.rank,
        buffer: p.buffer,
        page: p.page,
        ownerRoom: p.ownerRoom,
        writer: w ? { room: w.room, chunk: w.chunk, epoch: w.epoch } : null,
        write: w ? eventRef(db, w.seq) : null,
        landed: p.landed,
        landing: landingSeq === null ? null : eventRef(db, landingSeq),
      };
    });
  return { read, pages };
}
