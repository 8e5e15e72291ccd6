// Probe JSONL (DESIGN.md "Probe JSONL record"): one JSON object a line.
//
// Grammar: {"ts": <seconds float | integer ns>, "ev": <name>, "host"?, "role"?,
// "dp"?, "pp"?, "tp"?, "room"?, "rid"?, "chunk"?, "layer"?,
// "pages"?: [[lo, hi), ...], <any other field>...}
//
// The event kind is `ev` unchanged, known or not. Fields with a column of
// their own go there (`pages` as its hull, the full list in attrs when it
// has several ranges; `kv.poll` reduced/local and a KVPoll `state` as
// `state`); every other field is kept in attrs. A `kv.notify` record's `tag`
// is decoded into fields (notifFields.ts). A line that is not a JSON
// object or lacks ts/ev is a ParseIssue with its line number; a field of the
// wrong shape for its `ev` (probe/schema.ts) is left out and reported with it.

import type { ParsedEvent, ParseIssue } from "../../domain/event.js";
import { parseNotifTag } from "../../domain/notifTag.js";
import { putNotifTag } from "./notifFields.js";
import type { InputFormat, LineParser } from "./format.js";
import { fieldProblems, layerRange } from "./probe/schema.js";
import { epochUsFromValue, intFromValue, roomFromValue } from "./numerals.js";
import { applyIdentity, firstJsonObjects, jsonLinesParser, pageHull, stateFromValue } from "./records.js";

/** Fields consumed by columns; everything else goes to attrs. */
const COLUMN_FIELDS = new Set(["ts", "ev", "host", "role", "dp", "pp", "tp", "room", "rid", "chunk", "layer", "pages"]);

export function probeRecordToEvent(
  record: Record<string, unknown>,
  text: string,
  lineNo: number,
  issues: ParseIssue[],
): ParsedEvent | undefined {
  let rec = record;
  if (rec.ts === undefined) return issue(issues, lineNo, "probe record lacks ts");
  if (typeof rec.ev !== "string" || rec.ev === "") return issue(issues, lineNo, "probe record lacks ev");
  const tsUs = epochUsFromValue(rec.ts);
  if (tsUs === undefined) return issue(issues, lineNo, `probe record ts ${JSON.stringify(rec.ts)} is not a time`);

  rec = withoutBadFields(rec, lineNo, issues);
  const ev: ParsedEvent = { tsUs, line: lineNo, kind: rec.ev as string, text };
  const attrs: Record<string, unknown> = {};
  applyIdentity(ev, rec, attrs);
  const room = roomFromValue(rec.room);
  if (room !== undefined) ev.room = room;
  else if (rec.room !== undefined) attrs.room = rec.room;
  if (typeof rec.rid === "string") ev.rid = rec.rid;
  else if (rec.rid !== undefined) attrs.rid = rec.rid;
  setInt(ev, "chunk", rec.chunk, attrs);
  setInt(ev, "layer", rec.layer, attrs);
  if (rec.pages !== undefined) {
    const hull = pageHull(rec.pages);
    if (hull) {
      ev.pageLo = hull.lo;
      ev.pageHi = hull.hi;
    }
    if (!hull || hull.ranges > 1) attrs.pages = rec.pages;
  }
  // A record is a plain object (flatJson.ts, JSON.parse): for…in visits its own keys, in Object.keys' order, with no array made.
  for (const key in rec) {
    if (!COLUMN_FIELDS.has(key)) attrs[key] = rec[key];
  }
  const range = ev.kind === "hicache.load" ? layerRange(rec.layers) : undefined;
  if (range) {
    attrs.layers = range.end;
    attrs.first_layer = range.first;
  }
  const state = pollState(rec);
  if (state !== undefined) {
    ev.state = state;
    if (typeof rec.state === "number") delete attrs.state;
  }
  if (ev.kind === "kv.notify" && typeof rec.tag === "string") {
    const tag = parseNotifTag(rec.tag);
    if (tag !== null) putNotifTag(ev, tag, attrs);
  }
  for (const _ in attrs) {
    ev.attrs = attrs;
    break;
  }
  return ev;
}

/** The record without the fields that break its `ev`'s schema (probe/schema.ts), each reported with the line. */
function withoutBadFields(rec: Record<string, unknown>, lineNo: number, issues: ParseIssue[]): Record<string, unknown> {
  const problems = fieldProblems(rec.ev as string, rec);
  if (problems.length === 0) return rec;
  const kept = { ...rec };
  for (const p of problems) {
    issues.push({ line: lineNo, message: `probe ${String(rec.ev)} field ${p.field} ${JSON.stringify(rec[p.field])}: ${p.message}; left out (docs/evidence.md §3)` });
    delete kept[p.field];
  }
  return kept;
}

/** kv.poll carries `local` and `reduced`; the reduced value is what the scheduler acts on (§8). */
function pollState(rec: Record<string, unknown>): number | undefined {
  if (rec.ev === "kv.poll") return stateFromValue(rec.reduced) ?? stateFromValue(rec.local);
  return stateFromValue(rec.state);
}

function setInt(ev: ParsedEvent, field: "chunk" | "layer", v: unknown, attrs: Record<string, unknown>): void {
  if (v === undefined) return;
  const n = intFromValue(v);
  if (n !== undefined) ev[field] = n;
  else attrs[field] = v;
}

function issue(issues: ParseIssue[], line: number, message: string): undefined {
  issues.push({ line, message });
  return undefined;
}


export const probeJsonl: InputFormat = {
  name: "probe-jsonl",
  detect(head) {
    return firstJsonObjects(head).some((o) => typeof o.ev === "string" && o.ts !== undefined);
  },
  createParser(): LineParser {
    return jsonLinesParser(probeRecordToEvent);
  },
  // One record a line, read alone: a file may be cut at any line.
  isSeam: () => true,
};
