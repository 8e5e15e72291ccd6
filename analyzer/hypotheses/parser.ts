// The text form of a hypothesis (docs/hypotheses.md "Syntax") parsed into the
// syntax tree of ast.ts, typed against the event catalogue as it goes, so an
// unknown kind or field is reported at its line:column:
//
//   every index_k kernel.read on decode comes after the room's last kv.notify
//   every kv.alloc has no kv.post after within 2s same room
//   all ranks agree on op, digest for coll.enter same group, collSeq
//   no log.exception where thread = bootstrap_thread

import type { Clause, Condition, Distance, Hypothesis, Key, Literal, OrderClause, Pattern, Property } from "./ast.js";
import { hypothesisSchema } from "./ast.js";
import { fieldType } from "./catalogue.js";
import { HypothesisSyntaxError, tokenize, type Token } from "./tokens.js";
import { conditionProblem, fieldProblem, kindProblem } from "./typing.js";

export { HypothesisSyntaxError };

const BUFFERS = new Set(["index_k", "kv"]);
const SIDES = new Set(["decode", "prefill", "router"]);
/** Words that end a pattern's conditions. */
const CLAUSE_WORDS = new Set(["has", "comes", "requires", "before", "after", "within", "since", "same", "for"]);
const UNITS: Readonly<Record<string, number>> = { us: 1, ms: 1_000, s: 1_000_000, min: 60_000_000 };

/** Parses a hypothesis's text; `#` comment lines before it give its statement when it has none. */
export function parseHypothesis(text: string, meta: { name?: string; statement?: string } = {}): Hypothesis {
  const property = new Parser(tokenize(text)).property();
  const statement = meta.statement ?? leadingComment(text);
  return hypothesisSchema.parse({ ...(meta.name && { name: meta.name }), ...(statement && { statement }), property });
}

function leadingComment(text: string): string | undefined {
  const first = text.split("\n").map((l) => l.trim()).find((l) => l !== "");
  return first?.startsWith("# ") ? first.slice(2).trim() : undefined;
}

class Parser {
  private i = 0;

  constructor(private readonly tokens: Token[]) {}

  property(): Property {
    const p = this.peekWord("all") ? this.agree() : this.peekWord("no") ? this.never() : this.every();
    const end = this.peek();
    if (end.type !== "end") this.fail(end, `expected the end of the hypothesis or 'and', found '${end.text}'`);
    return p;
  }

  private every(): Property {
    this.expectWord("every");
    const subject = this.pattern();
    const clauses = [...this.clause(subject)];
    while (this.peekWord("and")) {
      this.next();
      clauses.push(...this.clause(subject));
    }
    return { type: "every", subject, clauses };
  }

  private never(): Property {
    this.expectWord("no");
    return { type: "never", subject: this.pattern() };
  }

  private agree(): Property {
    this.expectWord("all");
    this.expectWord("ranks");
    this.expectWord("agree");
    this.expectWord("on");
    const fieldTokens = [this.expectWordToken()];
    while (this.peekOp(",")) fieldTokens.push((this.next(), this.expectWordToken()));
    this.expectWord("for");
    const subject = this.pattern();
    for (const t of fieldTokens) this.check(t, fieldProblem(subject.kind, t.text));
    this.expectWord("same");
    const same = this.keys(subject.kind, subject.kind);
    return { type: "agree", subject, fields: fieldTokens.map((t) => t.text), same };
  }

  /** One clause as written; "comes after the last Q" is two (there is a Q before, and no Q after). */
  private clause(subject: Pattern): Clause[] {
    const t = this.peek();
    if (this.peekWord("requires")) {
      this.next();
      return [{ type: "require", conditions: this.conditions(subject.kind) }];
    }
    if (this.peekWord("has")) {
      this.next();
      const exists = !this.peekWord("no") || (this.next(), false);
      const other = this.pattern();
      const direction = this.direction();
      const within = this.within();
      const since = direction === "before" ? this.since() : undefined;
      const same = this.peekWord("same") ? (this.next(), this.keys(subject.kind, other.kind)) : [];
      return [{ type: "order", exists, other, direction, ...(within && { within }), ...(since && { since }), same }];
    }
    if (this.peekWord("comes")) return this.comes(subject);
    return this.fail(t, `expected a clause (has, has no, comes after, comes before, requires), found '${t.text || "the end"}'`);
  }

  private comes(subject: Pattern): OrderClause[] {
    this.next();
    const direction = this.direction();
    this.expectWord("the");
    const owner = this.peekAt(1).text === "'s" ? this.expectWordToken() : undefined;
    if (owner) this.next();
    this.expectWord(direction === "after" ? "last" : "first");
    const other = this.pattern();
    const within = this.within();
    const same: Key[] = owner ? [this.key(owner, subject.kind, other.kind)] : [];
    if (this.peekWord("same")) {
      this.next();
      same.push(...this.keys(subject.kind, other.kind));
    }
    const base = { type: "order" as const, other, ...(within && { within }), same };
    const opposite = direction === "after" ? "before" : "after";
    return [
      { ...base, exists: true, direction: opposite },
      { ...base, exists: false, direction },
    ];
  }

  private direction(): "before" | "after" {
    const t = this.next();
    if (t.type === "word" && (t.text === "before" || t.text === "after")) return t.text;
    return this.fail(t, `expected 'before' or 'after', found '${t.text || "the end"}'`);
  }

