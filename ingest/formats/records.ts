// Helpers shared by the record-per-line formats (probe JSONL, checksum dumps):
// identity fields, page ranges, KVPoll states, detection of JSON heads.

import { type ParsedEvent, type ParseIssue } from "../../domain/event.js";
import { KVPOLL_NAMES, ROLES, type Role } from "../../domain/vocabulary.js";
import type { LineParser } from "./format.js";
import { readFlatJsonObject } from "./flatJson.js";
import { intFromValue, parseJsonExact } from "./numerals.js";

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Sets host/role/dp/pp/tp from a record; values of the wrong type are kept in attrs. */
export function applyIdentity(ev: ParsedEvent, rec: Record<string, unknown>, attrs: Record<string, unknown>): void {
  if (typeof rec.host === "string" && rec.host !== "") ev.host = rec.host;
  else if (rec.host !== undefined) attrs.host = rec.host;
  if (typeof rec.role === "string" && (ROLES as readonly string[]).includes(rec.role)) ev.role = rec.role as Role;
  else if (rec.role !== undefined) attrs.role = rec.role;
  for (const f of ["dp", "pp", "tp"] as const) {
    const v = rec[f];
    if (v === undefined || v === null) continue;
    const n = intFromValue(v);
    if (n !== undefined) ev[f] = n;
    else attrs[f] = v;
  }
}

/** The hull [lo, hi) of half-open page ranges `[[lo, hi], ...]`, or undefined when malformed. */
export function pageHull(pages: unknown): { lo: number; hi: number; ranges: number } | undefined {
  if (!Array.isArray(pages) || pages.length === 0) return undefined;
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of pages) {
    if (!Array.isArray(r) || r.length !== 2) return undefined;
    const a = intFromValue(r[0]);
    const b = intFromValue(r[1]);
    if (a === undefined || b === undefined || b < a) return undefined;
    if (a < lo) lo = a;
    if (b > hi) hi = b;
  }
  return { lo, hi, ranges: pages.length };
}

/** KVPoll (§5): 0 Failed, 1 Bootstrapping, 2 WaitingForInput, 3 Transferring, 4 Success. */

export function stateFromValue(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isInteger(v) && v >= 0 && v <= 4 ? v : undefined;
  if (typeof v === "string") {
    const i = (KVPOLL_NAMES as readonly string[]).indexOf(v.replace(/^KVPoll\./, ""));
    return i >= 0 ? i : undefined;
  }
  return undefined;
}

/** The JSON objects among the first few non-blank lines of a head (for detection). */
export function firstJsonObjects(head: string, maxLines = 5): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  let seen = 0;
  for (const raw of head.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (++seen > maxLines) break;
    if (!line.startsWith("{")) continue;
    try {
      const v = parseJsonExact(line);
      if (isPlainObject(v)) found.push(v);
    } catch {
      // A truncated last line of the head, or a bad record: detection looks at the others.
    }
  }
  return found;
}

export function isBlank(text: string): boolean {
  return text.length === 0 || (text.charCodeAt(0) <= 32 && text.trim() === "");
}

/** Parses one JSONL line into a record object, or reports why it is not one. */
export function jsonRecord(text: string, lineNo: number, issues: ParseIssue[]): Record<string, unknown> | undefined {
  const flat = readFlatJsonObject(text);
  if (flat !== undefined) return flat;
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (e) {
    issues.push({ line: lineNo, message: `not JSON: ${(e as Error).message}` });
    return undefined;
  }
  if (!isPlainObject(value)) {
    issues.push({ line: lineNo, message: "not a JSON object" });
    return undefined;
  }
  return value;
}

type RecordToEvent = (rec: Record<string, unknown>, text: string, lineNo: number, issues: ParseIssue[]) => ParsedEvent | undefined;

/** A parser for one-JSON-object-a-line formats: blank lines skipped, each record mapped by `toEvent`. */
export function jsonLinesParser(toEvent: RecordToEvent): LineParser {
  return {
    line(text, lineNo, out, issues) {
      if (isBlank(text)) return;
      const rec = jsonRecord(text, lineNo, issues);
      if (!rec) return;
      const ev = toEvent(rec, text, lineNo, issues);
      if (ev) out.push(ev);
    },
    end() {},
  };
}

/** A whole-document format (one JSON dump, not a record a line) is read at its end, up to this size. */
export const MAX_DOCUMENT_CHARS = 256 * 1024 * 1024;

/**
 * A parser that gathers a file's lines and hands the whole document to
 * `read` at its end; past MAX_DOCUMENT_CHARS it reads nothing and says so
 * once, naming `what` the file is.
 */
export function wholeDocumentParser(what: string, read: (doc: string, out: ParsedEvent[], issues: ParseIssue[]) => void): LineParser {
  const lines: string[] = [];
  let chars = 0;
  let tooLarge = false;
  return {
    line(text, lineNo, _out, issues) {
      if (tooLarge) return;
      chars += text.length + 1;
      if (chars > MAX_DOCUMENT_CHARS) {
        tooLarge = true;
        issues.push({ line: lineNo, message: `${what} larger than 256 MiB; not read` });
        return;
      }
      lines.push(text);
    },
    end(out, issues) {
      if (!tooLarge && lines.length > 0) read(lines.join("\n"), out, issues);
    },
  };
}
