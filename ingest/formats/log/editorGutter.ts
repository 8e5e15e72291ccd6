// A log copied from an editor's screen with line numbers shown reads as the log
// without them. Vim's 'number' option (and Neovim's) draws the number column
// before each buffer line: the line's number right-aligned in number_width(wp)
// characters and one space, `"%*ld "` (vim src/drawline.c, src/screen.c in
// older copies; Neovim src/nvim/drawline.c get_line_number_str); number_width is the digits of the
// buffer's last line number, at least 'numberwidth' - 1 (3 by default), the
// same for every line of the window. A copy of the screen keeps the column:
//   16433 [2026-07-23 15:23:26 DP2 TP2 EP2] Scheduler hit an exception: …
//   16434   File "…/scheduler.py", line 4656, in run_scheduler_process
// One line that opens with a number and a space may be any program's text, so
// the column is taken only from a run: two lines in a row whose openings are
// a number column of the same width with a larger number on the second (a copy
// may skip lines: the numbers only grow). The run lasts while the lines carry
// such a column with growing numbers; a line without one ends it and is left
// as it is, as is a lone numbered line.

/** The number column: spaces, then digits, the whole at least 3 and at most 8 characters wide, then a space or the line's end. */
const COLUMN = /^( *(\d{1,8}))(?: |$)/;
const MIN_WIDTH = 3;
const MAX_WIDTH = 8;

interface Column {
  /** Characters of the column before its space: the number and the spaces that right-align it. */
  width: number;
  num: number;
}

function columnOf(line: string): Column | null {
  const c0 = line.charCodeAt(0);
  // Most lines open with a letter or a bracket: no column.
  if (c0 !== 32 && (c0 < 48 || c0 > 57)) return null;
  const m = COLUMN.exec(line);
  if (m === null || m[1]!.length < MIN_WIDTH || m[1]!.length > MAX_WIDTH) return null;
  return { width: m[1]!.length, num: Number(m[2]) };
}

/** The line without a column `width` wide and the space after it. */
function withoutColumn(line: string, width: number): string {
  return line.substring(Math.min(line.length, width + 1));
}

export class EditorGutter {
  /** A numbered line waiting for the next one to say whether it is in a column. */
  private held: { line: string; original: string; no: number; column: Column } | null = null;
  /** The column of the run the lines are in; null outside one. */
  private run: Column | null = null;

  /** `emit(text, original, lineNo)` receives each line in order, `text` without the number column. */
  constructor(private readonly emit: (text: string, original: string, lineNo: number) => void) {}

  push(line: string, original: string, lineNo: number): void {
    const column = columnOf(line);
    if (this.run !== null) {
      if (column !== null && column.width === this.run.width && column.num > this.run.num) {
        this.run = column;
        return this.emit(withoutColumn(line, column.width), original, lineNo);
      }
      this.run = null;
    } else if (this.held !== null) {
      const held = this.held;
      this.held = null;
      if (column !== null && column.width === held.column.width && column.num > held.column.num) {
        this.run = column;
        this.emit(withoutColumn(held.line, held.column.width), held.original, held.no);
        return this.emit(withoutColumn(line, column.width), original, lineNo);
      }
      this.emit(held.line, held.original, held.no);
    }
    if (column === null) return this.emit(line, original, lineNo);
    this.held = { line, original, no: lineNo, column };
  }

  /** End of input: a numbered line still held is released as it is. */
  end(): void {
    const held = this.held;
    this.held = null;
    this.run = null;
    if (held !== null) this.emit(held.line, held.original, held.no);
  }
}
