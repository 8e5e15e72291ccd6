// `kubectl get pods` (and `-o wide`, `-A`): a table whose header is
// `[NAMESPACE] NAME READY STATUS RESTARTS AGE [IP NODE NOMINATED NODE
// READINESS GATES]` (kubectl pkg/printers/internalversion/printers.go, the
// pod column definitions and printPod; `-o wide` adds the bracketed ones),
// one pod a row. The pod's name is the row's host and gives the role; its
// STATUS says what became of it (./podStates.ts podStatusAttrs), RESTARTS
// how often its containers restarted (`5 (2m ago)` since kubectl 1.24), and
// NODE the machine it ran on, kept as `nodeName` (analyzer/rules/placements.ts).
// Ages date nothing: the rows are undated.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { roleOfName } from "../../inputs/pathIdentity.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { RecordDater } from "../log/dating.js";
import { KUBECTL_COMMAND, kubectlLine, kubectlOutputOf, readHeader, readRow, type Columns } from "./columns.js";
import { podStatusAttrs } from "./podStates.js";

const HEADER = /^(?:NAMESPACE\s+)?NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b/;
const COLUMNS = ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"];
/** `3`, or `3 (2m ago)`: the restarts and, since kubectl 1.24, how long ago the last one was. */
const RESTARTS = /^(\d+)(?: \([^)]*\))?$/;

class GetPodsParser implements LineParser {
  private readonly dater: RecordDater;
  private out: ParsedEvent[] = [];
  private columns: Columns | null = null;

  constructor(private readonly ctx: ParseContext) {
    this.dater = new RecordDater(ctx.dating, ctx.tzOffsetMinutes, (ev) => this.out.push(ev));
  }

  line(text: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    const line = kubectlLine(text);
    if (line.trim() === "") return;
    if (HEADER.test(line)) {
      this.columns = readHeader(line, COLUMNS);
      return;
    }
    const row = this.columns === null ? null : readRow(line, this.columns);
    const ev: ParsedEvent = { tsUs: 0, line: lineNo, kind: LogKind.unparsed, text: line };
    const name = row?.get("NAME");
    const status = row?.get("STATUS");
    if (!name || !status) {
      // The terminal's line that ran kubectl, pasted above the table, is kept as text and is no error of the table.
      if (this.columns !== null || !KUBECTL_COMMAND.test(line)) issues.push({ line: lineNo, message: "not a row of kubectl get pods' table (NAME READY STATUS RESTARTS AGE); it is kept uninterpreted" });
      ev.unparsedMessage = line.trim();
      if (this.ctx.host !== undefined) ev.host = this.ctx.host;
      return this.dater.undated(ev);
    }
    const restarts = Number(RESTARTS.exec(row!.get("RESTARTS") ?? "")?.[1] ?? 0);
    ev.attrs = podStatusAttrs(status, restarts);
    ev.kind = ev.attrs.failureClass !== undefined ? LogKind.crash : LogKind.podEvent;
    const node = row!.get("NODE");
    if (node && node !== "<none>") ev.attrs.nodeName = node;
    ev.host = name;
    const role = roleOfName(name) ?? this.ctx.role;
    if (role !== undefined) ev.role = role;
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

export const kubectlPods: InputFormat = {
  name: "kubectl-pods",
  detect: (head) => HEADER.test(kubectlOutputOf(head)),
  createParser: (ctx) => new GetPodsParser(ctx),
};
