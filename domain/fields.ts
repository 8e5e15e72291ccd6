// The vocabulary of a domain event's fields: each field has one of these
// types, and the catalogue (catalogue.ts) names it for every kind. A type
// says both what TypeScript sees and how the decoder reads a stored value:
// the coercions are the ones the model and the rules applied when they read
// attributes by key (a number may arrive as an integer string, a flag as 0/1).

import type { KVPollValue } from "./vocabulary.js";

/** Closed sets of words a field may take. */
export const ENUMS = {
  side: ["prefill", "decode"],
  /** docs/protocol.md §3.5: what a PD failure line's reason is (ingest/formats/sglang/failureReason.ts). */
  reasonKind: ["timeout", "abort", "peer_loss", "bootstrap", "mooncake_transfer", "propagated", "nixl_error", "other"],
} as const;

export type EnumName = keyof typeof ENUMS;

/** Half-open page ranges [[lo, hi), ...] (DESIGN.md "Probe JSONL record" `pages`). */
export type PageRanges = readonly (readonly [number, number])[];

/** What each field type is in TypeScript. */
export interface FieldValues {
  /** Text; a number the record printed bare is kept as its decimal text. */
  string: string;
  /** A finite number; an integer written as text is read as a number. */
  number: number;
  boolean: boolean;
  /** SGLang's bootstrap_room: a 63-bit integer kept as its exact decimal string. */
  room: string;
  /** A KVPoll value, 0 Failed .. 4 Success (docs/protocol.md §5). */
  kvpoll: KVPollValue;
  pages: PageRanges;
  /** A JSON value as the record gave it. */
  json: unknown;
  /** An open set of named values (batch-line gauges, run settings). */
  record: Readonly<Record<string, unknown>>;
  side: (typeof ENUMS.side)[number];
  reasonKind: (typeof ENUMS.reasonKind)[number];
}

export type FieldType = keyof FieldValues;

export const FIELD_TYPES: readonly FieldType[] = ["string", "number", "boolean", "room", "kvpoll", "pages", "json", "record", "side", "reasonKind"];

export function readString(v: unknown): string | undefined {
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
}

export function readNumber(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
  return undefined;
}

export function readBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === 0 || v === 1) return v === 1;
  if (v === "0" || v === "1") return v === "1";
  return undefined;
}

export function readKvPoll(v: unknown): KVPollValue | undefined {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 4 ? (v as KVPollValue) : undefined;
}

export function readEnum(name: EnumName, v: unknown): string | undefined {
  return typeof v === "string" && (ENUMS[name] as readonly string[]).includes(v) ? v : undefined;
}

function isRange(r: unknown): r is [number, number] {
  return Array.isArray(r) && r.length === 2 && typeof r[0] === "number" && typeof r[1] === "number";
}

/** A list of [lo, hi) ranges (or one range), keeping only the well-formed ones. */
export function readRanges(v: unknown): PageRanges | undefined {
  if (!Array.isArray(v)) return undefined;
  if (isRange(v)) return [v];
  for (let i = 0; i < v.length; i++) if (!isRange(v[i])) return v.filter(isRange);
  return v as [number, number][];
}

export function readRecord(v: unknown): Readonly<Record<string, unknown>> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
