// A paste indented as a whole reads as its unindented self. A log pasted as a
// code block nested under a Markdown list item carries the item's indentation
// on every line (CommonMark spec 0.31, "List items": the item's lines are "Ls
// indented by W + 1 spaces", W the marker's width, and "If a line is empty,
// then it need not be indented"); a quoted e-mail or forum post may indent
// the same way. Left alone, a traceback's exception line keeps that indentation
// and reads as one more frame line.
//
// The unit is a block: the lines between blank ones. A block whose every line
// starts with the same whitespace loses it; a block with one line at the first
// column is left exactly as it is, so a log's own indentation (traceback frames,
// continuation lines under an unindented head) never changes. Once a block has
// lost an indentation, the blocks after it lose that same indentation and no
// more while all their lines carry it: a blank line inside the pasted
// traceback does not turn its deeper frame lines into lines of their own.

/** Lines a block holds back before it commits to the indentation its lines share so far. */
const MAX_HELD_LINES = 4096;

/**
 * Where a block stands: `deciding` after a blank line or at the start (the next line decides);
 * `passing` once a line is at the first column (lines pass as they are until a blank line);
 * `holding` while every line so far is indented (held back until the block ends); `stripping`
 * once the block's indentation is decided (it goes from each line that carries it).
 */
const Phase = { deciding: 0, passing: 1, holding: 2, stripping: 3 } as const;
type Phase = (typeof Phase)[keyof typeof Phase];

export class BlockDedenter {
  private phase: Phase = Phase.deciding;
  private held: string[] = [];
  private heldOriginals: string[] = [];
  private heldNos: number[] = [];
  /** The whitespace every held line starts with. */
  private common = "";
  /** The indentation an earlier block of this paste lost, kept across blank lines; "" when none. */
  private pasteIndent = "";

  /** `emit(text, original, lineNo)` receives each line in order, `text` without the block's indentation. */
  constructor(private readonly emit: (text: string, original: string, lineNo: number) => void) {}

  /** `line` as the dialects will see it; `original`, the file's line it comes from (the event keeps it). */
  push(line: string, original: string, lineNo: number): void {
    const c0 = line.charCodeAt(0);
    const indented = c0 === 32 || c0 === 9;
    // The common case, decided on the first character: a line at the first column inside a block.
    if (!indented && line.length > 0 && this.phase === Phase.passing) return this.emit(line, original, lineNo);
    if (isBlank(line)) {
      this.endBlock();
      return this.emit(line, original, lineNo);
    }
    switch (this.phase) {
      case Phase.deciding:
        if (!indented) {
          this.pasteIndent = "";
          this.phase = Phase.passing;
          return this.emit(line, original, lineNo);
        }
        this.phase = Phase.holding;
        this.hold(line, original, lineNo);
        this.common = this.pasteIndent !== "" && line.startsWith(this.pasteIndent) ? this.pasteIndent : leadingSpace(line);
        return;
      case Phase.holding:
        if (!indented) {
          this.release("");
          this.pasteIndent = "";
          this.phase = Phase.passing;
          return this.emit(line, original, lineNo);
        }
        this.common = commonPrefix(this.common, line);
        this.hold(line, original, lineNo);
        if (this.held.length >= MAX_HELD_LINES) {
          this.release(this.common);
          this.phase = Phase.stripping;
        }
        return;
      case Phase.stripping:
        return this.emit(line.startsWith(this.common) ? line.substring(this.common.length) : line, original, lineNo);
      case Phase.passing:
        return this.emit(line, original, lineNo);
    }
  }

  /** End of input: a block still held back is released. */
  end(): void {
    this.endBlock();
  }

  private endBlock(): void {
    if (this.phase === Phase.holding) {
      this.release(this.common);
      this.pasteIndent = this.common;
    } else if (this.phase === Phase.stripping) {
      this.pasteIndent = this.common;
    }
    this.phase = Phase.deciding;
  }

  private hold(line: string, original: string, lineNo: number): void {
    this.held.push(line);
    this.heldOriginals.push(original);
    this.heldNos.push(lineNo);
  }

  /** Emits the held lines without `indent`, which every one of them starts with. */
  private release(indent: string): void {
    for (let i = 0; i < this.held.length; i++) this.emit(this.held[i]!.substring(indent.length), this.heldOriginals[i]!, this.heldNos[i]!);
    this.held = [];
    this.heldOriginals = [];
    this.heldNos = [];
  }
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

function leadingSpace(line: string): string {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  return line.substring(0, i);
}

/** The longest start of `indent` that `line` starts with too. */
function commonPrefix(indent: string, line: string): string {
  let i = 0;
  while (i < indent.length && indent.charCodeAt(i) === line.charCodeAt(i)) i++;
  return i === indent.length ? indent : indent.substring(0, i);
}
