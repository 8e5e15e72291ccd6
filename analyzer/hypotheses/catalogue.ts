// What a pattern may name: the kinds of the typed event union and their
// fields (domain/kinds.ts, one catalogue for the decoder and the
// language), seen through the language's types, plus the envelope fields
// every event has. A kind or field absent here is an error at its position
// (docs/hypotheses.md "Fields").

import { describeField, isKnownKind as isCatalogued, KINDS } from "../../domain/kinds.js";

/** How the language compares a field: JSON-valued fields (records, raw lists) can only be tested for presence. */
export type FieldType = "string" | "number" | "boolean" | "room" | "pages" | "json";

/** Fields every event has: where it was logged. `rank` is the TP rank in a condition, the whole rank identity as a key. */
export const ENVELOPE_FIELDS: Readonly<Record<string, FieldType>> = {
  side: "string",
  host: "string",
  dp: "number",
  pp: "number",
  tp: "number",
  rank: "number",
};

const LANGUAGE_TYPE: Readonly<Record<string, FieldType>> = {
  string: "string",
  side: "string",
  reasonKind: "string",
  number: "number",
  kvpoll: "number",
  boolean: "boolean",
  room: "room",
  pages: "pages",
  json: "json",
  record: "json",
};

/** Kind → its own fields in the language's types; `page` names a kind's `pages` one page at a time. */
const KIND_FIELDS: ReadonlyMap<string, Readonly<Record<string, FieldType>>> = new Map(
  Object.entries(KINDS).map(([kind, spec]) => {
    const fields: Record<string, FieldType> = {};
    for (const [name, f] of Object.entries(spec.fields)) fields[name] = LANGUAGE_TYPE[describeField(f).type]!;
    if (fields.pages === "pages") fields.page = "pages";
    return [kind, fields];
  }),
);

export const KIND_NAMES: readonly string[] = [...KIND_FIELDS.keys()];

/** The kind's own field of that name, if it has one (it wins over an envelope field: a checksum's dump `side`). */
export function ownFieldType(kind: string, field: string): FieldType | undefined {
  return KIND_FIELDS.get(kind)?.[field];
}

/** The type of `field` on events of `kind`, undefined when the kind has no such field. */
export function fieldType(kind: string, field: string): FieldType | undefined {
  return ownFieldType(kind, field) ?? ENVELOPE_FIELDS[field];
}

export function isKnownKind(kind: string): boolean {
  return isCatalogued(kind);
}

/** Every field a kind's pattern may test, envelope first. */
export function fieldsOf(kind: string): string[] {
  return [...Object.keys(ENVELOPE_FIELDS), ...Object.keys(KIND_FIELDS.get(kind) ?? {})];
}
