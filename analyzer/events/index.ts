// The typed decode layer (issue 12 item 3): every stored event decoded once
// into a DomainEvent that the model and the rules consume, and the catalogue
// of kinds → fields → types that tools (the hypothesis language) check
// patterns against: an unknown kind or field there is an error.

import { describeField, KINDS, type CatalogueDescription, type FieldDescription, type FieldSpec } from "../../domain/kinds.js";
import { ENVELOPE_FIELDS } from "../../domain/domainEvent.js";

export { decodeEvent, decodeAs } from "./decode.js";
export { isKnownKind, KINDS, type KnownKind, type CatalogueDescription, type FieldDescription } from "../../domain/kinds.js";
export type { DomainEvent, DomainKind, Envelope, EventOf, KnownEvent, OtherEvent } from "../../domain/domainEvent.js";
export type { PageRanges } from "../../domain/fields.js";

/** Fields of the `other` member: what the store holds of an event of a kind no catalogue entry names. */
const OTHER_FIELDS: Record<string, FieldSpec> = {
  storedKind: "string",
  room: "room?",
  rid: "string?",
  chunk: "number?",
  layer: "number?",
  state: "number?",
  pageLo: "number?",
  pageHi: "number?",
  attrs: "record",
};

function describeAll(fields: Readonly<Record<string, FieldSpec>>): Record<string, FieldDescription> {
  return Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, describeField(spec)]));
}

/** The machine-readable catalogue: JSON-serialisable, in the catalogue's order, `other` last. */
export function kindCatalogue(): CatalogueDescription {
  const kinds: CatalogueDescription["kinds"] = {};
  for (const [kind, spec] of Object.entries(KINDS)) kinds[kind] = { doc: spec.doc, fields: describeAll(spec.fields) };
  kinds.other = { doc: "an event of a kind the catalogue does not name, kept whole", fields: describeAll(OTHER_FIELDS) };
  return { envelope: describeAll(ENVELOPE_FIELDS), kinds };
}
