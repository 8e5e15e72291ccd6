// The one-table outputs of kubectl (`kubectl get events`, `kubectl get pods`):
// a header line, then one row a line cut at the header's offsets
// (./columns.ts). Each row is one undated record: kubectl's ages date nothing.
// A line that is no row is kept as text and reported, except the terminal's
// line that ran kubectl, pasted above the table.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import type { LineParser, ParseContext } from "../format.js";
import { RecordDater } from "../log/dating.js";
import { KUBECTL_COMMAND, kubectlLine, readHeader, readRow, type Columns } from "./columns.js";

/** What one table is: its header, its columns, and what a row says. */
export interface KubectlTable {
  header: RegExp;
  columns: readonly string[];
  /** The table named in the issue a line that is no row gets: "kubectl get pods' table (NAME READY STATUS RESTARTS AGE)". */
  shown: string;
  /** Fills `ev` from a row; false when the row lacks what makes it one (the line is then kept as text). */
  read(row: Map<string, string>, ev: ParsedEvent, ctx: ParseContext): boolean;
}

export class KubectlTableParser implements LineParser {
  private readonly dater: RecordDater;
  private out: ParsedEvent[] = [];
  private columns: Columns | null = null;

  constructor(
    private readonly table: KubectlTable,
    private readonly ctx: ParseContext,
  ) {
    this.dater = new RecordDater(ctx.dating, ctx.tzOffsetMinutes, (ev) => this.out.push(ev));
  }

  line(text: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    const line = kubectlLine(text);
    if (line.trim() === "") return;
    if (this.table.header.test(line)) {
      this.columns = readHeader(line, this.table.columns);
      return;
    }
    const row = this.columns === null ? null : readRow(line, this.columns);
    const ev: ParsedEvent = { tsUs: 0, line: lineNo, kind: LogKind.unparsed, text: line };
    if (row === null || !this.table.read(row, ev, this.ctx)) {
      if (this.columns !== null || !KUBECTL_COMMAND.test(line)) issues.push({ line: lineNo, message: `not a row of ${this.table.shown}; it is kept uninterpreted` });
      Object.assign(ev, { kind: LogKind.unparsed, unparsedMessage: line.trim() });
      delete ev.attrs;
      if (this.ctx.host !== undefined) ev.host = this.ctx.host;
    }
    this.dater.undated(ev);
  }

  end(out: ParsedEvent[]): void {
    this.out = out;
    this.dater.finish();
  }

  timeOrigin(): string | null {
    return this.dater.origin();
  }
}
