// `kubectl describe pod` (kubectl pkg/describe/describe.go describePod,
// describeContainers, describeContainerState, DescribeEvents): a pod's
// `Name:`, its containers, each with its `State:` and `Last State:` (Running
// with `Started:`; Waiting with `Reason:`; Terminated with `Reason:`,
// `Exit Code:`, `Signal:`, `Started:`, `Finished:`) and `Restart Count:`,
// then the pod's `Events:` table; a pod the kubelet evicted says so at its
// own level (`Status: Failed`, `Reason: Evicted`, `Message: The node was low
// on resource: memory. …`), with no time; so does a pod its node's controller
// gave up with the node (`NodeLost`), one the node's shutdown ended
// (`Shutdown`, `Terminated`) and one the kubelet refused at admission
// (`UnexpectedAdmissionError`: a device it could not allocate). Levels are two spaces each. A container
// state's times are RFC 1123 (`Thu, 11 Jun 2026 14:07:11 +0000`) and date its
// record; the Events table's ages date nothing. The pod's name is the host,
// and gives the role (`sglang-decode-0`); its `Node:` (`gpu-node-7/10.0.4.27`)
// is the machine it ran on, kept on its records as `nodeName`; several pods in
// one file are read in turn.

import { monthOfAbbreviation } from "../../../domain/timeFormat.js";
import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import type { Role } from "../../../domain/vocabulary.js";
import { roleOfName } from "../../inputs/pathIdentity.js";
import { civilToUs, isValidCivil } from "../sglang/prefix.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { RecordDater } from "../log/dating.js";
import { kubectlLine, kubectlOutputOf, readHeader, readRow, type Columns } from "./columns.js";
import { countOfAge, podEventOf } from "./podEvents.js";
import { containerStateAttrs, podEndAttrs, withPodEndMessage, type ContainerStateReading } from "./podStates.js";

const POD_NAME = /^Name:\s+(\S+)\s*$/;
/** `Node: gpu-node-7/10.0.4.27`: the machine the pod was scheduled on, and its address (`<none>` before it is). */
const POD_NODE = /^Node:\s+([^\s/<][^\s/]*)(?:\/\S*)?\s*$/;
/** The pod-level fields describePod prints after `Name:` and before `Containers:`, in its order. */
const POD_FIELD = /^(?:Namespace|Priority|Priority Class Name|Runtime Class Name|Service Account|Node|Start Time|Labels|Annotations|Status|IP|IPs|Controlled By):(?:\s|$)/;
const POD_REASON = /^Reason:\s+(\S+)\s*$/;

const POD_MESSAGE = /^Message:\s+(.*?)\s*$/;
const CONTAINER = /^ {2}([a-z0-9][a-z0-9.-]*):\s*$/;
const STATE = /^ {4}(State|Last State):\s+(\w+)\s*$/;
const STATE_FIELD = /^ {6}(Reason|Message|Exit Code|Signal|Started|Finished):\s+(.*?)\s*$/;
const RESTARTS = /^ {4}Restart Count:\s+(\d+)\s*$/;
const EVENT_COLUMNS = ["Type", "Reason", "Age", "From", "Message"];
// Go's time.RFC1123Z, as describeContainerState prints StartedAt and FinishedAt.
const RFC1123Z = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)$/;

/**
 * A Go RFC1123Z time in µs since the epoch; null when the text is none, or
 * Go's zero time (`Mon, 01 Jan 0001 00:00:00 +0000`, a state whose time the
 * runtime lost) or any other outside the years a log is read in.
 */
