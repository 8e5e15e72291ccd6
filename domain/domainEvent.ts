// The domain event: a stored event with its meaning decided (decode.ts), one
// member of a discriminated union per kind of the catalogue, plus an explicit
// `other` for kinds no part of kvrewind knows. Read-only; no I/O of its own.

import type { Role } from "./vocabulary.js";
import type { FieldSpec, KnownKind } from "./kinds.js";
import { KINDS } from "./kinds.js";
import type { FieldValues } from "./fields.js";

/** What every event carries, whatever its kind: its place in the order, its provenance and its rank. */
export interface Envelope {
  readonly seq: number;
  /** Aligned time, µs since the epoch (domain/event.ts). */
  readonly tsUs: number;
  /** The record has no time of its own: `tsUs` was interpolated or anchored. */
  readonly tsInferred: boolean;
  /** Its time is unknown: `tsUs` is its place in the order only (domain/event.ts). */
  readonly timeless?: boolean;
  readonly sourceId: number;
  /** 1-based line of the record's first line in its source. */
  readonly line: number;
  readonly host: string | null;
  readonly role: Role | null;
  readonly dp: number | null;
  readonly pp: number | null;
  readonly tp: number | null;
  /** The raw record as it stood in the file (the replay's cursor fetches it from the store when it is read). */
  readonly text: string;
}

export const ENVELOPE_FIELDS = {
  seq: "number",
  tsUs: "number",
  tsInferred: "boolean",
  sourceId: "number",
  line: "number",
  host: "string?",
  role: "string?",
  dp: "number?",
  pp: "number?",
  tp: "number?",
  text: "string",
} as const;

type TypeOf<S> = S extends { readonly type: infer T } ? TypeOf<T> : S extends `${infer B}?` ? B : S;
type Optional<S> = S extends { readonly type: infer T } ? Optional<T> : S extends `${string}?` ? true : false;
type ValueOf<S> = TypeOf<S> extends keyof FieldValues ? FieldValues[TypeOf<S>] : never;

type Fields<F extends Record<string, FieldSpec>> = {
  readonly [K in keyof F as Optional<F[K]> extends true ? never : K]: ValueOf<F[K]>;
} & {
  readonly [K in keyof F as Optional<F[K]> extends true ? K : never]?: ValueOf<F[K]>;
};

type KindEvent<K extends KnownKind> = Envelope & { readonly kind: K } & Fields<(typeof KINDS)[K]["fields"]>;

/** A kind the catalogue does not know (a probe `ev` of someone's own): kept whole, never rejected. */
export interface OtherEvent extends Envelope {
  readonly kind: "other";
  /** The kind as stored. */
  readonly storedKind: string;
  readonly room?: string;
  readonly rid?: string;
  readonly chunk?: number;
  readonly layer?: number;
  readonly state?: number;
  readonly pageLo?: number;
  readonly pageHi?: number;
  readonly attrs: Readonly<Record<string, unknown>>;
}

export type KnownEvent = { [K in KnownKind]: KindEvent<K> }[KnownKind];
/** The event of a known kind, or of any of several (a union, narrowed by `kind`). */
export type EventOf<K extends KnownKind> = Extract<KnownEvent, { readonly kind: K }>;
export type DomainEvent = KnownEvent | OtherEvent;
export type DomainKind = DomainEvent["kind"];
