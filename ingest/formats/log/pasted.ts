// Log text as people paste it into tickets and chats: a `> ` quote marker in
// front of each line, stray backticks around a line or a code fence, spaces
// before a prefixed line and after any line, terminal colour codes around a
// line's prefix (Ray prints a worker's output behind `\x1b[36m(RayWorkerVllm
// pid=5085)\x1b[0m `, ray/_private/worker.py print_worker_logs; a paste often loses the escape character, or keeps a
// space in its place: ` [36m(RayWorkerVllm pid=5085) [0m [E …`, or loses the
// whole `\x1b[`: `36m(EngineCore_DP0 pid=820)0m ERROR …`), and colour
// codes with their escape character anywhere in a line (a coloured level). Cleaning is
// cheap to skip: most lines start with `[` or a letter and end with a visible
// character.

const SPACE = 32;
const TAB = 9;
const GT = 62;
const BACKTICK = 96;
const QUOTE = 34;
const BRACKET = 91;
const LETTER_M = 109;
const SEMICOLON = 59;
const PAREN = 40;
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
/**
 * A process tag (`(RayWorkerWrapper pid=1189)`, vLLM's `(EngineCore_DP0 pid=820)`)
 * between SGR codes that lost their whole escape sequence, `\x1b[` (`36m(…)0m `):
 * the opening code's digits and `m` directly before the tag's parenthesis, the
 * closing one directly after it.
 */
const BARE_SGR_TAG = /^\d{1,3}m(\([^()]*\))(?:\d{1,3}m)?/;

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
  return (
    first === GT ||
    first === BACKTICK ||
    first === QUOTE ||
    first === ESC ||
    line.charCodeAt(line.length - 1) === BACKTICK ||
    isBlank(first) ||
    line.indexOf("\x1b[") >= 0 ||
    (first === BRACKET && opensWithBareSgr(line)) ||
    (isDigit(first) && opensWithBareSgrTag(line))
  );
}

/** `36m(`: an SGR code that lost its `\x1b[`, directly before a process tag (a digit run, `m`, then `(`). */
function opensWithBareSgrTag(line: string): boolean {
  let i = 1;
  while (i < 4 && isDigit(line.charCodeAt(i))) i++;
  return line.charCodeAt(i) === LETTER_M && line.charCodeAt(i + 1) === PAREN;
}

/** `[36m…`: an SGR code at the line's start whose escape character the paste lost (a digit run, then `m` or `;`; SGLang's `[2026-…` has a dash). */
function opensWithBareSgr(line: string): boolean {
  let i = 1;
  while (i < 5 && isDigit(line.charCodeAt(i))) i++;
  const c = line.charCodeAt(i);
  return i > 1 && (c === LETTER_M || c === SEMICOLON);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * The line without its paste debris. Leading whitespace goes only before a
 * line that then opens with a log prefix (`[2026-…`, `[rank…`, a glog
 * level and date): elsewhere indentation means something (traceback frames).
 */
export function cleanPasted(line: string): string {
  // Colour codes go only from a line that opens with one: elsewhere `[0m` could be text.
  let s = SGR_OPENER.test(line) ? line.replace(SGR_CODES, "") : line.replace(BARE_SGR_TAG, "$1");
  if (s.indexOf("\x1b[") >= 0) s = s.replace(ESCAPED_SGR, "");
  s = withoutQuoteMarks(s);
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

/** The line without the `> ` quote marks (one for each level of quoting) a Markdown quote put before it; `>text` is text. */
export function withoutQuoteMarks(line: string): string {
  let s = line;
  while (s.charCodeAt(0) === GT && (s.length === 1 || s.charCodeAt(1) === SPACE || s.charCodeAt(1) === GT)) {
    s = s.substring(s.charCodeAt(1) === SPACE ? 2 : 1);
  }
  return s;
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

/**
 * `grep -n` over several files (or with `-H`) puts each line after its file's
 * name and number, `f847…-json.log:190174:{"log":…}` (GNU grep src/grep.c
 * print_line_head: the file name, SEP, the line number, SEP; SEP is `:` on a
 * matching line and `-` on a context line of `-A`/`-B`/`-C`). Only a log
 * file's name is taken (`.log`, `.txt`, `.out`, `.err`, rotated `.log.1`):
 * elsewhere `name:12:` is a compiler's or Python's place in a source file.
 */
const GREP_HEAD = /^[^\s:]*\.(?:log|txt|out|err)(?:\.\d+)?([:-])\d+\1/;

/** The line without the file name and line number `grep -n` put before it. */
export function withoutGrepHead(line: string): string {
  const c0 = line.charCodeAt(0);
  // Most lines open with a bracket, a brace, a space or a level letter and a digit; a file name does not.
  if (c0 === BRACKET || c0 === 123 /* { */ || isBlank(c0) || line.length < 8) return line;
  const m = GREP_HEAD.exec(line);
  return m === null ? line : line.substring(m[0].length);
}

const PIPE = 124;
/** A cell that is a time and nothing else, as a log console's time column shows it. */
const TIME_CELL = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?$/;

/** A pipe table's delimiter row: `-- | -- | --`, `| --- | :-: |` (GFM "Tables": at least two columns here). */
const TABLE_DELIMITER = /^\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$/;

/**
 * A log copied from a web console's table (Grafana, Kibana, a cloud's log
 * service) and pasted into GitHub arrives as a Markdown table: GitHub turns
 * pasted HTML tables into pipe tables (its "paste as Markdown"), one row a
 * line, cells between ` | `, a `-- | -- | --` delimiter row under the first,
 * the console's empty columns (expand icons) as empty cells, and the row
 * closed by a last pipe (GitHub Flavored Markdown spec, "Tables"). The
 * console strips each message's own indentation. A row is taken apart only
 * when it ends with a pipe and one of its cells is a time: a logger's own `|`
 * separators (loguru's `time | LEVEL | name - message`) never end a line.
 * Returns the time, then the other non-empty cells, one space apart; `\|`
 * inside a cell is GitHub's escape of a pipe. The delimiter row reads as the
 * blank line it stands for, which continues the record above (./records.ts).
 */
export function fromTableRow(line: string): string {
  const c0 = line.charCodeAt(0);
  // The delimiter row is the table's markup, no text of the log: read as the blank line it stands for.
  if ((c0 === 45 /* - */ || c0 === PIPE || c0 === 58 /* : */) && TABLE_DELIMITER.test(line)) return "";
  let end = line.length;
  while (end > 0 && isBlank(line.charCodeAt(end - 1))) end--;
  if (end < 3 || line.charCodeAt(end - 1) !== PIPE || line.charCodeAt(end - 2) === 92 /* \ */) return line;
  const cells = line.substring(0, end - 1).split(/(?<!\\)\|/).map((c) => c.trim()).filter((c) => c !== "");
  const time = cells.findIndex((c) => TIME_CELL.test(c));
  if (time < 0 || cells.length < 2) return line;
  return [cells[time], ...cells.filter((_, i) => i !== time)].join(" ").replace(/\\\|/g, "|");
}

/** The line without paste debris where it may carry some (cheap for the many lines that cannot). */
export function cleanIfPasted(line: string): string {
  return mayBePasted(line) ? cleanPasted(line) : line;
}

/** The pipeline strips line endings; a `\r` left over from CRLF text would defeat `$` in the templates. */
export function stripCr(line: string): string {
  let end = line.length;
  while (end > 0 && line.charCodeAt(end - 1) === 13) end--;
  return end === line.length ? line : line.substring(0, end);
}
