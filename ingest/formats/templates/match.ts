// The message matcher built from a list of templates: the templates are put
// in buckets by the first character their head can start with, so a message
// is tried only against the templates that can open it, in table order. The
// first whose head and pattern match fills the event; when heads matched and
// no pattern did, the first such template's `truncated` name is returned, so
// the caller keeps the line as unparsed and reports that name (a truncated
// line, or a format that drifted).

import type { ParsedEvent } from "../../../domain/event.js";
import type { MatchResult } from "../sglang/match.js";
import { isCapture, type Capture, type Groups, type LogTemplate } from "./template.js";

const BUCKETS = 128;

export class TemplateMatcher {
  private readonly buckets: LogTemplate[][];
  /** Templates tried on a message whose first character is not ASCII: those with a function head. */
  private readonly other: LogTemplate[];

  constructor(readonly templates: readonly LogTemplate[]) {
    this.buckets = Array.from({ length: BUCKETS }, () => []);
    this.other = [];
    for (const t of templates) {
      for (const c of firstCodes(t)) {
        if (c < BUCKETS) this.buckets[c]!.push(t);
        else this.other.push(t);
      }
    }
  }

  /** Fills `ev` from the first template that matches the message at `at`: true, false, or a truncated template's name. */
  match(line: string, at: number, ev: ParsedEvent): MatchResult {
    const c = line.charCodeAt(at);
    const list = c < BUCKETS ? this.buckets[c]! : this.other;
    let truncated: string | false = false;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      const head = t.head;
      if (typeof head === "string" ? !line.startsWith(head, at) : !head(line, at)) continue;
      const r = tryTemplate(t, line, at, ev);
      if (r === true) return true;
      if (truncated === false) truncated = r === false ? (t.truncated ?? false) : r;
    }
    return truncated;
  }

  /** The template that claims the message at `at`, or null (for tests and tools: the event is thrown away). */
  templateOf(line: string, at: number): LogTemplate | null {
    const c = line.charCodeAt(at);
    for (const t of c < BUCKETS ? this.buckets[c]! : this.other) {
      const head = t.head;
      if (typeof head === "string" ? !line.startsWith(head, at) : !head(line, at)) continue;
      if (tryTemplate(t, line, at, blankEvent(line)) === true) return t;
    }
    return null;
  }
}

/** The character codes a template's message can start with. */
function firstCodes(t: LogTemplate): number[] {
  if (typeof t.head === "string") return [t.head.charCodeAt(0)];
  const chars = t.firstChars;
  if (chars === undefined) throw new Error(`template ${t.id}: a function head needs firstChars`);
  return [...new Set([...chars].map((ch) => ch.charCodeAt(0)))];
}

/** true: filled; false: the pattern did not match; a string: it matched but a part did not decode. */
function tryTemplate(t: LogTemplate, line: string, at: number, ev: ParsedEvent): boolean | string {
  if (t.read !== undefined) return t.read(line, at, ev);
  const re = t.pattern;
  re.lastIndex = at;
  const m = re.exec(line);
  if (m === null) return false;
  return fillEvent(t, m.groups ?? {}, ev);
}

/** Writes the template's event into `ev` from the captures; a refine that fails leaves `ev` as it found it. */
export function fillEvent(t: LogTemplate, g: Groups, ev: ParsedEvent): true | string {
  if (t.room !== undefined) ev.room = value(t.room, g);
  if (t.rid !== undefined) ev.rid = value(t.rid, g);
  if (t.chunk !== undefined) ev.chunk = value(t.chunk, g) as number | undefined;
  if (t.attrs !== undefined) ev.attrs = attrsOf(t.attrs, g);
  if (t.refine !== undefined) {
    const failed = t.refine(ev, g);
    if (typeof failed === "string") {
      ev.room = undefined;
      ev.rid = undefined;
      ev.chunk = undefined;
      ev.state = undefined;
      ev.attrs = undefined;
      return failed;
    }
  }
  ev.kind = t.kind;
  if (t.role !== undefined) ev.role = t.role;
  if (t.state !== undefined) ev.state = t.state;
  return true;
}

function attrsOf(spec: Readonly<Record<string, unknown>>, g: Groups): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in spec) {
    const v = spec[key];
    if (!isCapture(v)) {
      out[key] = v;
      continue;
    }
    const x = value(v, g);
    if (x !== undefined) out[key] = x;
  }
  return out;
}

/** A capture's value by its type; undefined when it did not take part (or is Python's None). */
function value(c: Capture, g: Groups): any {
  const s = g[c.capture];
  if (s === undefined) return undefined;
  switch (c.type) {
    case "text":
      return s;
    case "number":
      return Number(s);
    case "bool":
      return s === "True";
    case "pyNone":
      return s === "None" ? undefined : s;
    case "pyRepr":
      return s === "None" ? undefined : s.substring(1, s.length - 1);
    case "rdmaOpcode":
      return s === "0" ? "READ" : s === "1" ? "WRITE" : s;
  }
}

function blankEvent(text: string): ParsedEvent {
  return { tsUs: 0, line: 0, kind: "log.unparsed", text };
}
