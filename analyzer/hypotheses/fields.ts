// Reading a pattern's field from an event: the one place the language meets
// the event's shape. An accessor is chosen once per (kind, field) when a
// hypothesis is compiled, so the scan does no name lookups per event.

import type { StoredEvent } from "../../ingest/store/queries.js";
import { ENVELOPE_FIELDS, KIND_FIELDS } from "./catalogue.js";

/** What the checker reads of an event: the store's event, or a cursor over it. */
export type CheckedEvent = Pick<
  StoredEvent,
  "seq" | "tsUs" | "kind" | "host" | "role" | "dp" | "pp" | "tp" | "room" | "rid" | "chunk" | "layer" | "pageLo" | "pageHi" | "state" | "attrs"
>;

export type FieldValue = string | number | boolean | null;
export type Accessor = (ev: CheckedEvent) => FieldValue;

const COLUMNS: Readonly<Record<string, Accessor>> = {
  room: (ev) => ev.room ?? attrValue(ev, "room"),
  rid: (ev) => ev.rid ?? attrValue(ev, "rid"),
  chunk: (ev) => ev.chunk ?? attrValue(ev, "chunk"),
  layer: (ev) => ev.layer ?? attrValue(ev, "layer"),
  state: (ev) => ev.state ?? attrValue(ev, "state"),
  page: (ev) => ev.pageLo,
};

const ENVELOPE: Readonly<Record<string, Accessor>> = {
  side: (ev) => ev.role,
  host: (ev) => ev.host,
  dp: (ev) => ev.dp,
  pp: (ev) => ev.pp,
  tp: (ev) => ev.tp,
  rank: (ev) => ev.tp,
};

/** The kind's own field wins over an envelope field of the same name (a checksum's dump `side`). */
export function accessorFor(kind: string, field: string): Accessor {
  if (KIND_FIELDS[kind]?.[field] !== undefined) return COLUMNS[field] ?? ((ev) => attrValue(ev, field));
  if (ENVELOPE_FIELDS[field] !== undefined) return ENVELOPE[field]!;
  throw new Error(`no field ${field} on ${kind}`);
}

function attrValue(ev: CheckedEvent, field: string): FieldValue {
  const v = ev.attrs?.[field];
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : v === undefined || v === null ? null : JSON.stringify(v);
}

/** The rank identity `same rank` correlates by. */
export function rankKey(ev: CheckedEvent): string {
  return `${ev.host ?? ""}|${ev.role ?? ""}|${ev.dp ?? ""}|${ev.pp ?? ""}|${ev.tp ?? ""}`;
}

/** The pages of an event: each range of `attrs.pages` when it lists several, else [pageLo, pageHi). */
export function pagesOf(ev: CheckedEvent): number[] {
  const listed = ev.attrs?.pages;
  const ranges: [number, number][] = Array.isArray(listed)
    ? (listed.filter((r) => Array.isArray(r) && typeof r[0] === "number" && typeof r[1] === "number") as [number, number][])
    : ev.pageLo === null
      ? []
      : [[ev.pageLo, ev.pageHi ?? ev.pageLo + 1]];
  const out: number[] = [];
  for (const [lo, hi] of ranges) for (let p = lo; p < hi; p++) out.push(p);
  return out;
}
