// What a kind's catalogue entry is (domain/kinds.ts): its lane, its tone and
// its typed fields, and the two ways a field is read other than from the
// attribute of its own name.

import type { FieldType } from "./fields.js";
import type { Component } from "./vocabulary.js";

type Typed = FieldType | `${FieldType}?`;
export type FieldSpec = Typed | { readonly type: Typed; readonly attr: readonly string[] } | { readonly type: Typed; readonly derived: string };
/** How loud a kind is on the timeline: 0 routine, 1 worth a look (aborts, timeouts), 2 a failure. */
export type Tone = 0 | 1 | 2;

export interface KindSpec {
  readonly doc: string;
  /** The timeline lane component its events are drawn in. */
  readonly lane: Component;
  readonly tone: Tone;
  /** A fixed shade for kinds every incident has; others take a shade of their lane's colour family. */
  readonly colour?: string;
  readonly fields: Readonly<Record<string, FieldSpec>>;
}

export const attr = <T extends Typed>(type: T, ...keys: string[]) => ({ type, attr: keys }) as const;
export const derived = <T extends Typed>(type: T, doc: string) => ({ type, derived: doc }) as const;
