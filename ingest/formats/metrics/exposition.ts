// A saved Prometheus scrape (`curl http://host:30000/metrics > x.prom`): the
// text exposition format 0.0.4 and OpenMetrics 1.0, as prometheus_client
// writes SGLang's series (docs/telemetry.md "Prometheus metrics").
//
// Grammar (prometheus.io/docs/instrumenting/exposition_formats, OpenMetrics 1.0):
//   line    = comment | sample | blank
//   comment = "# HELP " name " " text | "# TYPE " name " " type | "# UNIT " name " " unit
//           | "# EOF" | "#" anything
//   sample  = name [ "{" label ( "," label )* [","] "}" ] " " value [ " " timestamp ] [ " # " exemplar ]
//   label   = lname "=" '"' value with \\ \" \n escaped '"'
//   name    = [a-zA-Z_:][a-zA-Z0-9_:]* ; value = Go float | "+Inf" | "-Inf" | "NaN"
//   type    = counter | gauge | histogram | gaugehistogram | summary | info | stateset | untyped | unknown
// A histogram's samples are `<name>_bucket{le=…}`, `<name>_sum`, `<name>_count`
// (and `_created` in OpenMetrics), all of the `# TYPE <name> histogram` family.
//
// Timestamps: the text format writes integer milliseconds, OpenMetrics
// seconds (a float). They are told apart by size: a real date after 1973 in
// milliseconds is above 1e11, and in seconds stays below it until the year 5138.
// A sample without a timestamp (what `curl …/metrics` saves) has no time: the
// file says when it was scraped nowhere, so its samples are timeless — kept
// in the order before the host's dated records (ingest/formats/log/dating.ts),
// never drawn at an invented time.
//
// A line that is none of these is a parse issue with its line number; the
// lines around it are read all the same.

import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { familyCandidates, inTimeOrder, makeSeries, parseSampleValue, sampleEvent, typeFromName, type MetricType, type Series } from "./series.js";

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES: Readonly<Record<string, MetricType>> = {
  counter: "counter",
  gauge: "gauge",
  histogram: "histogram",
  gaugehistogram: "histogram",
  summary: "summary",
  untyped: "untyped",
  unknown: "untyped",
  info: "gauge",
  stateset: "gauge",
};
/** Below this a timestamp is seconds (OpenMetrics), above it milliseconds (text format 0.0.4). */
const SECONDS_BELOW = 1e11;

export interface SampleLine {
  /** The series part of the line, `name{…}`, as written: the key its parsed form is cached under. */
  seriesKey: string;
  name: string;
  labels: Record<string, string>;
  valueText: string;
  /** Epoch µs, or undefined when the line has no timestamp. */
  tsUs: number | undefined;
}

/** One sample line, or a reason it is not one. */
export function parseSampleLine(line: string): SampleLine | string {
  const name = NAME.exec(line);
  if (name === null) return "not a sample: no metric name at its start";
  let at = name[0].length;
  const labels: Record<string, string> = {};
  if (line.charCodeAt(at) === 123 /* { */) {
    const end = parseLabels(line, at + 1, labels);
    if (typeof end === "string") return end;
    at = end;
  }
  const seriesKey = line.slice(0, at);
  if (line.charCodeAt(at) !== 32 && line.charCodeAt(at) !== 9) return "a sample needs a space and a value after its series";
  const rest = line.slice(at).trim();
  const exemplar = rest.indexOf(" # ");
  const fields = (exemplar >= 0 ? rest.slice(0, exemplar) : rest).split(/[ \t]+/);
  if (fields.length > 2 || fields[0] === "") return `a sample is "series value [timestamp]"; found ${JSON.stringify(rest)}`;
  const valueText = fields[0]!;
  if (parseSampleValue(valueText) === undefined) return `sample value ${JSON.stringify(valueText)} is not a number`;
  let tsUs: number | undefined;
  if (fields.length === 2) {
    const t = Number(fields[1]);
    if (!/^-?\d+(?:\.\d+)?$/.test(fields[1]!) || !Number.isFinite(t)) return `sample timestamp ${JSON.stringify(fields[1])} is not a number`;
    tsUs = Math.round(t < SECONDS_BELOW ? t * 1e6 : t * 1e3);
  }
  return { seriesKey, name: name[0], labels, valueText, tsUs };
}

