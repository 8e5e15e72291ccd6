// Kubernetes objects as an operator saves them, in JSON or YAML: `kubectl
// get events|pods|nodes -o json` or `-o yaml` (a `List` whose items each
// state their kind), one object (`kubectl get pod x -o yaml`), the
// `events.json`, `pods.json` and `nodes.json` that `kubectl cluster-info dump
// --output-directory` writes (typed lists, `EventList`, `PodList`,
// `NodeList`, whose items state no kind; kubectl
// pkg/cmd/clusterinfo/clusterinfo_dump.go), and the `<pod>.yaml` and
// `events.yaml` of OpenShift's must-gather (`oc adm inspect`). Unlike
// kubectl's tables, every object states its times in RFC 3339 (kubernetes
// pkg/apis/core types.go): an event's `firstTimestamp` (or `eventTime`), a
// container state's `finishedAt` or `startedAt`, a node condition's
// `lastTransitionTime`. What each says is read as kubectl's printed forms
// are (./podEvents.ts, ./podStates.ts, ./describeNode.ts): the pods and
// machines named are the records' hosts. A record's line is where its
// object's `metadata.uid` stands. cluster-info dump without a directory
// writes its documents and every container's log to one stream: each
// document is read as it closes and each log as its pod's as it streams, so
// a dump of any size is read (a YAML file is read whole).

import { parseAllDocuments } from "yaml";
import { z } from "zod";
import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { roleOfName } from "../../inputs/pathIdentity.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { RecordDater } from "../log/dating.js";
import { textLog } from "../log/logFormats.js";
import { isPlainObject, MAX_DOCUMENT_CHARS, wholeDocumentParser } from "../records.js";
import { readRfc3339 } from "../wrappers/rfc3339.js";
import { conditionOf } from "./describeNode.js";
import { placeEvent, podEventOf } from "./podEvents.js";
import { containerStateAttrs, podEndAttrs, type ContainerStateReading } from "./podStates.js";

const time = z.string().nullish();
const metadata = z.looseObject({ name: z.string().optional(), namespace: z.string().optional(), uid: z.string().optional(), creationTimestamp: time }).optional();
const objectRef = z.looseObject({ kind: z.string().optional(), name: z.string().optional() }).nullish();
// core/v1 Event, and events.k8s.io/v1's names for the same fields (note, regarding).
const eventSchema = z.looseObject({
  metadata,
  type: z.string().nullish(),
  reason: z.string().nullish(),
  message: z.string().nullish(),
  note: z.string().nullish(),
  involvedObject: objectRef,
  regarding: objectRef,
  firstTimestamp: time,
  eventTime: time,
  count: z.number().nullish(),
});
const terminated = z.looseObject({ exitCode: z.number().optional(), signal: z.number().optional(), reason: z.string().optional(), message: z.string().optional(), startedAt: time, finishedAt: time });
const state = z.looseObject({
  running: z.looseObject({ startedAt: time }).nullish(),
  waiting: z.looseObject({ reason: z.string().optional(), message: z.string().optional() }).nullish(),
  terminated: terminated.nullish(),
}).nullish();
const containerStatus = z.looseObject({ name: z.string(), restartCount: z.number().optional(), state, lastState: state });
const podSchema = z.looseObject({
  metadata,
  spec: z.looseObject({ nodeName: z.string().optional() }).nullish(),
  status: z.looseObject({
    reason: z.string().optional(),
    message: z.string().optional(),
    initContainerStatuses: z.array(containerStatus).nullish(),
    containerStatuses: z.array(containerStatus).nullish(),
  }).nullish(),
});
const nodeSchema = z.looseObject({
  metadata,
  status: z.looseObject({
    conditions: z.array(z.looseObject({ type: z.string(), status: z.string(), reason: z.string().optional(), message: z.string().optional(), lastTransitionTime: time })).nullish(),
  }).nullish(),
});

