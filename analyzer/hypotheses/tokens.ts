// The text form's tokens, each with its line and column (1-based): words
// (kinds, fields, bare values such as decode/tp3 or 0.5.14), numbers (their
// text kept, so a 19-digit room stays exact), "quoted strings", operators.
// `#` starts a comment to the end of the line (docs/hypotheses.md "Syntax").

export interface Token {
  type: "word" | "number" | "string" | "op" | "end";
  text: string;
  line: number;
  column: number;
}

/** An error in a hypothesis's text, at a line and column. */
export class HypothesisSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${line}:${column}: ${detail}`);
  }
}

const OPERATORS = ["!=", "<=", ">=", "'s", "=", "<", ">", "~", ",", "(", ")"];
const WORD = /[A-Za-z_#][A-Za-z0-9_.#\-/:]*/y;
const NUMBERISH = /-?[0-9][0-9A-Za-z_.\-/:]*/y;
const NUMBER = /^-?\d+(\.\d+)?$/;

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const column = i - lineStart + 1;
    if (ch === "\n") {
      line++;
      lineStart = ++i;
    } else if (/\s/.test(ch)) i++;
    else if (ch === "#" && !/[A-Za-z]/.test(text[i + 1] ?? "")) i = skipComment(text, i);
    else if (ch === '"') {
      const end = stringEnd(text, i, line, column);
      out.push({ type: "string", text: JSON.parse(text.slice(i, end + 1)) as string, line, column });
      i = end + 1;
    } else {
      const tok = readAt(text, i, line, column);
      out.push(tok.token);
      i = tok.next;
    }
  }
  out.push({ type: "end", text: "", line, column: i - lineStart + 1 });
  return out;
}

function skipComment(text: string, i: number): number {
  const nl = text.indexOf("\n", i);
  return nl < 0 ? text.length : nl;
}

function stringEnd(text: string, start: number, line: number, column: number): number {
  for (let j = start + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j;
    else if (text[j] === "\n") break;
  }
  throw new HypothesisSyntaxError("a string opened here is not closed on its line", line, column);
}

function readAt(text: string, i: number, line: number, column: number): { token: Token; next: number } {
  for (const re of [WORD, NUMBERISH]) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (m && !(re === NUMBERISH && m[0] === "-")) {
      const type = re === NUMBERISH && NUMBER.test(m[0]) ? "number" : "word";
      return { token: { type, text: m[0], line, column }, next: i + m[0].length };
    }
  }
  const op = OPERATORS.find((o) => text.startsWith(o, i));
  if (op) return { token: { type: "op", text: op, line, column }, next: i + op.length };
  throw new HypothesisSyntaxError(`unexpected character '${text[i]}'`, line, column);
}
