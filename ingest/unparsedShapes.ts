// The message shapes among a source's unparsed lines, the way lnav reports
// unmatched lines: numbers, hex ids and quoted strings masked, so that a
// thousand lines of one kind a parser does not know show as one shape with a
// count and an example, and a user can see at once what kvrewind missed.

import type { UnparsedShape } from "../store/read/sources.js";

/** Distinct shapes tracked per source; later new shapes are counted as one "other" bucket. */
const MAX_SHAPES = 1000;
/** Shapes kept in the source's record, most frequent first. */
export const KEPT_SHAPES = 20;
const MAX_SHAPE_CHARS = 160;
const MAX_EXAMPLE_CHARS = 400;
export const OTHER_SHAPES = "(other shapes)";

const QUOTED = /'[^']*'|"[^"]*"/g;
const HEX_ID = /\b(?:0x[0-9a-fA-F]+|[0-9a-fA-F]*\d[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*|[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\d[0-9a-fA-F]*)\b/g;
const NUMBER = /\d+(?:\.\d+)?/g;

/** The first line of a record, without a leading bracketed prefix (a log prefix carries times and ranks). */
function messageOf(text: string): string {
  const nl = text.indexOf("\n");
  let line = nl < 0 ? text : text.substring(0, nl);
  if (line.charCodeAt(0) === 91 /* [ */) {
    const close = line.indexOf("] ");
    if (close > 0 && close < 64) line = line.substring(close + 2);
  }
  return line.trim();
}

/**
 * A message with its variable parts masked (numbers and hex ids as `#`,
 * quoted strings as `<str>`): `Request <str> failed after # s on #`.
 * `message` is the record's message as its parser read it (without wrapper and
 * prefix); without it, the first line of `text` less a leading bracket.
 */
export function shapeOf(text: string, message?: string): string {
  const masked = (message !== undefined ? message.trim() : messageOf(text))
    .substring(0, MAX_SHAPE_CHARS * 2)
    .replace(QUOTED, "<str>")
    // A hex id is a number too: `busId 18000` and `busId 2a000` are one shape.
    .replace(HEX_ID, (m) => (m.length >= 5 || m.startsWith("0x") ? "#" : m))
    .replace(NUMBER, "#");
  return masked.length > MAX_SHAPE_CHARS ? masked.substring(0, MAX_SHAPE_CHARS) + "…" : masked;
}

export class UnparsedShapes {
  private readonly shapes = new Map<string, UnparsedShape>();

  add(text: string, line: number, message?: string): void {
    let shape = shapeOf(text, message);
    let entry = this.shapes.get(shape);
    if (entry === undefined && this.shapes.size >= MAX_SHAPES) {
      shape = OTHER_SHAPES;
      entry = this.shapes.get(shape);
    }
    if (entry !== undefined) {
      entry.count++;
      return;
    }
    const first = text.indexOf("\n") < 0 ? text : text.substring(0, text.indexOf("\n"));
    const example = first.length > MAX_EXAMPLE_CHARS ? first.substring(0, MAX_EXAMPLE_CHARS) + "…" : first;
    this.shapes.set(shape, { shape, count: 1, line, example });
  }

  /** Every shape counted, in the order first seen. */
  all(): UnparsedShape[] {
    return [...this.shapes.values()].map((s) => ({ ...s }));
  }

  /**
   * Adds the shapes of the next part of the same file (ingest/load/sourceParts.ts),
   * in the order that part first saw them: the counts of one reading of the
   * whole file, but for a part that alone saw more than MAX_SHAPES shapes.
   */
  addPart(shapes: readonly UnparsedShape[]): void {
    for (const s of shapes) {
      let key = s.shape;
      if (!this.shapes.has(key) && this.shapes.size >= MAX_SHAPES) key = OTHER_SHAPES;
      const entry = this.shapes.get(key);
      if (entry !== undefined) entry.count += s.count;
      else this.shapes.set(key, key === s.shape ? { ...s } : { shape: OTHER_SHAPES, count: s.count, line: s.line, example: s.example });
    }
  }

  /** The most frequent shapes (ties: the one seen first); "(other shapes)" stays last. */
  top(n = KEPT_SHAPES): UnparsedShape[] {
    const all = [...this.shapes.values()].filter((s) => s.shape !== OTHER_SHAPES);
    all.sort((a, b) => b.count - a.count || a.line - b.line);
    const kept = all.slice(0, n);
    const rest = all.slice(n).reduce((k, s) => k + s.count, 0) + (this.shapes.get(OTHER_SHAPES)?.count ?? 0);
    if (rest > 0) kept.push({ shape: OTHER_SHAPES, count: rest, line: 0, example: "" });
    return kept;
  }
}