type ObjectKind = "Event" | "Pod" | "Node";
const KINDS = new Set<string>(["Event", "Pod", "Node"]);
/** A document of these objects: a `"kind"` of one of them or of its list, beside an `"apiVersion"`. */
const KIND_IN_HEAD = /"kind"\s*:\s*"(?:Event|Pod|Node)(?:List)?"/;
/** The same in YAML: the first line one of an object's top-level keys (after a `---`), a `kind:` of these objects at any depth. */
const YAML_OPENING = /^(?:---\s*\n)?(?:apiVersion|kind|items|metadata):/;
const YAML_API = /^(?:- |\s)*apiVersion:\s*\S/m;
const YAML_KIND = /^(?:- |\s)*kind:\s*["']?(?:Event|Pod|Node)(?:List)?["']?\s*$/m;

/** The lines kubectl cluster-info dump puts around each container's log (clusterinfo_dump.go printContainer). */
const LOGS_END = "==== END logs for container ";
const LOGS_START_LINE = /^==== START logs for container \S+ of pod [^/\s]+\/(\S+) ====$/;

/** Microseconds since the epoch of an RFC 3339 time, or null. */
function instantUs(text: string | null | undefined): number | null {
  return text ? (readRfc3339(text, 0)?.us ?? null) : null;
}

class ObjectsParser implements LineParser {
  private readonly dater: RecordDater;
  private out: ParsedEvent[] = [];
  /** JSON documents are read one at a time as they close; YAML whole, at the file's end. Decided by the first line. */
  private mode: "json" | "yaml" | null = null;
  private readonly yaml = wholeDocumentParser("Kubernetes objects (YAML)", (doc, _out, issues) => this.readYaml(doc, issues));
  /** The JSON document being read: its lines so far and the line it opened on. */
  private docLines: string[] = [];
  private docFirst = 0;
  private docChars = 0;
  /** The container log being read (cluster-info dump's standard output), as its pod's. */
  private log: { parser: LineParser; pod: string } | null = null;
  private doc = "";
  /** Where the search for the next object's uid starts, and the line it is on. */
  private searchFrom = 0;
  private searchLine = 1;

  constructor(private readonly ctx: ParseContext) {
    this.dater = new RecordDater(ctx.dating, ctx.tzOffsetMinutes, (ev) => this.out.push(ev));
  }

  line(text: string, lineNo: number, out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    if (this.mode === null) {
      if (text.trim() === "") return;
      this.mode = text.trimStart().startsWith("{") ? "json" : "yaml";
    }
    if (this.mode === "yaml") return this.yaml.line(text, lineNo, out, issues);
    this.jsonLine(text, lineNo, issues);
  }

  end(out: ParsedEvent[], issues: ParseIssue[]): void {
    this.out = out;
    if (this.mode === "yaml") this.yaml.end(out, issues);
    if (this.docLines.length > 0) this.closeDocument(issues);
    if (this.log !== null) this.closeLog(issues);
    this.dater.finish();
  }

  timeOrigin(): string | null {
    return this.dater.origin();
  }

  /**
   * A line of JSON documents, one after another as `kubectl cluster-info dump`
   * writes them to standard output (each opening with `{` and closing with `}`
   * at the first column, MarshalIndent's form; or one document a line), then
   * each container's log between its START and END lines, read as that pod's
   * log as it streams. A line in neither is kept as text.
   */
  private jsonLine(text: string, lineNo: number, issues: ParseIssue[]): void {
    if (this.log !== null) {
      if (!text.startsWith(LOGS_END)) return this.log.parser.line(text, lineNo, this.out, issues);
      const pod = this.log.pod;
      this.closeLog(issues);
      return this.text(text, lineNo, pod);
    }
    // A document cut short (a truncated dump) ends where the next one or a container's log begins.
    if (this.docLines.length > 0 && (text === "{" || LOGS_START_LINE.test(text))) this.closeDocument(issues);
    if (this.docLines.length > 0 || text === "{") return this.documentLine(text, lineNo, issues);
    if (text.startsWith("{") && text.trimEnd().endsWith("}")) return this.readDocument(text, lineNo, issues);
    const pod = LOGS_START_LINE.exec(text)?.[1];
    if (pod !== undefined) {
      this.log = { parser: textLog.createParser({ ...this.ctx, host: pod, role: roleOfName(pod) }), pod };
      return this.text(text, lineNo, pod);
    }
    if (text.trim() !== "") this.text(text, lineNo);
  }

  /** A line of the JSON document being read: the document is read when its closing brace comes. */
  private documentLine(text: string, lineNo: number, issues: ParseIssue[]): void {
    if (this.docLines.length === 0) this.docFirst = lineNo;
    this.docChars += text.length + 1;
    if (this.docChars <= MAX_DOCUMENT_CHARS) this.docLines.push(text);
    if (text === "}") this.closeDocument(issues);
  }

  private closeDocument(issues: ParseIssue[]): void {
    if (this.docChars > MAX_DOCUMENT_CHARS) issues.push({ line: this.docFirst, message: "a JSON document larger than 256 MiB; not read" });
    else this.readDocument(this.docLines.join("\n"), this.docFirst, issues);
    this.docLines = [];
    this.docChars = 0;
  }

  private closeLog(issues: ParseIssue[]): void {
    this.log!.parser.end(this.out, issues);
    this.log = null;
  }

  /** A YAML stream of one or more documents (`---` between them). */
  private readYaml(text: string, issues: ParseIssue[]): void {
    this.doc = text;
    this.searchFrom = 0;
    this.searchLine = 1;
    for (const doc of parseAllDocuments(text)) {
      const error = doc.errors[0];
      if (error !== undefined) {
        issues.push({ line: error.linePos?.[0].line ?? 1, message: `not YAML: ${error.message.split("\n")[0]}; the document is not read` });
        continue;
      }
      this.readRoot(doc.toJS(), issues);
    }
  }

  /** One JSON document whose first line is `firstLine` of the file. */
  private readDocument(doc: string, firstLine: number, issues: ParseIssue[]): void {
    let root: unknown;
    try {
      root = JSON.parse(doc);
    } catch (e) {
      issues.push({ line: firstLine, message: `not JSON: ${(e as Error).message}; the document is not read` });
      return;
    }
    this.doc = doc;
    this.searchFrom = 0;
    this.searchLine = firstLine;
    this.readRoot(root, issues);
  }

  /** An object or a list of them. */
  private readRoot(root: unknown, issues: ParseIssue[]): void {
    if (!isPlainObject(root)) return void issues.push({ line: this.searchLine, message: "not a Kubernetes object or list; the document is not read" });
    const listKind = typeof root.kind === "string" && root.kind.endsWith("List") ? root.kind.slice(0, -4) : undefined;
    const items = Array.isArray(root.items) ? root.items : [root];
    for (const item of items) {
      const kind = isPlainObject(item) && typeof item.kind === "string" ? item.kind : listKind;
      if (kind !== undefined && KINDS.has(kind)) this.object(kind as ObjectKind, item, issues);
    }
  }

  /** A line of the dump that is neither an object nor a container's log line (its START and END lines, kubectl's own notes). */
  private text(line: string, lineNo: number, host?: string): void {
    const ev = this.newEvent(lineNo, line, host);
    ev.kind = LogKind.unparsed;
    ev.unparsedMessage = line.trim();
    this.dater.undated(ev);
  }

  private object(kind: ObjectKind, item: unknown, issues: ParseIssue[]): void {
    const schema = kind === "Event" ? eventSchema : kind === "Pod" ? podSchema : nodeSchema;
    const parsed = schema.safeParse(item);
    const line = this.lineOf(isPlainObject(item) && isPlainObject(item.metadata) ? item.metadata.uid : undefined);
    if (!parsed.success) return void issues.push({ line, message: `a ${kind} whose fields are not Kubernetes' (${parsed.error.issues[0]?.message ?? "invalid"}); it is not read` });
    if (kind === "Event") this.event(parsed.data as z.infer<typeof eventSchema>, line);
    else if (kind === "Pod") this.pod(parsed.data as z.infer<typeof podSchema>, line);
    else this.node(parsed.data as z.infer<typeof nodeSchema>, line);
  }

  /** The line where the object's uid stands: objects are searched in document order, each after the one before. */
  private lineOf(uid: unknown): number {
    if (typeof uid !== "string" || uid === "") return this.searchLine;
    // Quoted in JSON, bare in YAML: a uid is unique in the file either way.
    const at = this.doc.indexOf(uid, this.searchFrom);
    if (at < 0) return this.searchLine;
    for (let i = this.doc.indexOf("\n", this.searchFrom); i >= 0 && i < at; i = this.doc.indexOf("\n", i + 1)) this.searchLine++;
    this.searchFrom = at;
    return this.searchLine;
  }

  private event(e: z.infer<typeof eventSchema>, line: number): void {
    const about = e.involvedObject ?? e.regarding;
    const objectKind = about?.kind ?? "";
    const name = about?.name ?? "";
    const message = e.message ?? e.note ?? "";
    const object = `${objectKind.toLowerCase()}/${name}`;
    const ev: ParsedEvent = { tsUs: 0, line, kind: LogKind.podEvent, text: `${e.type ?? ""} ${e.reason ?? ""} ${object}: ${message}` };
    podEventOf(ev, e.type ?? "", e.reason ?? "", message, e.count ?? undefined);
    placeEvent(ev, object, this.ctx);
    this.at(ev, instantUs(e.firstTimestamp) ?? instantUs(e.eventTime) ?? instantUs(e.metadata?.creationTimestamp));
  }

  private pod(p: z.infer<typeof podSchema>, line: number): void {
    const name = p.metadata?.name;
    const end = p.status?.reason !== undefined ? podEndAttrs(p.status.reason, p.status.message) : undefined;
    if (end !== undefined) {
      const ev = this.newEvent(line, `pod/${name ?? ""} ${p.status!.reason!}: ${p.status!.message ?? ""}`, name);
      ev.kind = LogKind.crash;
      ev.attrs = end;
      if (p.spec?.nodeName) end.nodeName = p.spec.nodeName;
      this.at(ev, null);
    }
    for (const c of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) {
      for (const [stateOf, s] of [["last", c.lastState], ["current", c.state]] as const) {
        const reading = stateReading(c.name, stateOf, s, c.restartCount ?? 0);
        if (reading === undefined) continue;
        const ev = this.newEvent(line, `pod/${name ?? ""} container ${c.name} ${stateOf === "last" ? "last state" : "state"}: ${JSON.stringify(s)}`, name);
        ev.attrs = containerStateAttrs(reading);
        ev.kind = ev.attrs.failureClass !== undefined ? LogKind.crash : LogKind.podEvent;
        // Not `node`: that names the machine a record is of (analyzer/rules/failures.ts); this record is the pod's, on that machine.
        if (p.spec?.nodeName) ev.attrs.nodeName = p.spec.nodeName;
        this.at(ev, instantUs(s?.terminated?.finishedAt) ?? instantUs(s?.terminated?.startedAt) ?? instantUs(s?.running?.startedAt));
      }
    }
  }

  private node(n: z.infer<typeof nodeSchema>, line: number): void {
    for (const c of n.status?.conditions ?? []) {
      const ev = this.newEvent(line, `node/${n.metadata?.name ?? ""} ${c.type} ${c.status} ${c.reason ?? ""}: ${c.message ?? ""}`, n.metadata?.name);
      conditionOf(ev, c.type, c.status, c.reason ?? "", c.message ?? "");
      this.at(ev, instantUs(c.lastTransitionTime));
    }
  }

  private newEvent(line: number, text: string, host: string | undefined): ParsedEvent {
    const ev: ParsedEvent = { tsUs: 0, line, kind: LogKind.podEvent, text };
    const h = host || this.ctx.host;
    const role = host ? roleOfName(host) : this.ctx.role;
    if (h !== undefined) ev.host = h;
    if (role !== undefined) ev.role = role;
    return ev;
  }

  private at(ev: ParsedEvent, us: number | null): void {
    if (us === null) return this.dater.undated(ev);
    ev.tsUs = us;
    this.dater.dated(ev);
  }
}

/** A container's state as the JSON states it; undefined when it states none (an empty lastState). */
function stateReading(container: string, stateOf: "current" | "last", s: z.infer<typeof state>, restarts: number): ContainerStateReading | undefined {
  const reading = (name: string, fields: { reason?: string; message?: string; exitCode?: number; signal?: number }): ContainerStateReading => ({ container, stateOf, state: name, restarts, ...fields });
  if (s?.terminated) {
    const { exitCode, signal, reason, message } = s.terminated;
    return reading("Terminated", { ...(exitCode !== undefined && { exitCode }), ...(signal !== undefined && { signal }), ...(reason !== undefined && { reason }), ...(message !== undefined && { message }) });
  }
  if (s?.waiting) return reading("Waiting", { ...(s.waiting.reason !== undefined && { reason: s.waiting.reason }) });
  if (s?.running) return reading("Running", {});
  return undefined;
}

export const kubernetesObjects: InputFormat = {
  name: "kubernetes-objects",
  detect(head) {
    const t = head.trimStart();
    if (t.startsWith("{")) return /"apiVersion"\s*:\s*"/.test(t) && KIND_IN_HEAD.test(t);
    return YAML_OPENING.test(t) && YAML_API.test(t) && YAML_KIND.test(t);
  },
  createParser: (ctx) => new ObjectsParser(ctx),
};
