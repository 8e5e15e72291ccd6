// Log text as people paste it into tickets and chats: a `> ` quote marker in
// front of each line, stray backticks around a line or a code fence, spaces
// before a prefixed line and after any line, terminal colour codes around a
// line's prefix (Ray prints a worker's output behind `\x1b[36m(RayWorkerVllm
// pid=5085)\x1b[0m `; a paste often loses the escape character, or keeps a
// space in its place: ` [36m(RayWorkerVllm pid=5085) [0m [E …`), and colour
// codes with their escape character anywhere in a line (a coloured level). Cleaning is
// cheap to skip: most lines start with `[` or a letter and end with a visible
// character.

const SPACE = 32;
const TAB = 9;
const GT = 62;
const BACKTICK = 96;
const QUOTE = 34;
const ISO_DATE = /^\d{4}-\d\d-\d\d[T ]\d\d:/;
const ESC = 27;
/** A line that opens with an SGR colour code (`\x1b[36m`), its escape character possibly lost or a space in its place. */
const SGR_OPENER = /^[ \t]*(?:\x1b| )?\[\d{1,3}(?:;\d{1,3})*m/;
/** Every SGR code of such a line, with the escape character or the space that stands for it. */
const SGR_CODES = /(?:\x1b| )?\[\d{0,3}(?:;\d{1,3})*m/g;
/**
 * An SGR code with its escape character, anywhere in a line: a logger that
 * colours its level (colorlog, loguru, tracing-subscriber's ANSI output) puts
 * one around the level word; with the escape character it is never text.
 */
const ESCAPED_SGR = /\x1b\[[\d;]*m/g;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB;
}

/**
 * True when a line may carry paste debris (checked before cleaning it).
 * Trailing spaces alone are left to the templates (./logParser.ts retries a
 * half-matched message without them): old batch lines end in a meaningful ", ".
 */
export function mayBePasted(line: string): boolean {
  if (line.length === 0) return false;
  const first = line.charCodeAt(0);
  return first === GT || first === BACKTICK || first === QUOTE || first === ESC || line.charCodeAt(line.length - 1) === BACKTICK || isBlank(first) || line.indexOf("\x1b[") >= 0;
}

/**
 * The line without its paste debris. Leading whitespace goes only before a
 * line that then opens with a log prefix (`[2026-…`, `[rank…`, a glog
 * level and date): elsewhere indentation means something (traceback frames).
 */
export function cleanPasted(line: string): string {
  // Colour codes go only from a line that opens with one: elsewhere `[0m` could be text.
  let s = SGR_OPENER.test(line) ? line.replace(SGR_CODES, "") : line;
  if (s.indexOf("\x1b[") >= 0) s = s.replace(ESCAPED_SGR, "");
  while (s.charCodeAt(0) === GT && (s.length === 1 || s.charCodeAt(1) === SPACE || s.charCodeAt(1) === GT)) {
    s = s.substring(s.charCodeAt(1) === SPACE ? 2 : 1);
  }
  let end = s.length;
  while (end > 0 && (isBlank(s.charCodeAt(end - 1)) || s.charCodeAt(end - 1) === BACKTICK)) end--;
  let indent = 0;
  while (indent < end && isBlank(s.charCodeAt(indent))) indent++;
  let start = indent;
  while (start < end && s.charCodeAt(start) === BACKTICK) start++;
  // A quote mark the paste left before the first line's prefix (`"I1120 11:09:23.594488 …`).
  if (s.charCodeAt(start) === QUOTE && opensWithPrefix(s.substring(start + 1, start + 20))) start++;
  const rest = s.substring(start, end);
  if (indent > 0 && opensWithPrefix(rest)) return rest;
  return s.substring(0, indent) + rest;
}

/** `[` + a digit (SGLang's date) or `[rank`, an ISO date, or a glog level letter and four (or, with the year, eight) digits. */
function opensWithPrefix(s: string): boolean {
  const c0 = s.charCodeAt(0);
  const c1 = s.charCodeAt(1);
  if (c0 === 91 /* [ */) return (c1 >= 48 && c1 <= 57) || s.startsWith("[rank");
  if (ISO_DATE.test(s)) return true;
  const level = c0 === 73 || c0 === 87 || c0 === 69 || c0 === 70; // I W E F
  return level && c1 >= 48 && c1 <= 57 && (s.charCodeAt(5) === SPACE || s.charCodeAt(9) === SPACE);
}
