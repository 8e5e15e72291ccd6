// The input formats, and detection of a file's format by its content (never
// by its name). The order matters: the most specific shapes are tried first,
// the log formats last, plain text at the very end.

import type { FormatName, InputFormat } from "./format.js";
import { checksumCsv, checksumJsonl } from "./checksumDump.js";
import { sglangCrashDump } from "./crashDump.js";
import { flightRecorder, flightRecorderPickle } from "./flightRecorder.js";
import { pageDumpJsonl } from "./pageDump/index.js";
import { probeJsonl } from "./probeJsonl.js";
import { kubectlDescribeNode } from "./kubectl/describeNode.js";
import { kubectlDescribePod } from "./kubectl/describePod.js";
import { kubectlEvents } from "./kubectl/getEvents.js";
import { kubectlPods } from "./kubectl/getPods.js";
import { kubernetesObjects } from "./kubectl/objects.js";
import { glogLog, textLog } from "./log/logFormats.js";
import { sglangLog } from "./sglangLog.js";
import { prometheusText } from "./metrics/exposition.js";
import { prometheusApiJson } from "./metrics/promApi.js";
import { sglangRequestMetrics } from "./metrics/requestMetrics.js";
import { jaegerJson } from "./traces/jaegerJson.js";
import { otlpJson } from "./traces/otlpJson.js";

/** Text in no other format is `text`: detection never leaves a text file out. */
export const FORMATS: readonly InputFormat[] = [
  flightRecorder,
  otlpJson,
  jaegerJson,
  prometheusApiJson,
  pageDumpJsonl,
  checksumJsonl,
  probeJsonl,
  sglangRequestMetrics,
  checksumCsv,
  prometheusText,
  kubernetesObjects,
  kubectlDescribePod,
  kubectlDescribeNode,
  kubectlEvents,
  kubectlPods,
  sglangLog,
  glogLog,
  textLog,
];

/** Bytes of a file's start that detection looks at. */
export const HEAD_BYTES = 64 * 1024;

export function detectFormat(head: string): InputFormat {
  return FORMATS.find((f) => f.detect(head)) ?? textLog;
}

/** Binary formats, recognised by their first bytes before binary content is refused (each pickle by its own keys). */
export const BINARY_FORMATS: readonly InputFormat[] = [sglangCrashDump, flightRecorderPickle];

export function detectBinaryFormat(head: Buffer): InputFormat | undefined {
  return BINARY_FORMATS.find((f) => f.detectBytes?.(head) === true);
}

export function formatByName(name: FormatName): InputFormat {
  const f = [...FORMATS, ...BINARY_FORMATS].find((x) => x.name === name);
  if (!f) throw new Error(`unknown input format ${name}`);
  return f;
}

/** Control bytes a text file holds: tab, line feed, vertical tab, form feed, carriage return, escape (colours). */
const TEXT_CONTROLS = new Set([9, 10, 11, 12, 13, 27]);

/**
 * A NUL byte in a file's head marks a binary file (the heuristic git and grep
 * use), unless the first 8,000 bytes besides the NULs are text: a log with a
 * hole of NULs, as a crash or logrotate's `copytruncate` leaves, is still a
 * log (its reader drops them, ingest/inputs/lines.ts). Text: at most one byte
 * in 20 a control byte other than TEXT_CONTROLS.
 */
export function looksBinary(head: Buffer): boolean {
  if (!head.includes(0)) return false;
  let text = 0;
  let control = 0;
  for (let i = 0; i < head.length && text < 8000; i++) {
    const b = head[i]!;
    if (b === 0) continue;
    text++;
    if ((b < 32 && !TEXT_CONTROLS.has(b)) || b === 127) control++;
  }
  return text === 0 || control * 20 > text;
}

/**
 * Formats whose records may carry no time of their own and take the dating
 * hints' anchor as their place in the order (a scrape saved without timestamps).
 */
export function takesDatingHints(name: FormatName): boolean {
  return isLogFormat(name) || name === "prometheus-text" || name === "sglang-request-metrics" || isKubectlFormat(name);
}

/**
 * Formats whose every event names its own machine (a trace file holds the
 * spans of every host an exporter saw, `kubectl get events` every pod's
 * events, a Kubernetes JSON list every pod's or node's): the file itself is no machine's
 * clock, whatever folder it is in.
 */
export function namesHostPerEvent(name: string | null): boolean {
  return name === "otlp-json" || name === "jaeger-json" || name === "kubectl-events" || name === "kubectl-pods" || name === "kubernetes-objects";
}

/** What kubectl printed of pods and nodes (describe, events): records of the pods and machines they name, their times stated or not. */
export function isKubectlFormat(name: FormatName): boolean {
  return name === "kubectl-describe-pod" || name === "kubectl-describe-node" || name === "kubectl-events" || name === "kubectl-pods" || name === "kubernetes-objects";
}

/** The formats read by the shared log parser (ingest/formats/log/logParser.ts). */
export function isLogFormat(name: FormatName): boolean {
  return name === "sglang-log" || name === "glog" || name === "text";
}

/**
 * Formats whose records take the source's host, when it has one, over the
 * one their own lines name (ParseContext.host): a log's wrapper host, a
 * metric series' instance label.
 */
export function prefersSourceHost(name: FormatName): boolean {
  return isLogFormat(name) || name === "prometheus-text" || name === "prometheus-api-json";
}

/**
 * Up to which line a source's records say who wrote it
 * (ingest/sources/sourceIdentity.ts): every record of a log, a probe file or a
 * dump; the header and first record of a checksum or page-dump table; none
 * of a trace or metrics file, whose records name every machine an exporter saw.
 */
export function identityLines(name: FormatName): number {
  if (isLogFormat(name) || isKubectlFormat(name) || name === "probe-jsonl" || formatByName(name).parseBytes !== undefined || name === "flight-recorder") return Infinity;
  if (name === "checksum-csv" || name === "checksum-jsonl" || name === "page-dump-jsonl") return 2;
  return 0;
}
