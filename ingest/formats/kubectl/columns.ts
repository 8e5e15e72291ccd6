// kubectl's tables (`kubectl get events`, the Events table of `kubectl
// describe`): a header of upper- or title-case names, then rows whose cells
// start where their header's name starts. Both are written through Go's
// text/tabwriter, which pads every cell of a column to the widest one, so the
// header's offsets cut every row (kubectl pkg/printers/tablewriter.go,
// pkg/describe/describe.go DescribeEvents).

import { withoutQuoteMarks } from "../log/pasted.js";

/** A table's columns: each name and the offset its cells start at. */
export interface Columns {
  names: readonly string[];
  starts: readonly number[];
}

/** The columns of a header line whose names are `names` (each once, in order), else null. */
export function readHeader(line: string, names: readonly string[]): Columns | null {
  const starts: number[] = [];
  const found: string[] = [];
  let from = 0;
  for (const name of names) {
    const at = line.indexOf(name, from);
    if (at < 0) continue;
    // A name starts a cell: at the line's start or after two spaces (tabwriter's padding).
    if (at > 0 && line.substring(at - 2, at) !== "  " && line.substring(0, at).trim() !== "") continue;
    found.push(name);
    starts.push(at);
    from = at + name.length;
  }
  return found.length === 0 ? null : { names: found, starts };
}

/** A row's cells by column name; null when the row does not fill the columns the header set. */
export function readRow(line: string, columns: Columns): Map<string, string> | null {
  const cells = new Map<string, string>();
  const { names, starts } = columns;
  for (let i = 0; i < names.length; i++) {
    const start = starts[i]!;
    // Every cell but the last ends where the next starts, after at least one space.
    if (i > 0 && line.charCodeAt(start - 1) !== 32) return null;
    const end = i + 1 < names.length ? starts[i + 1]! : line.length;
    cells.set(names[i]!, line.substring(start, end).trim());
  }
  return cells;
}

/**
 * A line of kubectl's output as its parsers read it: without its carriage
 * return, and without the `> ` a paste quoted with Markdown put before it
 * (kubectl's own lines never open with `>`).
 */
export function kubectlLine(text: string): string {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  return line.charCodeAt(0) === 62 /* > */ ? withoutQuoteMarks(line) : line;
}

/** A terminal's line that ran kubectl, pasted above its output. */
export const KUBECTL_COMMAND = /\bkubectl\s+(?:get|describe)\b/;

/**
 * Where kubectl's own output starts in a file's head: after blank lines and,
 * in a pasted terminal, the one line that ran it (`$ kubectl get events -n
 * llm`, `root@node:~# kubectl describe pod sglang-decode-0`), its lines
 * unquoted when the paste was quoted with Markdown's `> `.
 */
export function kubectlOutputOf(head: string): string {
  const start = unquoted(head.replace(/^(?:\s*\n)*/, ""));
  const first = start.substring(0, start.indexOf("\n") >>> 0);
  return KUBECTL_COMMAND.test(first) ? start.substring(first.length + 1).replace(/^(?:\s*\n)*/, "") : start;
}

/** A head whose first line is quoted with `> `, every line unquoted. */
function unquoted(head: string): string {
  return head.charCodeAt(0) === 62 /* > */ ? head.split("\n").map(kubectlLine).join("\n") : head;
}
