// The Prometheus HTTP API's JSON answer as `curl` saves it
// (`curl '…/api/v1/query_range?query=…&start=…&end=…&step=15' > query_range.json`),
// and what `kvrewind ingest --prometheus` pulls (ingest/prometheus/pull.ts).
//
// Grammar (prometheus.io/docs/prometheus/latest/querying/api, "Format overview"):
//   answer  = {"status": "success", "data": data, "warnings"?: [string]}
//           | {"status": "error", "errorType": string, "error": string}
//   data    = {"resultType": "matrix", "result": [{"metric": labels, "values": [pair, …]}, …]}   query_range
//           | {"resultType": "vector", "result": [{"metric": labels, "value": pair}, …]}         query
//           | {"resultType": "scalar", "result": pair}
//   pair    = [unix seconds (float), "value as text"]      labels = {"__name__": name, label: value, …}
// A value is text because it may be "NaN", "+Inf" or "-Inf".
//
// The whole answer is read at the end of the file (curl writes it on one
// line). A sample's `line` is its index in the answer, 1-based, series by
// series in the answer's order: the one stable place a one-line document
// gives; its text says its series, value and time. An error answer is one
// issue naming the file and Prometheus's error; nothing else of the file is lost.

import { z } from "zod";
import type { ParsedEvent, ParseIssue } from "../../../domain/event.js";
import type { InputFormat, LineParser, ParseContext } from "../format.js";
import { makeSeries, parseSampleValue, sampleEvent, typeFromName, type Series } from "./series.js";

const MAX_ANSWER_CHARS = 256 * 1024 * 1024;

const Pair = z.tuple([z.number(), z.string()]);
const Labels = z.record(z.string(), z.string());
const Matrix = z.object({ resultType: z.literal("matrix"), result: z.array(z.object({ metric: Labels, values: z.array(Pair) })) });
const Vector = z.object({ resultType: z.literal("vector"), result: z.array(z.object({ metric: Labels, value: Pair })) });
const Scalar = z.object({ resultType: z.literal("scalar"), result: Pair });
const Success = z.object({ status: z.literal("success"), data: z.discriminatedUnion("resultType", [Matrix, Vector, Scalar]) });
const Failure = z.object({ status: z.literal("error"), errorType: z.string().optional(), error: z.string().optional() });
export const PromAnswer = z.union([Success, Failure]);
export type PromSuccess = z.infer<typeof Success>;

/** One series and its [seconds, value] pairs, however the answer held them. */
export interface SeriesValues {
  metric: Record<string, string>;
  values: [number, string][];
}

/** The series of a successful answer: a scalar is one series with no name or labels. */
export function seriesOfAnswer(data: PromSuccess["data"]): SeriesValues[] {
  switch (data.resultType) {
    case "matrix":
      return data.result;
    case "vector":
      return data.result.map((r) => ({ metric: r.metric, values: [r.value] }));
    case "scalar":
      return [{ metric: {}, values: [data.result] }];
  }
}

/**
 * The samples of a parsed answer as events, in time order, built a batch at
 * a time as they are taken (a day of 100 series is half a million samples):
 * a merge of the series, each in time order as Prometheus gives it, ties in
 * the answer's order. A sample's line is its index in the answer, 1-based.
 *
 * The merge takes one time at a time: the least next time over the series,
 * then every series whose next sample is at that time, in the answer's order.
 * A `query_range` answer's series share their steps, so a time is found once
 * for all the series that have a sample then.
 */
export class AnswerSamples {
  private readonly series: Series[];
  private readonly firstLine: number[] = [];
  private readonly next: number[];
  /** The series with a sample at the time being handed out, in the answer's order, and how many were handed out. */
  private atTime: number[] = [];
  private taken = 0;

  constructor(
    private readonly all: readonly SeriesValues[],
    private readonly ctx: ParseContext,
    private readonly issues: ParseIssue[],
  ) {
    let line = 1;
    this.series = all.map(({ metric, values }) => {
      this.firstLine.push(line);
      line += values.length;
      const { __name__: name = "scalar", ...labels } = metric;
      return makeSeries(name, labels, typeFromName(name), ctx);
    });
    this.next = all.map(() => 0);
  }

