// Builds the plain StoredEvent rows the model takes, in seq order, the way the
// store hands them out: probe records keep their `ev` name as the kind and
// their fields in attrs, a notification's tag decoded into its fields as the
// probe reader decodes it (ingest/formats/notifFields.ts); log lines carry
// their text. Test support, not a test.

import type { StoredEvent } from "../../store/read/events.js";
import type { Role } from "../../domain/vocabulary.js";
import type { ParsedEvent } from "../../domain/event.js";
import { parseNotifTag } from "../../domain/notifTag.js";
import { putNotifTag } from "../../ingest/formats/notifFields.js";

export interface EventFields {
  role?: Role;
  host?: string;
  tp?: number;
  pp?: number;
  room?: string;
  rid?: string;
  chunk?: number;
  layer?: number;
  pages?: [number, number][];
  state?: number;
  attrs?: Record<string, unknown>;
  text?: string;
  /** Seconds after the stream's start. */
  at?: number;
}

export const T0_US = 1_764_421_512_000_000;

export class Stream {
  readonly events: StoredEvent[] = [];
  private seq = 0;

  add(kind: string, f: EventFields = {}): StoredEvent {
    const seq = ++this.seq;
    const pages = f.pages;
    const attrs = { ...(f.attrs ?? {}) };
    if (pages !== undefined) attrs.pages = pages;
    const lo = pages === undefined || pages.length === 0 ? null : Math.min(...pages.map((p) => p[0]));
    const hi = pages === undefined || pages.length === 0 ? null : Math.max(...pages.map((p) => p[1]));
    const decoded = kind === "kv.notify" ? notifTagOf(f, attrs) : {};
    const ev: StoredEvent = {
      seq,
      tsInferred: false,
      tsUs: T0_US + Math.round((f.at ?? seq * 0.001) * 1e6),
      sourceId: 1,
      line: seq,
      host: f.host ?? null,
      role: f.role ?? null,
      dp: null,
      pp: f.pp ?? null,
      tp: f.tp ?? null,
      kind,
      room: decoded.room ?? f.room ?? null,
      rid: f.rid ?? null,
      chunk: decoded.chunk ?? f.chunk ?? null,
      layer: f.layer ?? null,
      pageLo: lo,
      pageHi: hi,
      state: f.state ?? null,
      attrs: Object.keys(attrs).length === 0 ? null : attrs,
      text: f.text ?? JSON.stringify({ ev: kind, room: f.room, ...attrs }),
    };
    this.events.push(ev);
    return ev;
  }
}

/** A probe notification's tag decoded as the ingest does: room and chunk for the columns, the other fields put into `attrs`. */
function notifTagOf(f: EventFields, attrs: Record<string, unknown>): { room?: string; chunk?: number } {
  const tag = typeof attrs.tag === "string" ? parseNotifTag(attrs.tag) : null;
  if (tag === null) return {};
  const ev = { room: f.room, chunk: f.chunk } as ParsedEvent;
  putNotifTag(ev, tag, attrs);
  return { ...(ev.room !== undefined && { room: ev.room }), ...(ev.chunk !== undefined && { chunk: ev.chunk }) };
}