/** Reads `l="v",…}` from `at`; returns the index after `}` or why it is not a label set. */
function parseLabels(line: string, at: number, labels: Record<string, string>): number | string {
  for (;;) {
    while (line.charCodeAt(at) === 32) at++;
    if (line.charCodeAt(at) === 125 /* } */) return at + 1;
    const name = LABEL_NAME.exec(line.slice(at));
    if (name === null) return `label set cut or malformed at column ${at + 1}`;
    at += name[0].length;
    if (line.charCodeAt(at) !== 61 /* = */ || line.charCodeAt(at + 1) !== 34 /* " */) return `label ${name[0]} has no quoted value`;
    at += 2;
    let value = "";
    for (;;) {
      if (at >= line.length) return `label ${name[0]}'s value is not closed (the line is cut)`;
      const c = line[at]!;
      if (c === '"') break;
      if (c === "\\") {
        const next = line[at + 1];
        value += next === "n" ? "\n" : next === "\\" ? "\\" : next === '"' ? '"' : `\\${next ?? ""}`;
        at += 2;
      } else {
        value += c;
        at++;
      }
    }
    labels[name[0]] = value;
    at++;
    while (line.charCodeAt(at) === 32) at++;
    if (line.charCodeAt(at) === 44 /* , */) at++;
    else if (line.charCodeAt(at) !== 125) return `label set cut or malformed at column ${at + 1}`;
  }
}

class ExpositionParser implements LineParser {
  private readonly types = new Map<string, MetricType>();
  private readonly series = new Map<string, Series>();
  private readonly events: ParsedEvent[] = [];
  private readonly anchorUs: number;

  constructor(private readonly ctx: ParseContext) {
    this.anchorUs = ctx.dating?.anchorUs ?? 0;
  }

  line(text: string, lineNo: number, _out: ParsedEvent[], issues: ParseIssue[]): void {
    const line = text.trim();
    if (line === "") return;
    if (line.startsWith("#")) return this.comment(line);
    const sample = parseSampleLine(line);
    if (typeof sample === "string") {
      issues.push({ line: lineNo, message: `${this.ctx.sourcePath}: ${sample}` });
      return;
    }
    let series = this.series.get(sample.seriesKey);
    if (series === undefined) {
      series = makeSeries(sample.name, sample.labels, this.typeOf(sample.name), this.ctx);
      this.series.set(sample.seriesKey, series);
    }
    this.events.push(sampleOf(series, sample, this.anchorUs, lineNo, text));
  }

  end(out: ParsedEvent[]): void {
    out.push(...inTimeOrder(this.events));
  }

  private comment(line: string): void {
    const m = /^#\s+TYPE\s+(\S+)\s+(\S+)/.exec(line);
    if (m) this.types.set(m[1]!, TYPES[m[2]!.toLowerCase()] ?? "untyped");
  }

  /** The `# TYPE` of the sample's family (`foo_bucket` is of `foo`), else the name's convention. */
  private typeOf(name: string): MetricType {
    for (const family of familyCandidates(name)) {
      const t = this.types.get(family);
      if (t !== undefined) return t;
    }
    return typeFromName(name);
  }
}

function sampleOf(series: Series, s: SampleLine, anchorUs: number, line: number, text: string): ParsedEvent {
  return sampleEvent(series, parseSampleValue(s.valueText)!, s.tsUs, anchorUs, line, text);
}

/** The first lines of a file are all exposition lines, and one of them is a sample or a `# TYPE`/`# HELP`. */
export function looksLikeExposition(head: string): boolean {
  const lines = head.split("\n", 40).map((l) => l.trim()).filter((l) => l !== "");
  if (head.length >= 64 * 1024 && lines.length > 1) lines.pop();
  if (lines.length === 0) return false;
  let typed = false;
  for (const l of lines) {
    if (l.startsWith("#")) {
      if (/^#\s+(HELP|TYPE|UNIT)\s+[a-zA-Z_:]/.test(l)) typed = true;
      else if (l !== "# EOF") return false;
      continue;
    }
    if (typeof parseSampleLine(l) === "string") return false;
    typed = true;
  }
  return typed;
}

export const prometheusText: InputFormat = {
  name: "prometheus-text",
  detect: looksLikeExposition,
  createParser: (ctx) => new ExpositionParser(ctx),
};
