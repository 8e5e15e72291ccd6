// A level word after a prefix no reader knows (issue "Every failure in an
// operator's logs becomes a finding": a severity for every line, whatever its
// dialect). Loggers print their level after a few fields of their own:
//   - `12:00:00.123 [main] ERROR c.e.Class - …` (logback's default pattern,
//     `%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg`);
//   - `2025/01/01 12:00:00 [error] 123#0: *1 connect() failed …` (nginx's error log);
//   - `[1] 2025/01/01 12:00:00.000000 [ERR] …` (the NATS server Dynamo runs beside
//     its workers: the pid, Go's `log` time with microseconds, then `[INF]`, `[WRN]`,
//     `[ERR]`, `[FTL]`, `[DBG]` or `[TRC]`; nats-server logger/log.go setPlainLabelFormats);
//   - `[proxy] ERROR: …`, `rank0: ERROR …`, a prefix a launcher or a script added;
//   - logfmt's `key=value` pairs with the level as one of them: `ts=… caller=main.go:1 level=error msg="…"`
//     (go-kit log, Prometheus before 3.0), `time=… level=ERROR source=… msg="…"` (Go log/slog TextHandler),
//     `time="…" level=error msg="…"` (logrus's TextFormatter without a terminal).
// Each field before the level is bracketed, or a token with a digit or
// punctuation in it (a time, a date, a pid, a host, a place): at most six, in
// the first 120 characters. Prose has bare words (`Request failed with ERROR
// code 5`), which no field is, so its words are never read as a level. The
// fields are not read further: a time in a form no reader knows dates nothing.

import { levelOfWord, type LineLevel } from "../unread.js";

export interface LevelField {
  level: LineLevel;
  /** Where the message starts, after the level and its delimiters. */
  msgStart: number;
}

const MAX_FIELDS = 6;
const MAX_PREFIX = 120;

/** logfmt's level pair: `level=error`, `lvl=warn`, `severity="ERROR"`, then a space or the end. */
const LEVEL_PAIR = /^(?:level|lvl|severity)=("?)([A-Za-z]{3,8})\1(?:[ \t]+|$)/;

/** A field of a prefix: a logfmt pair (its value quoted or not), bracketed, a separator, or a token with a digit or punctuation, then its spaces. */
const FIELD = /^(?:[\w.]+=(?:"[^"]*"|[^\s"]*)|\[[^\]]{0,40}\]|\([^)]{0,40}\)|<[^>]{0,40}>|[|-]|[^\s[\](){}<>|"']*[\d:./=#@,_][^\s[\](){}<>|"']*)[ \t]+|^(?:\[[^\]]{0,40}\]|\([^)]{0,40}\)|<[^>]{0,40}>)/;

/** A level word: upper-case bare (`ERROR`), any case bracketed (`[error]`, `<Warn>`); then a delimiter or the end. */
const LEVEL = /^(?:([A-Z]{3,8})|[[(<]([A-Za-z]{3,8})[\])>])(?=[\s:|,\]-]|$)[\s:|,\]-]*/;

/**
 * The level a line states after a prefix of fields (see the file's head), or null. `from`: where the fields start,
 * after a time another reader read (`2025-09-22 20:20:40.102 [main] ERROR …`); the time is then the first field.
 */
export function readLevelField(line: string, from = 0): LevelField | null {
  let at = from;
  while (from > 0 && (line.charCodeAt(at) === 32 || line.charCodeAt(at) === 9)) at++;
  for (let fields = from > 0 ? 1 : 0; fields <= MAX_FIELDS && at - from < MAX_PREFIX; fields++) {
    const rest = line.substring(at, at + MAX_PREFIX);
    const pair = LEVEL_PAIR.exec(rest);
    if (pair !== null) {
      const named = levelOfWord(pair[2]);
      if (named !== undefined) return { level: named, msgStart: at + pair[0].length };
    }
    const level = fields > 0 ? LEVEL.exec(rest) : null;
    if (level !== null) {
      const word = level[1] ?? level[2]!;
      const named = levelOfWord(word);
      if (named !== undefined) return { level: named, msgStart: at + level[0].length };
    }
    const field = FIELD.exec(rest);
    if (field === null || field[0].length === 0) return null;
    at += field[0].length;
  }
  return null;
}
