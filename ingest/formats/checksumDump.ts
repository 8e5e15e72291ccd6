// Checksum dumps (DESIGN.md "Inputs" 3): per-room, per-page checksums of a
// buffer, as JSONL or as CSV with a header of the same names:
//
//   ts, host, role, tp, side ("prefill_store" | "decode_recv" | "decode_read"),
//   room, buffer ("index_k" | "kv"), layer, page, pos, algo ("crc32" | "xxh64" | ...), hash
//
// Each record becomes one `checksum` event: room, layer and the page (as the
// range [page, page + 1)) in columns; side, buffer, pos, algo and the hash
// (lowercase hex) in attrs, with any other field. `page` is the page index in
// the dumping side's own pool and `pos` the page's position in the room's
// sequence, so the two sides of a room compare by (room, buffer, layer, pos).

import { type ParsedEvent, type ParseIssue } from "../../domain/event.js";
import { ChecksumKind } from "../../domain/kinds.js";
import type { InputFormat, LineParser } from "./format.js";
import { epochUsFromValue, intFromValue, roomFromValue } from "./numerals.js";
import { applyIdentity, firstJsonObjects, isBlank, jsonLinesParser } from "./records.js";

const COLUMN_FIELDS = new Set(["ts", "host", "role", "dp", "pp", "tp", "room", "layer", "page", "hash"]);
const INT_ATTRS = new Set(["pos"]);

function checksumRecordToEvent(
  rec: Record<string, unknown>,
  text: string,
  lineNo: number,
  issues: ParseIssue[],
): ParsedEvent | undefined {
  const missing = ["ts", "room", "hash"].filter((f) => rec[f] === undefined || rec[f] === "");
  if (missing.length > 0) {
    issues.push({ line: lineNo, message: `checksum record lacks ${missing.join(", ")}` });
    return undefined;
  }
  const tsUs = epochUsFromValue(rec.ts);
  if (tsUs === undefined) {
    issues.push({ line: lineNo, message: `checksum record ts ${JSON.stringify(rec.ts)} is not a time` });
    return undefined;
  }
  const ev: ParsedEvent = { tsUs, line: lineNo, kind: ChecksumKind, text };
  const attrs: Record<string, unknown> = {};
  applyIdentity(ev, rec, attrs);
  const room = roomFromValue(rec.room);
  if (room !== undefined) ev.room = room;
  else attrs.room = rec.room;
  const layer = intFromValue(rec.layer);
  if (layer !== undefined) ev.layer = layer;
  else if (rec.layer !== undefined) attrs.layer = rec.layer;
  const page = intFromValue(rec.page);
  if (page !== undefined) {
    ev.pageLo = page;
    ev.pageHi = page + 1;
  } else if (rec.page !== undefined) attrs.page = rec.page;
  attrs.hash = typeof rec.hash === "string" ? rec.hash.toLowerCase() : rec.hash;
  for (const key of Object.keys(rec)) {
    if (COLUMN_FIELDS.has(key)) continue;
    attrs[key] = INT_ATTRS.has(key) ? (intFromValue(rec[key]) ?? rec[key]) : rec[key];
  }
  ev.attrs = attrs;
  return ev;
}

function looksLikeChecksum(o: Record<string, unknown>): boolean {
  return o.ev === undefined && o.hash !== undefined && o.room !== undefined && (o.page !== undefined || o.pos !== undefined);
}

export const checksumJsonl: InputFormat = {
  name: "checksum-jsonl",
  detect(head) {
    return firstJsonObjects(head).some(looksLikeChecksum);
  },
  createParser(): LineParser {
    return jsonLinesParser(checksumRecordToEvent);
  },
};

/** Splits one CSV line (RFC 4180 quoting: "a,b" and "" for a quote). */
export function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    if (line.charCodeAt(i) === 34) {
      let cell = "";
      let j = i + 1;
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) {
          cell += line.slice(j);
          j = line.length;
          break;
        }
        cell += line.slice(j, q);
        if (line.charCodeAt(q + 1) === 34) {
          cell += '"';
          j = q + 2;
        } else {
          j = q + 1;
          break;
        }
      }
      cells.push(cell);
      const comma = line.indexOf(",", j);
      if (comma < 0) return cells;
      i = comma + 1;
    } else {
      const comma = line.indexOf(",", i);
      cells.push((comma < 0 ? line.slice(i) : line.slice(i, comma)).trim());
      if (comma < 0) return cells;
      i = comma + 1;
    }
  }
}

function csvHeader(line: string): string[] | undefined {
  const names = splitCsvLine(line.trim()).map((n) => n.trim().toLowerCase());
  return names.includes("hash") && names.includes("room") && (names.includes("page") || names.includes("pos"))
    ? names
    : undefined;
}

export const checksumCsv: InputFormat = {
  name: "checksum-csv",
  detect(head) {
    const first = head.split("\n").find((l) => l.trim() !== "");
    return first !== undefined && csvHeader(first) !== undefined;
  },
  createParser(): LineParser {
    let header: string[] | undefined;
    return {
      line(text, lineNo, out, issues) {
        if (isBlank(text)) return;
        if (!header) {
          header = csvHeader(text);
          if (!header) issues.push({ line: lineNo, message: "checksum CSV header must name room, hash and page or pos" });
          return;
        }
        const cells = splitCsvLine(text);
        if (cells.length !== header.length) {
          issues.push({ line: lineNo, message: `checksum CSV row has ${cells.length} cells, the header names ${header.length}` });
          return;
        }
        const rec: Record<string, unknown> = {};
        header.forEach((name, i) => {
          if (cells[i] !== "") rec[name] = cells[i];
        });
        const ev = checksumRecordToEvent(rec, text, lineNo, issues);
        if (ev) out.push(ev);
      },
      end() {},
    };
  },
};
