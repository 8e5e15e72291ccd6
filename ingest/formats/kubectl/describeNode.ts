// `kubectl describe node` (kubectl pkg/describe/describe.go describeNode): the
// node's `Name:` (the machine: the records' host), its `Roles:`, and the
// `Conditions:` table, `Type Status LastHeartbeatTime LastTransitionTime Reason
// Message`, written through tabwriter like every kubectl table (./columns.ts),
// its times Go's RFC1123Z. A condition is what the node's kubelet says of the
// machine since its LastTransitionTime, which dates it: `Ready` False or
// Unknown (the kubelet says the node is not ready, or stopped posting) is the
// machine's failure; `MemoryPressure`, `DiskPressure`, `PIDPressure` True are
// its warnings; any other row is information. The rest of the description is
// not read.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { RecordDater } from "../log/dating.js";
import { kubectlLine, kubectlOutputOf, readHeader, readRow, type Columns } from "./columns.js";
import { rfc1123Us } from "./describePod.js";

const NODE_NAME = /^Name:\s+(\S+)\s*$/;
const COLUMNS = ["Type", "Status", "LastHeartbeatTime", "LastTransitionTime", "Reason", "Message"];
const PRESSURES = new Set(["MemoryPressure", "DiskPressure", "PIDPressure"]);

class DescribeNodeParser implements LineParser {
  private readonly dater: RecordDater;
  private out: ParsedEvent[] = [];
  private host: string | undefined;
  private inConditions = false;
  private columns: Columns | null = null;

  constructor(ctx: ParseContext) {
    this.dater = new RecordDater(ctx.dating, ctx.tzOffsetMinutes, (ev) => this.out.push(ev));
    this.host = ctx.host;
  }

  line(text: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    const line = kubectlLine(text);
    if (line.length > 0 && line.charCodeAt(0) !== 32) {
      const name = NODE_NAME.exec(line);
      if (name !== null) this.host = name[1];
      this.inConditions = line.trimEnd() === "Conditions:";
      this.columns = null;
      return;
    }
    if (this.inConditions) this.conditionLine(line, lineNo, issues);
  }

  end(out: ParsedEvent[]): void {
    this.out = out;
    this.dater.finish();
  }

  timeOrigin(): string | null {
    return this.dater.origin();
  }

  private conditionLine(line: string, lineNo: number, issues: ParseIssue[]): void {
    if (this.columns === null) {
      this.columns = readHeader(line, COLUMNS);
      if (this.columns?.names.length !== COLUMNS.length) {
        this.columns = null;
        this.inConditions = false;
        issues.push({ line: lineNo, message: "not the header of kubectl describe node's Conditions table (Type Status LastHeartbeatTime LastTransitionTime Reason Message); the table is not read" });
      }
      return;
    }
    if (/^\s*-{4}\s+-{6}/.test(line) || line.trim() === "") return;
    const row = readRow(line, this.columns);
    const ev: ParsedEvent = { tsUs: 0, line: lineNo, kind: LogKind.unparsed, text: line };
    if (this.host !== undefined) ev.host = this.host;
    if (row === null || row.get("Type") === "" || row.get("Status") === "") {
      issues.push({ line: lineNo, message: "a row of kubectl describe node's Conditions table whose cells are not under their columns; it is kept uninterpreted" });
      ev.unparsedMessage = line.trim();
      return this.dater.undated(ev);
    }
    conditionOf(ev, row.get("Type")!, row.get("Status")!, row.get("Reason")!, row.get("Message")!);
    const us = rfc1123Us(row.get("LastTransitionTime")!);
    if (us === null) return this.dater.undated(ev);
    ev.tsUs = us;
    this.dater.dated(ev);
  }
}

/** Fills `ev` from a condition's row: the machine not ready is its failure, a pressure its warning. */
export function conditionOf(ev: ParsedEvent, type: string, status: string, reason: string, message: string): void {
  const attrs: Record<string, unknown> = { scope: "machine", condition: type, status, reason, message };
  ev.attrs = attrs;
  if (type === "Ready" && (status === "False" || status === "Unknown")) {
    ev.kind = LogKind.error;
    Object.assign(attrs, { level: "error", failureClass: "node-failure", error: `node not ready (Ready ${status}, ${reason}): ${message}` });
    return;
  }
  ev.kind = LogKind.message;
  attrs.level = PRESSURES.has(type) && status === "True" ? "warning" : "info";
}

/** The first line of the file is a node's `Name:`, and the head has its `Roles:` and a `Conditions:` section. */
function detect(head: string): boolean {
  const start = kubectlOutputOf(head);
  return NODE_NAME.test(start.substring(0, start.indexOf("\n") >>> 0)) && /^Roles:\s/m.test(start) && /^Conditions:\s*$/m.test(start);
}

export const kubectlDescribeNode: InputFormat = {
  name: "kubectl-describe-node",
  detect,
  createParser: (ctx) => new DescribeNodeParser(ctx),
};
