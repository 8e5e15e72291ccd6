// `kubectl get events` (and `-o wide`, `-A`, the newer `kubectl events`): a
// table whose header is `[NAMESPACE] LAST SEEN TYPE REASON OBJECT [SUBOBJECT
// SOURCE] MESSAGE [FIRST SEEN COUNT NAME]` (kubectl
// pkg/printers/internalversion/printers.go, the event column definitions;
// `-o wide` adds the bracketed ones), one event a row. OBJECT is
// `<kind>/<name>` (`pod/sglang-decode-0`): a pod's or a node's name is the
// row's host, and a pod's gives the role. Ages (`2m3s`, `<unknown>`) date
// nothing: the rows are undated.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { roleOfName } from "../../inputs/pathIdentity.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { RecordDater } from "../log/dating.js";
import { KUBECTL_COMMAND, kubectlLine, kubectlOutputOf, readHeader, readRow, type Columns } from "./columns.js";
import { countOfAge, podEventOf } from "./podEvents.js";

const HEADER = /^(?:NAMESPACE\s+)?LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+/;
const COLUMNS = ["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"];
/** Objects whose name is a machine of ours: a pod, a node. */
const MACHINE_OBJECT = /^(pod|node)\/(.+)$/i;

class GetEventsParser implements LineParser {
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
    if (row === null || !row.get("TYPE") || !row.get("REASON")) {
      // The terminal's line that ran kubectl, pasted above the table, is kept as text and is no error of the table.
      if (this.columns !== null || !KUBECTL_COMMAND.test(line)) issues.push({ line: lineNo, message: "not a row of kubectl get events' table (LAST SEEN TYPE REASON OBJECT MESSAGE); its message is kept uninterpreted" });
      ev.unparsedMessage = line.trim();
      if (this.ctx.host !== undefined) ev.host = this.ctx.host;
    } else {
      const object = row.get("OBJECT") ?? "";
      const count = row.get("COUNT");
      podEventOf(ev, row.get("TYPE")!, row.get("REASON")!, row.get("MESSAGE") ?? "", count !== undefined && /^\d+$/.test(count) ? Number(count) : countOfAge(row.get("LAST SEEN") ?? ""));
      ev.attrs!.object = object;
      const named = MACHINE_OBJECT.exec(object);
      const machine = named?.[2];
      if (named !== null) ev.attrs!.scope = named[1]!.toLowerCase() === "node" ? "machine" : "pod";
      const host = machine ?? this.ctx.host;
      if (host !== undefined) ev.host = host;
      const role = (machine !== undefined ? roleOfName(machine) : undefined) ?? this.ctx.role;
      if (role !== undefined) ev.role = role;
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

export const kubectlEvents: InputFormat = {
  name: "kubectl-events",
  detect: (head) => HEADER.test(kubectlOutputOf(head)),
  createParser: (ctx) => new GetEventsParser(ctx),
};
