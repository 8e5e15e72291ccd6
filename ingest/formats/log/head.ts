// The lines of a file's head as the dialects see them: `grep -n`'s file and
// line number and a container wrapper (if the head is wrapped) stripped, paste
// debris cleaned. Detection of the
// log formats reads these. A wrapper is detected under a Markdown quote's `> `
// too (a reply quoting a pod's log); each line's own reading strips the quote
// before it unwraps (./wrappedLines.ts).

import { detectWrapper, type Wrapper } from "../wrappers/index.js";
import { cleanPasted, mayBePasted, withoutGrepHead, withoutQuoteMarks } from "./pasted.js";

/** Lines of the head inspected by detection. */
const DETECT_LINES = 500;

function rawLines(head: string): string[] {
  const lines = head.split("\n", DETECT_LINES + 1).slice(0, DETECT_LINES);
  return lines.map((l) => withoutGrepHead(withoutQuoteMarks(l.endsWith("\r") ? l.slice(0, -1) : l)));
}

/** The head's wrapper, or null when its lines are bare. */
export function wrapperOfHead(head: string): Wrapper | null {
  return detectWrapper(rawLines(head));
}

/** The head's lines without their wrapper and paste debris. */
export function headLines(head: string): string[] {
  const lines = rawLines(head);
  const wrapper = detectWrapper(lines);
  const inner: string[] = [];
  if (wrapper === null) inner.push(...lines);
  else {
    const u = wrapper.create();
    for (const line of lines) {
      const r = u.unwrap(line);
      inner.push(r.kind === "line" ? r.inner : line);
    }
  }
  return inner.map((l) => (mayBePasted(l) ? cleanPasted(l) : l));
}
