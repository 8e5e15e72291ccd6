// Reading a pattern's field from a domain event (analyzer/events): the one
// place the language meets the event's shape. An accessor is chosen once per
// (kind, field) when a hypothesis is compiled, so the scan does no name
// lookups per event.

import type { DomainEvent } from "../events/index.js";
import { fieldReader } from "../events/decode.js";
import { ENVELOPE_FIELDS, ownFieldType } from "./catalogue.js";

/** What the checker reads: an event decoded once by the typed layer. */
export type CheckedEvent = DomainEvent;

export type FieldValue = string | number | boolean | null;
export type Accessor = (ev: CheckedEvent) => FieldValue;

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
  const own = ownFieldType(kind, field);
  if (own === "pages") return (ev) => pagesOf(ev)[0] ?? null;
  if (own !== undefined) {
    const read = fieldReader(kind, field);
    return (ev) => scalar(read(ev));
  }
  if (ENVELOPE_FIELDS[field] !== undefined) return ENVELOPE[field]!;
  throw new Error(`no field ${field} on ${kind}`);
}

function scalar(v: unknown): FieldValue {
  if (v === undefined || v === null) return null;
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? v : JSON.stringify(v);
}

/** The rank identity `same rank` correlates by. */
export function rankKey(ev: CheckedEvent): string {
  return `${ev.host ?? ""}|${ev.role ?? ""}|${ev.dp ?? ""}|${ev.pp ?? ""}|${ev.tp ?? ""}`;
}

/** Every page of an event's page ranges, in order. */
export function pagesOf(ev: CheckedEvent): number[] {
  const ranges = (ev as { pages?: readonly (readonly [number, number])[] }).pages;
  const out: number[] = [];
  if (ranges) for (const [lo, hi] of ranges) for (let p = lo; p < hi; p++) out.push(p);
  return out;
}
