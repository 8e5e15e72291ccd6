// `kvrewind ingest --prometheus URL --from T --to T [--match SELECTOR]…`:
// the SGLang series of an incident window, read from a live Prometheus
// through its HTTP API (prometheus.io/docs/prometheus/latest/querying/api):
//   1. GET /api/v1/series?match[]=SELECTOR&start&end   the series in the window
//      (default selector: every `sglang:` series, `{__name__=~"sglang:.*"}`);
//   2. GET /api/v1/query_range?query=SERIES&start&end&step   each series, at one step
//      chosen from the window so that no series has more than MAX_POINTS points
//      (Prometheus refuses a query_range of more than 11,000 points a series);
//   3. the answers, joined into one matrix answer, are written to a file the
//      ingest reads like a `curl`-saved query_range (ingest/formats/metrics/promApi.ts):
//      the pull is one source, its path saying URL, window, selectors and step.
// Every request has a timeout, and the whole pull a deadline. A Prometheus
// that is down, answers an HTTP error or `"status":"error"`, or is too slow
// stops the pull with a PullError naming the URL: nothing is ingested.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { InputError } from "../inputs/pathIdentity.js";
import { PromAnswer, seriesOfAnswer, type SeriesValues } from "../formats/metrics/promApi.js";
import { escapeLabelValue } from "../formats/metrics/series.js";
import { isoFromUs } from "../../domain/timeFormat.js";

/** Every series SGLang writes: collector.py names them all `sglang:…`. */
export const DEFAULT_SELECTOR = '{__name__=~"sglang:.*"}';
/** Points a series at most: under Prometheus's limit of 11,000 (web/api/v1 queryRange), with room to spare. */
export const MAX_POINTS = 10_000;
/** The finest step: the scrape interval SGLang deployments commonly use; a finer step only repeats samples. */
export const MIN_STEP_S = 15;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
export const DEFAULT_DEADLINE_MS = 60_000;
/** Range queries in flight at once. */
const PARALLEL = 4;

export interface PullOptions {
  url: string;
  fromUs: number;
  toUs: number;
  /** Series selectors; empty: DEFAULT_SELECTOR. */
  match: readonly string[];
  requestTimeoutMs?: number;
  deadlineMs?: number;
}

export interface PulledSource {
  /** The source's path in the incident: URL, window, selectors and step. */
  displayPath: string;
  /** The joined answer, as a file. */
  plainPath: string;
  series: number;
  samples: number;
  stepS: number;
}

/** The pull could not be done; nothing was ingested. */
export class PullError extends InputError {}

/** A time given to --from/--to: RFC 3339 (with its zone) or unix seconds. */
export function parsePullTime(text: string): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1e6);
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i.test(text)) return undefined;
  const ms = Date.parse(text.replace(" ", "T"));
  if (Number.isNaN(ms)) return undefined;
  const frac = /\.(\d+)/.exec(text)?.[1] ?? "";
  return Math.floor(ms / 1000) * 1e6 + Number(frac.padEnd(6, "0").slice(0, 6));
}

/** The step, in whole seconds, that keeps each series of the window within MAX_POINTS points. */
export function stepFor(fromUs: number, toUs: number): number {
  return Math.max(MIN_STEP_S, Math.ceil((toUs - fromUs) / 1e6 / (MAX_POINTS - 1)));
}

const SeriesAnswer = z.union([
  z.object({ status: z.literal("success"), data: z.array(z.record(z.string(), z.string())) }),
  z.object({ status: z.literal("error"), errorType: z.string().optional(), error: z.string().optional() }),
]);

/** A series as a selector of exactly it: `name{l="v",…}`. */
function selectorOf(labels: Record<string, string>): string {
  const { __name__: name = "", ...rest } = labels;
  const parts = Object.entries(rest).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return `${name}{${parts.join(",")}}`;
}

class Client {
  private readonly base: string;
  private readonly deadline: number;
  private readonly deadlineS: number;

  constructor(
    private readonly url: string,
    private readonly requestTimeoutMs: number,
    deadlineMs: number,
  ) {
    this.base = url.replace(/\/+$/, "");
    this.deadline = Date.now() + deadlineMs;
    this.deadlineS = deadlineMs / 1000;
  }

