// The message matcher built from a list of templates: the templates are put
// in buckets by the first character their head can start with, so a message
// is tried only against the templates that can open it, in table order. The
// first whose head and pattern match fills the event; when heads matched and
// no pattern did, the first such template's `truncated` name is returned, so
// the caller keeps the line as unparsed and reports that name (a truncated
// line, or a format that drifted).

import type { ParsedEvent } from "../../../domain/event.js";
import type { MatchResult } from "../sglang/match.js";
import { isCapture, type Capture, type FieldType, type LogTemplate } from "./template.js";

const BUCKETS = 128;

/**
 * A template ready to match: its pattern without the capture names (V8 makes
 * a `groups` object per match of a named pattern) and where each name's
 * capture is, its attrs spec laid out as arrays, and one groups object a
 * refine reads, refilled per match.
 */
interface Compiled {
  readonly t: LogTemplate;
  readonly re: RegExp;
  readonly room: number;
  readonly rid: number;
  readonly chunk: number;
  readonly keys: readonly string[];
  /** Per attrs key: the index of the capture it reads, or -1 for a constant. */
  readonly captures: readonly number[];
  readonly types: readonly FieldType[];
  readonly constants: readonly unknown[];
  readonly names: readonly string[];
  /** Per name, the index of its capture. */
  readonly nameAt: readonly number[];
  readonly groups: Record<string, string | undefined>;
}

/** The pattern with `(?<name>` made a plain group, and each name's group index. */
export function positional(pattern: RegExp, id: string): { re: RegExp; index: Map<string, number> } {
  const src = pattern.source;
  if (src.includes("\\k<")) throw new Error(`template ${id}: named backreferences are not supported`);
  const index = new Map<string, number>();
  let out = "";
  let groups = 0;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === "\\") {
      out += ch + (src[i + 1] ?? "");
      i++;
      continue;
    }
    if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else if (ch === "(") {
      const named = /^\?<([A-Za-z_]\w*)>/.exec(src.substring(i + 1));
      if (named !== null) {
        index.set(named[1]!, ++groups);
        out += "(";
        i += named[0].length;
        continue;
      }
      if (src[i + 1] !== "?") groups++;
    }
    out += ch;
  }
  return { re: new RegExp(out, pattern.flags), index };
}

function compile(t: LogTemplate): Compiled {
  const { re, index } = positional(t.pattern, t.id);
  const at = (c: Capture | undefined): number => {
    if (c === undefined) return -1;
    const i = index.get(c.capture);
    if (i === undefined) throw new Error(`template ${t.id}: no capture named ${c.capture}`);
    return i;
  };
  const keys: string[] = [];
  const captures: number[] = [];
  const types: FieldType[] = [];
  const constants: unknown[] = [];
  for (const [key, v] of Object.entries(t.attrs ?? {})) {
    keys.push(key);
    captures.push(isCapture(v) ? at(v) : -1);
    types.push(isCapture(v) ? v.type : "text");
    constants.push(isCapture(v) ? undefined : v);
  }
  const names = [...index.keys()];
  const nameAt = names.map((n) => index.get(n)!);
  const groups: Record<string, string | undefined> = {};
  for (const name of names) groups[name] = undefined;
  return { t, re, room: at(t.room), rid: at(t.rid), chunk: at(t.chunk), keys, captures, types, constants, names, nameAt, groups };
}

export class TemplateMatcher {
  private readonly buckets: Compiled[][];
  /** Templates tried on a message whose first character is not ASCII: those with a function head. */
  private readonly other: Compiled[];

  constructor(readonly templates: readonly LogTemplate[]) {
    this.buckets = Array.from({ length: BUCKETS }, () => []);
    this.other = [];
    for (const t of templates) {
      const compiled = compile(t);
      for (const c of firstCodes(t)) {
        if (c < BUCKETS) this.buckets[c]!.push(compiled);
        else this.other.push(compiled);
      }
    }
  }

  /** Fills `ev` from the first template that matches the message at `at`: true, false, or a truncated template's name. */
  match(line: string, at: number, ev: ParsedEvent): MatchResult {
    const c = line.charCodeAt(at);
    const list = c < BUCKETS ? this.buckets[c]! : this.other;
    let truncated: string | false = false;
    for (let i = 0; i < list.length; i++) {
      const c = list[i]!;
      const head = c.t.head;
      if (typeof head === "string" ? !line.startsWith(head, at) : !head(line, at)) continue;
      const r = tryTemplate(c, line, at, ev);
      if (r === true) return true;
      if (truncated === false) truncated = r === false ? (c.t.truncated ?? false) : r;
    }
    return truncated;
  }

  /** The template that claims the message at `at`, or null (for tests and tools: the event is thrown away). */
  templateOf(line: string, at: number): LogTemplate | null {
    const c = line.charCodeAt(at);
    for (const compiled of c < BUCKETS ? this.buckets[c]! : this.other) {
      const head = compiled.t.head;
      if (typeof head === "string" ? !line.startsWith(head, at) : !head(line, at)) continue;
      if (tryTemplate(compiled, line, at, blankEvent(line)) === true) return compiled.t;
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
function tryTemplate(c: Compiled, line: string, at: number, ev: ParsedEvent): boolean | string {
  const t = c.t;
  if (t.read !== undefined) return t.read(line, at, ev);
  const re = c.re;
  re.lastIndex = at;
  const m = re.exec(line);
  if (m === null) return false;
  return fillEvent(c, m, ev);
}

/** Writes the template's event into `ev` from the captures; a refine that fails leaves `ev` as it found it. */
function fillEvent(c: Compiled, m: RegExpExecArray, ev: ParsedEvent): true | string {
  const t = c.t;
  if (c.room >= 0) ev.room = value(t.room!.type, m[c.room]);
  if (c.rid >= 0) ev.rid = value(t.rid!.type, m[c.rid]);
  if (c.chunk >= 0) ev.chunk = value(t.chunk!.type, m[c.chunk]) as number | undefined;
  if (t.attrs !== undefined) ev.attrs = attrsOf(c, m);
  if (t.refine !== undefined) {
    const g = c.groups;
    const { names, nameAt } = c;
    for (let i = 0; i < names.length; i++) g[names[i]!] = m[nameAt[i]!];
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

function attrsOf(c: Compiled, m: RegExpExecArray): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { keys, captures, types, constants } = c;
  for (let i = 0; i < keys.length; i++) {
    const capture = captures[i]!;
    if (capture < 0) {
      out[keys[i]!] = constants[i];
      continue;
    }
    const x = value(types[i]!, m[capture]);
    if (x !== undefined) out[keys[i]!] = x;
  }
  return out;
}

/** A capture's value by its type; undefined when it did not take part (or is Python's None). */
function value(type: FieldType, s: string | undefined): any {
  if (s === undefined) return undefined;
  switch (type) {
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
