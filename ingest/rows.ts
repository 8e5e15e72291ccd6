// The row shape that travels from the parse worker to the store writer: the
// values of one `events` row in EVENT_COLUMNS order, rows packed flat into
// blocks of ROWS_PER_BLOCK (one multi-row INSERT each). `seq` is not sent:
// rows arrive in the global order and take consecutive rowids.

import type { ParsedEvent } from "./event.js";

export const EVENT_COLUMNS = [
  "ts_us",
  "source_id",
  "line",
  "host",
  "role",
  "dp",
  "pp",
  "tp",
  "kind",
  "room",
  "rid",
  "chunk",
  "layer",
  "page_lo",
  "page_hi",
  "state",
  "attrs",
  "text",
] as const;

export const ROW_WIDTH = EVENT_COLUMNS.length;
export const ROWS_PER_BLOCK = 64;

/** Positions of the merge key in a row. */
export const TS_COL = 0;
export const SOURCE_COL = 1;
export const LINE_COL = 2;
export const HOST_COL = 3;

export type RowBlock = unknown[];

export function attrsJson(attrs: Record<string, unknown> | undefined): string | null {
  if (attrs === undefined) return null;
  let empty = true;
  for (const _ in attrs) {
    empty = false;
    break;
  }
  if (empty) return null;
  try {
    return JSON.stringify(attrs);
  } catch {
    // A parser left a BigInt in attrs: keep it as its exact decimal string.
    return JSON.stringify(attrs, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
  }
}

/** Appends one event's row to a block. */
export function pushRow(
  block: RowBlock,
  ev: ParsedEvent,
  sourceId: number,
  tsUs: number,
  host: string | null,
  role: string | null,
): void {
  block.push(
    tsUs,
    sourceId,
    ev.line,
    host,
    role,
    ev.dp ?? null,
    ev.pp ?? null,
    ev.tp ?? null,
    ev.kind,
    ev.room ?? null,
    ev.rid ?? null,
    ev.chunk ?? null,
    ev.layer ?? null,
    ev.pageLo ?? null,
    ev.pageHi ?? null,
    ev.state ?? null,
    attrsJson(ev.attrs),
    ev.text,
  );
}

/** "decode/tp3", "prefill/dp1/tp4": how a rank is named in summaries (DESIGN.md findings `ranks`). */
export function rankName(role: string | null, dp: number | undefined, pp: number | undefined, tp: number | undefined): string {
  let name = role ?? "unknown";
  if (dp !== undefined) name += `/dp${dp}`;
  if (pp !== undefined) name += `/pp${pp}`;
  if (tp !== undefined) name += `/tp${tp}`;
  return name;
}
