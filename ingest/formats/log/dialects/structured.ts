// Structured log lines: one JSON object a logger wrote per record, its level,
// time and message as fields. Loggers of the serving stack that print them:
//   - Dynamo with DYN_LOGGING_JSONL, Rust and Python alike, and the SGLang or
//     vLLM worker it configures: {"time":"2025-09-02T15:53:31.943377Z","level":"INFO",
//     "target":"log","message":"…","log.file":"…","log.line":191,"log.target":"main.init"}
//     (ai-dynamo/dynamo/docs/observability/logging.md, "Example JSONL Format");
//   - Go's zap in its production configuration (llm-d's inference scheduler, KServe,
//     etcd): {"level":"error","ts":1700000000.123,"logger":"…","caller":"…","msg":"…"}
//     (uber-go/zap config.go NewProductionEncoderConfig: epoch seconds, lower-case levels);
//   - Go's log/slog JSONHandler and logrus's JSONFormatter: "time", "level", "msg";
//   - Rust's tracing-subscriber JSON: "timestamp", "level", "target", "fields":{"message":…};
//   - pino and bunyan (Node): "level" as a number (10 trace … 60 fatal), "time", "msg", "hostname";
//   - Google Cloud's structured logging: "severity", "message", "time".
// Only an object with both a level and a message is a log record: a JSON document
// printed by a program (a request body, a config) is left to the other readers.

import { levelOfWord, type LineLevel } from "../unread.js";
import { readIsoHead } from "./isoHead.js";

export interface StructuredEntry {
  /** The record's message; a traceback or stack logged with it may follow on further lines. */
  message: string;
  level: LineLevel;
  /** The record's time in µs (UTC), -1 when it states none that can be read. */
  tsUs: number;
  /** The logger, target or caller that wrote it. */
  source?: string;
  host?: string;
}

const MESSAGE_KEYS = ["message", "msg"] as const;
/** The fields a structured record states its level in: a JSON line with one is an application's record (../../wrappers/shipperJson.ts). */
export const LEVEL_KEYS = ["level", "severity", "levelname", "lvl"] as const;
const TIME_KEYS = ["time", "ts", "timestamp", "@timestamp", "asctime"] as const;
const SOURCE_KEYS = ["log.target", "target", "logger", "name", "caller"] as const;
const HOST_KEYS = ["hostname", "host"] as const;

/** pino's and bunyan's numeric levels (pinojs/pino/docs/api.md "logger.level", bunyan README "Levels"). */
function levelOfNumber(n: number): LineLevel | undefined {
  if (n >= 60) return "fatal";
  if (n >= 50) return "error";
  if (n >= 40) return "warning";
  if (n >= 30) return "info";
  return n >= 10 ? "debug" : undefined;
}

function levelOf(value: unknown): LineLevel | undefined {
  if (typeof value === "number") return levelOfNumber(value);
  if (typeof value !== "string") return undefined;
  // slog prints a level between the named ones as `ERROR+2`, `INFO-4` (log/slog level.go Level.String).
  return levelOfWord(value.replace(/[+-]\d+$/, ""));
}

/** Epoch seconds (zap, with a fraction) or milliseconds (pino, bunyan), in µs; -1 for a number in neither range. */
function epochUs(n: number): number {
  if (n > 1e9 && n < 1e11) return Math.round(n * 1e6);
  if (n > 1e12 && n < 1e14) return Math.round(n * 1e3);
  return -1;
}

function timeOf(value: unknown, tzOffsetMinutes: number): number {
  if (typeof value === "number") return epochUs(value);
  if (typeof value !== "string") return -1;
  return readIsoHead(value, tzOffsetMinutes)?.tsUs ?? -1;
}

function firstString(o: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "string" && v !== "") return v;
  }
  return undefined;
}

/** The record a structured log line holds, or null when the line is not one (see the file's head). */
export function readStructuredEntry(line: string, tzOffsetMinutes: number): StructuredEntry | null {
  const text = line.trimEnd();
  if (text.charCodeAt(0) !== 123 /* { */ || text.charCodeAt(text.length - 1) !== 125 /* } */) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const fields = typeof o.fields === "object" && o.fields !== null ? (o.fields as Record<string, unknown>) : undefined;
  const message = firstString(o, MESSAGE_KEYS) ?? (fields !== undefined ? firstString(fields, MESSAGE_KEYS) : undefined);
  const levelKey = LEVEL_KEYS.find((k) => o[k] !== undefined);
  const level = levelKey === undefined ? undefined : levelOf(o[levelKey]);
  if (message === undefined || level === undefined) return null;
  const timeKey = TIME_KEYS.find((k) => o[k] !== undefined);
  const entry: StructuredEntry = { message, level, tsUs: timeKey === undefined ? -1 : timeOf(o[timeKey], tzOffsetMinutes) };
  const source = firstString(o, SOURCE_KEYS);
  if (source !== undefined) entry.source = source;
  const host = firstString(o, HOST_KEYS);
  if (host !== undefined) entry.host = host;
  return entry;
}
