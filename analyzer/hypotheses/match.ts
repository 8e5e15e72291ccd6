// Compiling a pattern into a test of one event, and correlation keys into the
// strings events are grouped by. Chosen once per hypothesis (accessors per
// kind), so the scan does no name lookups.

import type { Condition, Distance, Key, Literal, Pattern } from "./ast.js";
import { fieldType, ownFieldType } from "./catalogue.js";
import { accessorFor, pagesOf, rankKey, type Accessor, type CheckedEvent, type FieldValue } from "./fields.js";

export type EventTest = (ev: CheckedEvent) => boolean;

export function compilePattern(p: Pattern): EventTest {
  const tests = p.where.map((c) => compileCondition(p.kind, c));
  if (tests.length === 0) return () => true;
  return (ev) => {
    for (const t of tests) if (!t(ev)) return false;
    return true;
  };
}

export function compileCondition(kind: string, c: Condition): EventTest {
  const type = fieldType(kind, c.field);
  if (type === "pages") return pageCondition(c);
  const get = accessorFor(kind, c.field);
  switch (c.op) {
    case "exists":
      return (ev) => get(ev) !== null;
    case "~": {
      const re = new RegExp(c.pattern);
      return (ev) => {
        const v = get(ev);
        return v !== null && re.test(String(v));
      };
    }
    case "in": {
      const wanted = new Set(c.values.map((v) => normal(type, v)));
      return (ev) => wanted.has(get(ev) as never);
    }
    case "=":
    case "!=": {
      const want = normal(type, c.value);
      return c.op === "=" ? (ev) => get(ev) === want : (ev) => get(ev) !== want;
    }
    default:
      return ordered(get, c.op, Number(c.value));
  }
}

/** A literal in the form the field's accessor returns it (numbers as numbers, rooms as decimal strings). */
function normal(type: string | undefined, v: Literal): FieldValue {
  if (type === "number") return Number(v);
  if (type === "boolean") return v;
  return String(v);
}

function ordered(get: Accessor, op: "<" | "<=" | ">" | ">=", n: number): EventTest {
  const num = (ev: CheckedEvent): number => {
    const v = get(ev);
    return typeof v === "number" ? v : NaN;
  };
  if (op === "<") return (ev) => num(ev) < n;
  if (op === "<=") return (ev) => num(ev) <= n;
  if (op === ">") return (ev) => num(ev) > n;
  return (ev) => num(ev) >= n;
}

/** `page = N`: the event's pages include N; `page in (...)`: one of them; orderings compare its first page. */
function pageCondition(c: Condition): EventTest {
  if (c.op === "exists") return (ev) => pagesOf(ev).length > 0;
  if (c.op === "=" || c.op === "!=" || c.op === "in") {
    const wanted = c.op === "in" ? c.values.map(Number) : [Number(c.value)];
    const has = (ev: CheckedEvent) => pagesOf(ev).some((p) => wanted.includes(p));
    return c.op === "!=" ? (ev) => !has(ev) : has;
  }
  const first = (ev: CheckedEvent) => pagesOf(ev)[0] ?? null;
  if (c.op === "~") {
    const re = new RegExp(c.pattern);
    return (ev) => first(ev) !== null && re.test(String(first(ev)));
  }
  return ordered(first, c.op, Number(c.value));
}

/**
 * The key strings of an event for `keys` (one per page when `page` is among
 * them), or null when a field is absent. Without `page` the list is one
 * array of the function's own, refilled at each call: read it before the
 * next call (the checker's steps do), keep its strings rather than it.
 */
export type KeyFn = (ev: CheckedEvent) => readonly string[] | null;

export function compileKeys(kind: string, keys: readonly Key[], side: "subject" | "other"): KeyFn {
  const fields = keys.map((k) => (side === "subject" ? k.field : (k.other ?? k.field)));
  const isPages = (f: string) => ownFieldType(kind, f) === "pages";
  const parts = fields.filter((f) => !isPages(f)).map((f): Accessor => (f === "rank" ? rankKey : accessorFor(kind, f)));
  const byPage = fields.some(isPages);
  const single = (ev: CheckedEvent): string | null => {
    let key = "";
    for (const get of parts) {
      const v = get(ev);
      if (v === null) return null;
      key += `${String(v)}\u0001`;
    }
    return key;
  };
  // One key per event: an array per call would be most of what a pass of the ledger allocates.
  const one = [""];
  if (!byPage && parts.length === 1) {
    // One field needs no separator: a room's key is the block's own string, whose hash V8 keeps, not a new one per event.
    const get = parts[0]!;
    return (ev) => {
      const v = get(ev);
      if (v === null) return null;
      one[0] = typeof v === "string" ? v : String(v);
      return one;
    };
  }
  if (!byPage) {
    return (ev) => {
      const k = single(ev);
      if (k === null) return null;
      one[0] = k;
      return one;
    };
  }
  return (ev) => {
    const k = single(ev);
    const pages = pagesOf(ev);
    return k === null || pages.length === 0 ? null : pages.map((p) => `${k}${p}`);
  };
}

/** Whether a partner is within the clause's distance (in time or in events) of the earlier event. */
export function closeEnough(within: Distance | undefined): (earlierSeq: number, earlierTsUs: number, later: { seq: number; tsUs: number }) => boolean {
  if (!within) return () => true;
  if ("us" in within) return (_seq, tsUs, b) => b.tsUs - tsUs <= within.us;
  return (seq, _tsUs, b) => b.seq - seq <= within.events;
}

/** The room of an event whose keys name one. */
export type RoomOf = (ev: CheckedEvent) => string | null;

/** The event's room when `keys` correlate by room on every kind given (each kind's own `room`, the event's room column); null otherwise. */
export function roomOfKeys(keys: readonly Key[], kinds: readonly string[]): RoomOf | null {
  const byRoom = keys.some((k) => k.field === "room" && (k.other ?? k.field) === "room");
  if (!byRoom || !kinds.every((kind) => ownFieldType(kind, "room") === "room")) return null;
  const get = accessorFor(kinds[0]!, "room");
  return (ev) => {
    const room = get(ev);
    return typeof room === "string" ? room : null;
  };
}