  /** Up to `max` more events into `out`; false once every sample was handed out. */
  drain(out: ParsedEvent[], max: number): boolean {
    for (let n = 0; n < max; n++) {
      if (this.taken === this.atTime.length && !this.nextTime()) return false;
      const i = this.atTime[this.taken++]!;
      const at = this.next[i]!++;
      const [seconds, valueText] = this.all[i]!.values[at]!;
      const series = this.series[i]!;
      const line = this.firstLine[i]! + at;
      const tsUs = Math.round(seconds * 1e6);
      const value = parseSampleValue(valueText);
      // The answer is one line of JSON: a sample's text is rendered from its fields where it is shown (store/eventText.ts sampleOwnText).
      if (value === undefined) this.issues.push({ line, message: `${this.ctx.sourcePath}: sample ${line} of ${series.text} has value ${JSON.stringify(valueText)}, not a number` });
      else out.push(sampleEvent(series, value, tsUs, 0, line, ""));
    }
    return this.taken < this.atTime.length || this.nextTime();
  }

  /** The series whose next sample is at the least next time; false when none is left. */
  private nextTime(): boolean {
    let least = Infinity;
    for (let i = 0; i < this.all.length; i++) {
      const values = this.all[i]!.values;
      if (this.next[i]! < values.length && values[this.next[i]!]![0] < least) least = values[this.next[i]!]![0];
    }
    this.atTime = [];
    this.taken = 0;
    if (least === Infinity) return false;
    for (let i = 0; i < this.all.length; i++) {
      const values = this.all[i]!.values;
      if (this.next[i]! < values.length && values[this.next[i]!]![0] === least) this.atTime.push(i);
    }
    return true;
  }
}

/** Why an answer could not be read, or its series. */
export function readAnswer(doc: string): { series: SeriesValues[] } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(doc);
  } catch (e) {
    return { error: `not JSON (${(e as Error).message}); the file may be cut` };
  }
  const answer = PromAnswer.safeParse(json);
  if (!answer.success) return { error: `not a Prometheus API answer: ${answer.error.issues[0]?.path.join(".") || "(top)"}: ${answer.error.issues[0]?.message}` };
  if (answer.data.status === "error") return { error: `Prometheus answered an error: ${answer.data.errorType ?? "error"}: ${answer.data.error ?? "(no message)"}` };
  return { series: seriesOfAnswer(answer.data.data) };
}

class AnswerParser implements LineParser {
  private readonly lines: string[] = [];
  private chars = 0;
  private tooLarge = false;
  private samples: AnswerSamples | undefined;

  constructor(private readonly ctx: ParseContext) {}

  line(text: string, lineNo: number, _out: ParsedEvent[], issues: ParseIssue[]): void {
    if (this.tooLarge) return;
    this.chars += text.length + 1;
    if (this.chars > MAX_ANSWER_CHARS) {
      this.tooLarge = true;
      issues.push({ line: lineNo, message: `${this.ctx.sourcePath}: Prometheus API answer larger than 256 MiB; not read (query a shorter window or a coarser step)` });
      return;
    }
    this.lines.push(text);
  }

  end(_out: ParsedEvent[], issues: ParseIssue[]): void {
    if (this.tooLarge || this.lines.length === 0) return;
    const read = readAnswer(this.lines.join("\n"));
    this.lines.length = 0;
    if ("error" in read) {
      issues.push({ line: 1, message: `${this.ctx.sourcePath}: ${read.error}` });
      return;
    }
    this.samples = new AnswerSamples(read.series, this.ctx, issues);
  }

  drain(out: ParsedEvent[], max: number): boolean {
    return this.samples?.drain(out, max) ?? false;
  }
}

export const prometheusApiJson: InputFormat = {
  name: "prometheus-api-json",
  detect(head) {
    const t = head.trimStart();
    return t.startsWith("{") && /^\{\s*"status"\s*:\s*"(success|error)"/.test(t) && /"(resultType|errorType)"\s*:/.test(t);
  },
  createParser: (ctx) => new AnswerParser(ctx),
};
