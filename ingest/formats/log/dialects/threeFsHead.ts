// 3FS's log prefix (deepseek-ai/3FS src/common/logging/LogFormatter.cc
// LogFormatter::formatMessage): `[{%FT%H:%M:%S}.{ns:09d}{%Ez} {thread}:{tid:5d}
// {file}:{line} {LEVEL}] ` — local time with its offset, the thread's name
// (empty when folly has none), its id padded to five, the file's base name and
// line, and the level folly's is mapped to (DEBUG, INFO, WARNING, ERROR,
// CRITICAL, FATAL). A message with newlines is printed one prefixed line per part.

import { civilToUs, isValidCivil } from "../../sglang/prefix.js";
import { zoneMinutes } from "./isoHead.js";

export interface ThreeFsHead {
  tsUs: number;
  level: string;
  /** `IBConnect.cc:727`. */
  source: string;
  msgStart: number;
}

const THREE_FS = /^\[(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{9})([+-]\d\d:\d\d) [^\]]*?: *\d+ ([\w.-]+:\d+) (DEBUG|INFO|WARNING|ERROR|CRITICAL|FATAL)\] /;

/** `[2025-03-17T06:24:08.645087944+00:00 CliConn1: 2023 IBConnect.cc:727 DEBUG] …`, or null. */
export function readThreeFsHead(line: string): ThreeFsHead | null {
  if (line.charCodeAt(0) !== 91 /* [ */ || line.charCodeAt(11) !== 84 /* T */) return null;
  const m = THREE_FS.exec(line);
  if (m === null) return null;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  return { tsUs: civilToUs(civil, Number(m[7]!.substring(0, 6)), zoneMinutes(m[8]!)), level: m[10]!, source: m[9]!, msgStart: m[0].length };
}
