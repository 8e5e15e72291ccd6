// Python 3.11's exception groups, as the traceback module prints them
// (CPython Lib/traceback.py, TracebackException.format and
// _ExceptionPrintContext.emit): every line of a group is drawn behind a
// margin, two spaces per level of nesting and then `| ` (`+ ` on the top
// group's header line), and each member exception is opened by a rule:
//
//   + Exception Group Traceback (most recent call last):
//   |   File "…/starlette/_utils.py", line 76, in collapse_excgroups
//   | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
//   +-+---------------- 1 ----------------
//     | Traceback (most recent call last):
//     |   File "…/uvicorn/protocols/http/h11_impl.py", line 403, in run_asgi
//     | KeyError: 'req-42'
//     +------------------------------------
//
// Behind its margin a line is a traceback's line like any other: the group's
// header reads as a traceback's header, its exception line ends it, and each
// member's traceback is a traceback of its own. A paste may start inside a
// member, at its `| Traceback (most recent call last):`.

const HEADER_TEXT = "Traceback (most recent call last):";
/** A group's header (`+ ` on the top group, `| ` on a nested one) or a member traceback's header, behind its margin. */
const OPENER = /^ *[+|] (?:Exception Group )?Traceback \(most recent call last\):\s*$/;
/** A line behind the margin: `|` and a space, or `|` alone (textwrap.indent draws the margin on blank lines too). */
const MARGIN = /^ *\|(?: |\s*$)/;
/** The rule before a member (`+-+---------------- 1 ----------------`, `+---------------- ... ----------------`) or after the last. */
const RULE = /^ *(?:\+-)?\+-{4,}(?: (?:\d+|\.\.\.) -+)?\s*$/;

/** True when a line may be drawn behind a group's margin: its first visible character is `|` or `+`. */
function mayBeMargined(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32) return c === 124 /* | */ || c === 43 /* + */;
  }
  return false;
}

/** Reads an exception group's lines as the traceback lines behind their margin, from its header to its last rule. */
export class ExceptionGroupMargin {
  private inGroup = false;

  /** The line as a traceback's line when it is drawn behind a group's margin, else the line itself. */
  unmargined(line: string): string {
    if (!mayBeMargined(line)) {
      this.inGroup = false;
      return line;
    }
    if (OPENER.test(line)) {
      this.inGroup = true;
      return HEADER_TEXT;
    }
    if (!this.inGroup) return line;
    // A rule parts two members: read as the blank line between two tracebacks.
    if (RULE.test(line)) return "";
    const margin = MARGIN.exec(line);
    if (margin !== null) return line.substring(margin[0].length);
    this.inGroup = false;
    return line;
  }
}
