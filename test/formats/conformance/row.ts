// One row of the conformance table: the fields kvrewind must make of a real
// line of a log call read in the real source. Each row names a template of
// the table (ingest/formats/templates/) and one of its sample lines, which
// say where the call was read.
// Expectations are written by hand from the source's format string and the
// catalogue, never copied from the parser.

import { TEMPLATES } from "../../../ingest/formats/templates/index.js";

export interface Expected {
  kind: string;
  role?: string;
  room?: string;
  rid?: string;
  state?: number;
  dp?: number;
  pp?: number;
  tp?: number;
  chunk?: number;
  /** Each key must be present with this value; keys not listed are not checked. */
  attrs?: Record<string, unknown>;
}

export interface SglangConformanceRow {
  /** The template's id in the table. */
  template: string;
  /** Which of the template's sample lines (its index; the first when absent). */
  sample?: number;
  /** Unprefixed lines that continue the record (a traceback). */
  more?: string[];
  expect: Expected;
}

/** A C++ row: a template of an engine component (mooncakeTransferEngine, nixlAgent, ucx) and one of its samples. */
export type EngineConformanceRow = SglangConformanceRow;

/** 19-digit bootstrap rooms and 32-hex rids, as SGLang prints them. */
export const ROOM = "6555093254675405189";
export const ROOM2 = "5839938415251080346";
export const RID = "a04107ccff5349bab42803eb77df5cd5";
export const RID2 = "63b1b22dad53465b92560ebdda56d075";

/** The SGLang prefix in its two forms: seconds with DP/TP tags, and SGLANG_LOG_MS=1. */
export const P = "[2026-06-11 14:03:07 DP0 TP3]";
export const PMS = "[2026-06-11 14:03:07.554 TP3]";

/** The sample line a row names. */
export function rowLine(row: SglangConformanceRow): string {
  const line = TEMPLATES.find((t) => t.id === row.template)?.samples[row.sample ?? 0];
  if (line === undefined) throw new Error(`${row.template}: no such template or sample ${row.sample ?? 0}`);
  return line;
}