export function rfc1123Us(text: string): number | null {
  const m = RFC1123Z.exec(text);
  if (m === null) return null;
  const civil = { year: +m[3]!, month: monthOfAbbreviation(m[2]!), day: +m[1]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  return civilToUs(civil, 0, (m[7] === "-" ? -1 : 1) * (+m[8]! * 60 + +m[9]!));
}

interface ContainerState {
  which: string;
  state: string;
  line: number;
  lines: string[];
  fields: Map<string, string>;
}

interface Container {
  name: string;
  states: ContainerState[];
  restarts: number;
}

class DescribePodParser implements LineParser {
  private readonly dater: RecordDater;
  private out: ParsedEvent[] = [];
  private pod: { host: string; role: Role | undefined; node?: string } | null = null;
  private section: "top" | "containers" | "events" | "other" = "top";
  private container: Container | null = null;
  private state: ContainerState | null = null;
  private columns: Columns | null = null;
  /** The pod's end (an eviction, its node lost or shut down, its admission refused), waiting for the `Message:` line that may follow it. */
  private podEnd: ParsedEvent | null = null;

  constructor(private readonly ctx: ParseContext) {
    this.dater = new RecordDater(ctx.dating, ctx.tzOffsetMinutes, (ev) => this.out.push(ev));
  }

  line(text: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    const line = kubectlLine(text);
    if (line.length > 0 && line.charCodeAt(0) !== 32) return this.topLine(line, lineNo);
    if (this.section === "containers") return this.containerLine(line, lineNo);
    if (this.section === "events") this.eventLine(line, lineNo, issues);
  }

  end(out: ParsedEvent[]): void {
    this.out = out;
    this.closePodEnd();
    this.closeContainer();
    this.dater.finish();
  }

  timeOrigin(): string | null {
    return this.dater.origin();
  }

  /** A line at the pod's level: its name, its end, or the section that starts. */
  private topLine(line: string, lineNo: number): void {
    const message = this.podEnd !== null ? POD_MESSAGE.exec(line) : null;
    if (message !== null) {
      const ev = this.podEnd!;
      ev.text += `\n${line}`;
      withPodEndMessage(ev.attrs!, message[1]!);
      return;
    }
    this.closePodEnd();
    this.closeContainer();
    const reason = POD_REASON.exec(line)?.[1];
    const end = reason === undefined ? undefined : podEndAttrs(reason);
    if (end !== undefined) {
      const ev = this.newEvent(lineNo, line);
      ev.kind = LogKind.crash;
      ev.attrs = end;
      this.podEnd = ev;
      return;
    }
    const node = POD_NODE.exec(line)?.[1];
    if (node !== undefined && this.pod !== null) this.pod.node = node;
    const name = POD_NAME.exec(line);
    if (name !== null) {
      this.pod = { host: name[1]!, role: roleOfName(name[1]!) };
      this.section = "top";
      return;
    }
    this.section = line === "Containers:" || line === "Init Containers:" ? "containers" : line === "Events:" ? "events" : "other";
    this.columns = null;
  }

  private containerLine(line: string, lineNo: number): void {
    const container = CONTAINER.exec(line);
    if (container !== null) {
      this.closeContainer();
      this.container = { name: container[1]!, states: [], restarts: 0 };
      return;
    }
    if (this.container === null) return;
    const state = STATE.exec(line);
    if (state !== null) {
      this.state = { which: state[1]!, state: state[2]!, line: lineNo, lines: [line], fields: new Map() };
      this.container.states.push(this.state);
      return;
    }
    const field = this.state !== null ? STATE_FIELD.exec(line) : null;
    if (field !== null) {
      this.state!.fields.set(field[1]!, field[2]!);
      this.state!.lines.push(line);
      return;
    }
    this.state = null;
    const restarts = RESTARTS.exec(line);
    if (restarts !== null) this.container.restarts = Number(restarts[1]);
  }

  private closePodEnd(): void {
    if (this.podEnd !== null) this.dater.undated(this.placed(this.podEnd));
    this.podEnd = null;
  }

  /** The container's states, as records: a termination that was no success is the process's death. */
  private closeContainer(): void {
    const c = this.container;
    this.container = null;
    this.state = null;
    if (c === null) return;
    for (const s of c.states) {
      const ev = this.newEvent(s.line, s.lines.join("\n"));
      ev.attrs = stateAttrs(c, s);
      ev.kind = ev.attrs.failureClass !== undefined ? LogKind.crash : LogKind.podEvent;
      const us = rfc1123Us(s.fields.get("Finished") ?? s.fields.get("Started") ?? "");
      if (us === null) this.dater.undated(this.placed(ev));
      else {
        ev.tsUs = us;
        this.dater.dated(this.placed(ev));
      }
    }
  }

  private eventLine(line: string, lineNo: number, issues: ParseIssue[]): void {
    if (this.columns === null) {
      this.columns = readHeader(line, EVENT_COLUMNS);
      if (this.columns?.names.length !== EVENT_COLUMNS.length) {
        this.columns = null;
        issues.push({ line: lineNo, message: "not the header of kubectl describe's Events table (Type Reason Age From Message); the line is kept as it stands" });
      }
      return;
    }
    if (/^\s*-{4}\s+-{6}/.test(line) || line.trim() === "") return;
    const row = readRow(line, this.columns);
    const ev = this.newEvent(lineNo, line);
    if (row === null || row.get("Type") === "" || row.get("Reason") === "") {
      issues.push({ line: lineNo, message: "a row of kubectl describe's Events table whose cells are not under their columns; its message is kept uninterpreted" });
      ev.kind = LogKind.unparsed;
      ev.unparsedMessage = line.trim();
    } else {
      podEventOf(ev, row.get("Type")!, row.get("Reason")!, row.get("Message")!, countOfAge(row.get("Age")!));
      Object.assign(ev.attrs!, { scope: "pod", from: row.get("From") });
    }
    this.dater.undated(this.placed(ev));
  }

  private newEvent(line: number, text: string): ParsedEvent {
    const ev: ParsedEvent = { tsUs: 0, line, kind: LogKind.podEvent, text };
    const host = this.pod?.host ?? this.ctx.host;
    const role = this.pod?.role ?? this.ctx.role;
    if (host !== undefined) ev.host = host;
    if (role !== undefined) ev.role = role;
    return ev;
  }

  /** A record of the pod goes out with the machine it ran on, once the description said it (`Node:` comes before the containers). */
  private placed(ev: ParsedEvent): ParsedEvent {
    if (this.pod?.node !== undefined) (ev.attrs ??= {}).nodeName = this.pod.node;
    return ev;
  }
}

/** A container's state block as describePod prints it, read. */
function stateAttrs(c: Container, s: ContainerState): Record<string, unknown> {
  const number = (field: string): number | undefined => (s.fields.has(field) ? Number(s.fields.get(field)) : undefined);
  const reading: ContainerStateReading = { container: c.name, stateOf: s.which === "State" ? "current" : "last", state: s.state, restarts: c.restarts };
  const reason = s.fields.get("Reason");
  const exitCode = number("Exit Code");
  const signal = number("Signal");
  const message = s.fields.get("Message");
  if (reason !== undefined) reading.reason = reason;
  if (exitCode !== undefined) reading.exitCode = exitCode;
  if (signal !== undefined) reading.signal = signal;
  if (message !== undefined) reading.message = message;
  return containerStateAttrs(reading);
}

/** The first line of the file is a pod's `Name:`, and the head has its `Namespace:` and a `Containers:` or `Events:` section. */
function detect(head: string): boolean {
  const start = kubectlOutputOf(head);
  const first = start.substring(0, start.indexOf("\n") >>> 0);
  if (POD_NAME.test(first)) return /^Namespace:\s+\S/m.test(start) && /^(?:Containers|Events):/m.test(start);
  // A paste that starts below the pod's name: one of describePod's own fields first, then its containers with their images.
  return POD_FIELD.test(first) && /^Containers:\s*$/m.test(start) && /^ {4}Image:\s+\S/m.test(start);
}

export const kubectlDescribePod: InputFormat = {
  name: "kubectl-describe-pod",
  detect,
  createParser: (ctx) => new DescribePodParser(ctx),
};