  /** GET `path` with `params`; the parsed JSON body, or a PullError saying what went wrong. */
  async get(path: string, params: [string, string][]): Promise<unknown> {
    const left = this.deadline - Date.now();
    if (left <= 0) throw new PullError(`Prometheus at ${this.url}: the pull's deadline of ${this.deadlineS} s passed (--prometheus-timeout); nothing was ingested`);
    const wait = Math.min(this.requestTimeoutMs, left);
    const query = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
    let res: Response;
    let body: string;
    try {
      res = await fetch(`${this.base}${path}?${query}`, { signal: AbortSignal.timeout(wait) });
      body = await res.text();
    } catch (e) {
      throw new PullError(`Prometheus at ${this.url} ${this.why(e as Error, wait)}; nothing was ingested`);
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      if (!res.ok) throw new PullError(`Prometheus at ${this.url} answered HTTP ${res.status} to ${path}: ${excerpt(body)}; nothing was ingested`);
      throw new PullError(`Prometheus at ${this.url} answered ${path} with no JSON (${excerpt(body)}); is it a Prometheus? Nothing was ingested`);
    }
    const failure = z.object({ status: z.literal("error"), errorType: z.string().optional(), error: z.string().optional() }).safeParse(json);
    if (failure.success) throw new PullError(`Prometheus at ${this.url} refused ${path} (HTTP ${res.status}): ${failure.data.errorType ?? "error"}: ${failure.data.error ?? "(no message)"}; nothing was ingested`);
    if (!res.ok) throw new PullError(`Prometheus at ${this.url} answered HTTP ${res.status} to ${path}: ${excerpt(body)}; nothing was ingested`);
    return json;
  }

  private why(e: Error, waitMs: number): string {
    if (e.name === "TimeoutError" || e.name === "AbortError") return `did not answer within ${(waitMs / 1000).toFixed(1)} s`;
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    return `could not be reached (${cause?.code ?? cause?.message ?? e.message})`;
  }
}

function excerpt(body: string): string {
  const one = body.replace(/\s+/g, " ").trim();
  return one.length > 200 ? `${one.slice(0, 200)}…` : one || "(empty body)";
}

function answerShape(path: string, url: string, parsed: z.ZodSafeParseResult<unknown>): never {
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  throw new PullError(`Prometheus at ${url} answered ${path} in an unexpected shape (${issue?.path.join(".") ?? ""}: ${issue?.message ?? ""}); nothing was ingested`);
}

/** Pulls the window's series and writes them to `dir`; throws PullError when Prometheus cannot give them. */
export async function pullPrometheus(opts: PullOptions, dir: string): Promise<PulledSource> {
  if (!/^https?:\/\/[^/]/i.test(opts.url)) throw new InputError(`--prometheus ${opts.url}: give the server's URL, http://host:9090`);
  if (opts.toUs <= opts.fromUs) throw new InputError(`--to (${isoFromUs(opts.toUs)}) is not after --from (${isoFromUs(opts.fromUs)})`);
  const client = new Client(opts.url, opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, opts.deadlineMs ?? DEFAULT_DEADLINE_MS);
  const selectors = opts.match.length > 0 ? opts.match : [DEFAULT_SELECTOR];
  const start = String(opts.fromUs / 1e6);
  const end = String(opts.toUs / 1e6);
  const found = SeriesAnswer.safeParse(await client.get("/api/v1/series", [...selectors.map((s): [string, string] => ["match[]", s]), ["start", start], ["end", end]]));
  if (!found.success || found.data.status !== "success") answerShape("/api/v1/series", opts.url, found);
  const series = found.data.data.map(selectorOf).sort();
  const window = `${isoFromUs(opts.fromUs)}..${isoFromUs(opts.toUs)}`;
  if (series.length === 0) throw new PullError(`Prometheus at ${opts.url} has no series matching ${selectors.join(" ")} in ${window}; nothing was ingested`);
  const stepS = stepFor(opts.fromUs, opts.toUs);
  const results: SeriesValues[][] = new Array(series.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < series.length; i = next++) {
      const path = "/api/v1/query_range";
      const answer = PromAnswer.safeParse(await client.get(path, [["query", series[i]!], ["start", start], ["end", end], ["step", String(stepS)]]));
      if (!answer.success || answer.data.status !== "success") answerShape(path, opts.url, answer);
      results[i] = seriesOfAnswer(answer.data.data);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, series.length) }, worker));
  const result = results.flat();
  const plainPath = join(dir, "prometheus-pull.json");
  writeFileSync(plainPath, `${JSON.stringify({ status: "success", data: { resultType: "matrix", result } })}\n`);
  return {
    displayPath: `prometheus ${opts.url} ${window} step ${stepS}s match ${selectors.join(" ")}`,
    plainPath,
    series: result.length,
    samples: result.reduce((n, r) => n + r.values.length, 0),
    stepS,
  };
}
