// The page-dump input format: a JSONL index of dumped index-K (or KV) pages
// (./record.ts), each record one `page.dump` event; the raw bytes it points
// to are read after the load by ./bytes.ts and kept in the incident's pages
// table (store/pages.ts), linked to the record's source and line.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import type { InputFormat, LineParser } from "../format.js";
import { epochUsFromValue, roomFromValue } from "../numerals.js";
import { applyIdentity, firstJsonObjects, jsonLinesParser } from "../records.js";
import { pageDumpAttrs, pageDumpRecordSchema } from "./record.js";
import { PAGE_DUMP_KIND } from "../../../domain/kinds.js";

const IDENTITY_FIELDS = new Set(["ts", "host", "role", "dp", "pp", "tp", "room"]);

function pageRecordToEvent(rec: Record<string, unknown>, text: string, lineNo: number, issues: ParseIssue[]): ParsedEvent | undefined {
  const tsUs = epochUsFromValue(rec.ts);
  const room = roomFromValue(rec.room);
  if (tsUs === undefined || room === undefined) {
    issues.push({ line: lineNo, message: `page-dump record needs ts and room (ts ${JSON.stringify(rec.ts)}, room ${JSON.stringify(rec.room)})` });
    return undefined;
  }
  const parsed = pageDumpRecordSchema.safeParse(rec);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    issues.push({ line: lineNo, message: `page-dump record: ${why}` });
    return undefined;
  }
  const f = parsed.data;
  const ev: ParsedEvent = { tsUs, line: lineNo, kind: PAGE_DUMP_KIND, text, room, layer: f.layer, pageLo: f.page, pageHi: f.page + 1 };
  const attrs: Record<string, unknown> = {};
  applyIdentity(ev, rec, attrs);
  Object.assign(attrs, pageDumpAttrs(f));
  for (const key of Object.keys(rec)) {
    if (!IDENTITY_FIELDS.has(key) && !(key in attrs) && !(key in f)) attrs[key] = rec[key];
  }
  ev.attrs = attrs;
  return ev;
}

function looksLikePageRecord(o: Record<string, unknown>): boolean {
  return o.ev === undefined && o.room !== undefined && typeof o.file === "string" && o.length !== undefined && o.dtype !== undefined;
}

export const pageDumpJsonl: InputFormat = {
  name: "page-dump-jsonl",
  detect(head) {
    return firstJsonObjects(head).some(looksLikePageRecord);
  },
  createParser(): LineParser {
    return jsonLinesParser(pageRecordToEvent);
  },
  // One record a line: a large index may be cut at any line (ingest/load/loadPlan.ts).
  isSeam: () => true,
};

