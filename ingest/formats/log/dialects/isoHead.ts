// A line that opens with an ISO-8601 date and time (DESIGN.md "Inputs"): the loggers beside a server that print
// their time first (Python's `%(asctime)s`, loguru, zap's console encoder, Rust's tracing and env_logger, spdlog,
// LMCache, Mooncake's Python client, sglang_router), and what each prints between the time and the message: a level,
// a logger's name, a place. Local times are read in the reader's zone.

import { civilToUs, isValidCivil } from "../../sglang/prefix.js";
import { levelOfWord } from "../unread.js";
import { readLevelField } from "./levelField.js";

export interface IsoHead {
  tsUs: number;
  msgStart: number;
  level?: string;
  /** A Rust tracing target (`sglang_router_rs::routers::http::pd_router`), or the `file.py:N` Ray's Python loggers print. */
  target?: string;
}

const ISO_TIME = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(?: ?(Z|[+-]\d\d:?\d\d))?(?=[\s|\]]|$)/;
// What follows the time before the message: ` - name - LEVEL - `, ` | LEVEL | where - `, ` LEVEL name: `,
// `] name LEVEL: ` (LMCache), ` LEVEL crate::module: ` (Rust tracing: the target, then one space),
// `\tLEVEL file.py:N -- ` (Ray's Python loggers, python/ray/_private/ray_constants.py LOGGER_FORMAT
// `%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s`: the driver's own lines, and in
// releases before the raylet's lines were forwarded behind `(raylet)`, the cluster's errors it printed with
// logger.warning, python/ray/_private/worker.py listen_error_messages), `] `.
const AFTER_TIME =
  /^\]?\s*(?:(?:-\s+)?(?:[\w.\-[\]]+\s+-\s+|[A-Za-z][\w.]*\s+(?=(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE):))?\[?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE)\]?\s*(?:(?<target>[A-Za-z_]\w*(?:::\w+)+): |(?<place>[\w.-]+\.py:\d+) -- |(?:\|\s*[\w.:<>-]+\s*)?(?:[-|:]\s+)?))?/;

/**
 * spdlog's full pattern, `[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v`: after the bracketed time (read as SGLang's
 * prefix, which it matches), the logger's name, then the level in spdlog's lower-case names (gabime/spdlog
 * include/spdlog/details/pattern_formatter-inl.h full_formatter; SPDLOG_LEVEL_NAMES in include/spdlog/common.h),
 * and ` [file:line]` after the level when the call passed its source location. The name's field is left out
 * when the name is empty, as the default logger's is (full_formatter writes it only `if (msg.logger_name.size() >
 * 0)`): `[2025-09-22 20:20:40.102] [error] …`. With a name:
 * `[2025-05-15 15:48:41.233] [infini] [error] [libinfinistore.cpp:910] …` (InfiniStore's client, vllm-project/aibrix#1093).
 */
const SPDLOG_FIELDS = /^(?:\[[^\]]+\] )?\[(trace|debug|info|warning|error|critical)\] (?:\[[\w.-]+:\d+\] )?/;

/** spdlog's name and level fields at `from` (where the text after the time starts), or null. */
export function readSpdlogFields(line: string, from: number): { level: string; msgStart: number } | null {
  if (line.charCodeAt(from) !== 91 /* [ */) return null;
  const m = SPDLOG_FIELDS.exec(line.substring(from, from + 200));
  return m === null ? null : { level: m[1]!, msgStart: from + m[0].length };
}

/**
 * The name sglang_router's two loggers print before their time, in the same
 * `{name} {asctime} - {level} - {message}` shape: `[Router (Python)] ` (sgl-router
 * py_src/sglang_router/launch_server.py and launch_router.py setup_logger,
 * `%(asctime)s - %(levelname)s - %(message)s`, ` - %(filename)s:%(lineno)d` after it
 * in later releases) and `[Router (Rust)] ` (src/server.rs startup, env_logger's
 * `"[Router (Rust)] {} - {} - {}"`).
 */
const ROUTER_LOGGER = /^\[Router \((?:Python|Rust)\)\] /;

/**
 * A line that opens with an ISO-8601 date and time, bare or in brackets
 * (`[2026-08-29 12:27:22,190] LMCache ERROR: …`), or after sglang_router's
 * logger name; local times are read in `tzOffsetMinutes`.
 */