  private within(): Distance | undefined {
    if (!this.peekWord("within")) return undefined;
    this.next();
    const t = this.next();
    const m = /^(\d+(?:\.\d+)?)([a-z]*)$/.exec(t.text);
    if (!m || (t.type !== "number" && t.type !== "word")) return this.fail(t, `expected a distance such as 2s, 500ms or 10 events, found '${t.text}'`);
    const unit = m[2] || this.expectWordToken().text;
    const n = Number(m[1]);
    if (unit === "events" || unit === "event") {
      if (!Number.isInteger(n) || n <= 0) this.fail(t, "an event distance is a whole number above 0");
      return { events: n };
    }
    const scale = UNITS[unit];
    if (scale === undefined || n <= 0) return this.fail(t, `unknown distance unit '${unit}' (us, ms, s, min or events)`);
    return { us: n * scale };
  }

  /** `since the last R`: only partners after the subject's last R count. */
  private since(): Pattern | undefined {
    if (!this.peekWord("since")) return undefined;
    this.next();
    this.expectWord("the");
    this.expectWord("last");
    return this.pattern();
  }

  private keys(subjectKind: string, otherKind: string): Key[] {
    const keys = [this.key(this.expectWordToken(), subjectKind, otherKind)];
    while (this.peekOp(",")) keys.push((this.next(), this.key(this.expectWordToken(), subjectKind, otherKind)));
    return keys;
  }

  /** `field`, or `field = otherField` when the partner names it differently. */
  private key(t: Token, subjectKind: string, otherKind: string): Key {
    this.check(t, fieldProblem(subjectKind, t.text));
    if (!this.peekOp("=")) {
      this.check(t, fieldProblem(otherKind, t.text));
      return { field: t.text };
    }
    this.next();
    const other = this.expectWordToken();
    this.check(other, fieldProblem(otherKind, other.text));
    return { field: t.text, other: other.text };
  }

  private pattern(): Pattern {
    const where: Condition[] = [];
    let t = this.expectWordToken();
    if (BUFFERS.has(t.text) && this.peek().type === "word" && this.peek().text.includes(".")) {
      where.push({ field: "buffer", op: "=", value: t.text });
      t = this.expectWordToken();
    }
    const kind = t.text;
    this.check(t, kindProblem(kind));
    if (where.length) this.check(t, fieldProblem(kind, "buffer"));
    if (this.peekWord("on") && SIDES.has(this.peekAt(1).text)) {
      this.next();
      where.push({ field: "side", op: "=", value: this.next().text });
    }
    if (this.peekWord("where")) {
      this.next();
      where.push(...this.conditions(kind));
    }
    return { kind, where };
  }

  /** cond { and cond }, stopping before an `and` that starts a clause. */
  private conditions(kind: string): Condition[] {
    const out = [this.condition(kind)];
    while (this.peekWord("and") && !CLAUSE_WORDS.has(this.peekAt(1).text)) out.push((this.next(), this.condition(kind)));
    return out;
  }

  private condition(kind: string): Condition {
    const f = this.expectWordToken();
    this.check(f, fieldProblem(kind, f.text));
    const op = this.next();
    let c: Condition;
    if (op.type === "word" && op.text === "exists") c = { field: f.text, op: "exists" };
    else if (op.type === "word" && op.text === "in") c = { field: f.text, op: "in", values: this.list() };
    else if (op.text === "~") {
      const p = this.next();
      if (p.type !== "string") this.fail(p, 'a ~ pattern is a "quoted" regular expression');
      c = { field: f.text, op: "~", pattern: p.text };
    } else if (op.type === "op" && ["=", "!=", "<", "<=", ">", ">="].includes(op.text)) c = { field: f.text, op: op.text as "=", value: this.literal(kind, f.text) };
    else return this.fail(op, `expected a comparison (=, !=, <, <=, >, >=, in, ~, exists) after ${f.text}, found '${op.text || "the end"}'`);
    this.check(f, conditionProblem(kind, c));
    return c;
  }

  private list(): Literal[] {
    this.expectOp("(");
    const out = [this.literal()];
    while (this.peekOp(",")) out.push((this.next(), this.literal()));
    this.expectOp(")");
    return out;
  }

  /** A value: rooms and other strings keep their text; numbers become numbers where the field is numeric. */
  private literal(kind?: string, field?: string): Literal {
    const t = this.next();
    if (t.type === "string") return t.text;
    if (t.type === "number") return kind && field && fieldType(kind, field) === "room" ? t.text : Number(t.text);
    if (t.type === "word" && (t.text === "true" || t.text === "false")) return t.text === "true";
    if (t.type === "word" && !CLAUSE_WORDS.has(t.text) && t.text !== "and") return t.text;
    return this.fail(t, `expected a value, found '${t.text || "the end"}'`);
  }

  private check(t: Token, problem: string | undefined): void {
    if (problem) this.fail(t, problem);
  }

  private fail(t: Token, detail: string): never {
    throw new HypothesisSyntaxError(detail, t.line, t.column);
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private peekAt(ahead: number): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }

  private peekWord(word: string): boolean {
    const t = this.peek();
    return t.type === "word" && t.text === word;
  }

  private peekOp(op: string): boolean {
    const t = this.peek();
    return t.type === "op" && t.text === op;
  }

  private next(): Token {
    const t = this.peek();
    if (t.type !== "end") this.i++;
    return t;
  }

  private expectWord(word: string): void {
    const t = this.next();
    if (t.type !== "word" || t.text !== word) this.fail(t, `expected '${word}', found '${t.text || "the end"}'`);
  }

  private expectWordToken(): Token {
    const t = this.next();
    if (t.type !== "word") this.fail(t, `expected a name, found '${t.text || "the end"}'`);
    return t;
  }

  private expectOp(op: string): void {
    const t = this.next();
    if (t.type !== "op" || t.text !== op) this.fail(t, `expected '${op}', found '${t.text || "the end"}'`);
  }
}
