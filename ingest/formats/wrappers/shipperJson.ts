// A log shipper's records of container output, one JSON object a line, as
// they land in a file, an object store or an export: Fluent Bit and Fluentd
// (`{"log":"<line>\n","stream":"stderr","time":"…","kubernetes":{…}}` from the
// docker parser and the kubernetes filter; `{"time":"…","stream":"stderr",
// "_p":"F","message":"<line>"}` from the CRI parser, `_p` `P` marking a part
// of a line the runtime split), Vector's `kubernetes_logs` source (`message`,
// `stream`, `timestamp`, `kubernetes.pod_name`, `source_type`) and Filebeat's
// container input (`message`, `stream`, `@timestamp`, `kubernetes.pod.name`).
// The container's line is `log` or `message`; what tells the record from an
// application's own JSON line (which the structured dialect reads) is the
// shipper's metadata around it: a `kubernetes` or `docker` object, the CRI
// tag, Vector's `source_type`, or a `message` beside a `stream` of stdout or
// stderr and no level field. Its time (RFC 3339, or epoch seconds as Fluent Bit's `date`) stands
// where the line states none; the pod (else the node, else the host) is the
// line's host. A shipper with no CRI parser configured ships the runtime's
// whole line in `log`; that line is unwrapped in turn.
// Sources: fluent/fluent-bit conf/parsers.conf (`docker`, `cri`) and
// plugins/filter_kubernetes; vectordotdev/vector website docs
// reference/configuration/sources/kubernetes_logs (output fields); elastic/beats
// filebeat/input/container and libbeat/processors/add_kubernetes_metadata.

import { LEVEL_KEYS } from "../log/dialects/structured.js";
import { isPlainObject } from "../records.js";
import { readCri } from "./cri.js";
import { readRfc3339 } from "./rfc3339.js";
import type { LineUnwrapper, SingleWrapper, Unwrapped } from "./index.js";
import { jsonObjectOf } from "./jsonLine.js";
import { PartialLines } from "./partialLines.js";

interface ShipperRecord {
  text: string;
  tsUs: number;
  host: string | undefined;
  full: boolean;
}

function readRecord(line: string): ShipperRecord | string {
  const o = jsonObjectOf(line, "log shipper");
  if (typeof o === "string") return o;
  const text = typeof o.log === "string" ? o.log : typeof o.message === "string" ? o.message : undefined;
  if (text === undefined) return "a JSON object without a shipper's `log` or `message`";
  if (!isShipped(o)) return "a JSON object without a shipper's metadata";
  const tag = typeof o._p === "string" ? o._p : typeof o.logtag === "string" ? o.logtag : "F";
  const full = tag !== "P";
  const body = full ? text.replace(/\r?\n$/, "") : text;
  // A shipper without a CRI parser ships the runtime's whole line (`<time> stderr F <line>`): its parts are the runtime's.
  const cri = readCri(body);
  if (cri !== null) return { text: cri.text, tsUs: cri.tsUs, host: hostOf(o), full: cri.full };
  return { text: body, tsUs: timeOf(o), host: hostOf(o), full };
}

/** Docker's own json-file record (`log`, `stream`, `time`) has no metadata: it is Docker's (./dockerJson.ts), whose `log` without a newline is a part. */
function isShipped(o: Record<string, unknown>): boolean {
  if (isPlainObject(o.kubernetes) || isPlainObject(o.docker)) return true;
  if (typeof o._p === "string" || typeof o.logtag === "string" || typeof o.source_type === "string") return true;
  return typeof o.message === "string" && (o.stream === "stdout" || o.stream === "stderr") && !LEVEL_KEYS.some((f) => f in o);
}

function timeOf(o: Record<string, unknown>): number {
  for (const key of ["time", "@timestamp", "timestamp"]) {
    const v = o[key];
    const t = typeof v === "string" ? readRfc3339(v, 0) : null;
    if (t !== null) return t.us;
  }
  // Fluent Bit's `date` in its default json_date_format, `double`: epoch seconds.
  return typeof o.date === "number" && Number.isFinite(o.date) ? Math.round(o.date * 1e6) : -1;
}

function hostOf(o: Record<string, unknown>): string | undefined {
  const k = isPlainObject(o.kubernetes) ? o.kubernetes : undefined;
  const pod = k === undefined ? undefined : isPlainObject(k.pod) ? k.pod.name : k.pod_name;
  const host = isPlainObject(o.host) ? o.host.name : o.host ?? o.hostname;
  for (const v of [pod, k?.pod_node_name, k?.host, isPlainObject(k?.node) ? k.node.name : undefined, host]) {
    if (typeof v === "string" && v !== "") return v;
  }
  return undefined;
}

class ShipperUnwrapper implements LineUnwrapper {
  private readonly parts = new PartialLines();
  private host: string | undefined;

  unwrap(line: string): Unwrapped {
    const r = readRecord(line);
    if (typeof r === "string") return { kind: "foreign", why: r };
    this.host = r.host;
    const u = this.parts.add(r.text, r.tsUs, r.full);
    return u.kind === "line" && this.host !== undefined ? { ...u, host: this.host } : u;
  }

  end(): Unwrapped | null {
    const u = this.parts.end();
    return u !== null && u.kind === "line" && this.host !== undefined ? { ...u, host: this.host } : u;
  }
}

export const shipperJson: SingleWrapper = {
  name: "shipper-json",
  matches: (line) => typeof readRecord(line) !== "string",
  create: () => new ShipperUnwrapper(),
};