export function readIsoHead(line: string, tzOffsetMinutes: number): IsoHead | null {
  if (line.charCodeAt(1) === 82 /* R */) return readRouterHead(line, tzOffsetMinutes);
  const bracket = line.charCodeAt(0) === 91 /* [ */ ? 1 : 0;
  const c0 = line.charCodeAt(bracket);
  if (c0 < 48 || c0 > 57 || line.charCodeAt(bracket + 4) !== 45) return null;
  const m = ISO_TIME.exec(bracket === 1 ? line.substring(1) : line);
  if (!m) return null;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  const fractionUs = m[7] === undefined ? 0 : Number(m[7].padEnd(6, "0").substring(0, 6));
  const zone = m[8];
  const offset = zone === undefined ? tzOffsetMinutes : zone === "Z" ? 0 : zoneMinutes(zone);
  const timeEnd = bracket + m[0].length;
  const tsUs = civilToUs(civil, fractionUs, offset);
  if (bracket === 1 && line.charCodeAt(timeEnd) !== 93 /* ] */) return readEnvLoggerFields(line, timeEnd, tsUs);
  const rest = AFTER_TIME.exec(line.substring(timeEnd, timeEnd + 200));
  const head: IsoHead = { tsUs, msgStart: timeEnd + (rest ? rest[0].length : 0) };
  if (rest?.[1] !== undefined) head.level = rest[1];
  else readLevelAfterTime(line, timeEnd, head);
  const target = rest?.groups?.target ?? rest?.groups?.place;
  if (target !== undefined) head.target = target;
  return head;
}

/**
 * A level word right after the time, in any case, bare or bracketed, then the end of its field: zap's console
 * encoder, `2025-09-22T20:20:40.102Z\terror\trouter/server.go:120\t…` (uber-go/zap zapcore/console_encoder.go joins
 * the fields with a tab; zapcore LowercaseLevelEncoder is the production config's), loguru's default format,
 * `2025-09-22 20:20:40.123 | ERROR    | app:main:12 - …` (Delgan/loguru loguru/_defaults.py LOGURU_FORMAT), and
 * other C++ loggers' `<time> error <pid> …`. Only where {@link AFTER_TIME} read no level.
 */
const LEVEL_AFTER_TIME = /^\]?(?:[ \t]+\|)?[ \t]+(?:\[([A-Za-z]{3,8})\]|([A-Za-z]{3,8}))(?:[ \t]*\|[ \t]*|[ \t]+|:[ \t]+|$)/;

function readLevelAfterTime(line: string, timeEnd: number, head: IsoHead): void {
  const m = LEVEL_AFTER_TIME.exec(line.substring(timeEnd, timeEnd + 40));
  const word = m === null ? undefined : (m[1] ?? m[2])!;
  if (word !== undefined && levelOfWord(word) !== undefined) {
    head.level = word;
    head.msgStart = timeEnd + m![0].length;
    return;
  }
  // A level after fields of the logger's own between the time and it (logback's `[main] ERROR`): ./levelField.ts.
  const field = line.charCodeAt(timeEnd) === 93 /* ] */ ? null : readLevelField(line, timeEnd);
  if (field === null) return;
  head.level = field.level;
  head.msgStart = field.msgStart;
}

/**
 * env_logger's default format, `[{time} {LEVEL:<5} {module}] {message}`: the time, the level and the module path in
 * one bracket (rust-cli/env_logger src/fmt/mod.rs DefaultFormat: write_header_value opens the bracket before the
 * first field and puts a space before each other, finish_header closes it). sgl-router printed its lines so before
 * it moved to tracing: `[2025-03-05T10:00:00Z ERROR sglang_router_rs::router] …`.
 */
const ENV_LOGGER_FIELDS = /^ ([A-Z]{4,5}) +([A-Za-z_][\w:.-]*)\] /;

function readEnvLoggerFields(line: string, timeEnd: number, tsUs: number): IsoHead | null {
  const m = ENV_LOGGER_FIELDS.exec(line.substring(timeEnd, timeEnd + 200));
  if (m === null || levelOfWord(m[1]) === undefined) return null;
  return { tsUs, msgStart: timeEnd + m[0].length, level: m[1], target: m[2] };
}

function readRouterHead(line: string, tzOffsetMinutes: number): IsoHead | null {
  const name = ROUTER_LOGGER.exec(line);
  if (name === null) return null;
  const head = readIsoHead(line.substring(name[0].length), tzOffsetMinutes);
  if (head !== null) head.msgStart += name[0].length;
  return head;
}

/** A `+08:00` / `-0330` offset in minutes east of UTC. */
export function zoneMinutes(zone: string): number {
  const sign = zone.charCodeAt(0) === 45 ? -1 : 1;
  const digits = zone.substring(1).replace(":", "");
  return sign * (Number(digits.substring(0, 2)) * 60 + Number(digits.substring(2, 4)));
}
