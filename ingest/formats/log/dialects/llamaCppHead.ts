// llama.cpp's common log (ggml-org/llama.cpp common/log.cpp, common_log_entry::print), which llama-server and the
// programs built on it (llama-box, which GPUStack runs) print through with timestamps and prefixes on:
//   `%d.%02d.%03d.%03d ` — the time since the log started as minutes (unpadded), seconds, milliseconds and
//                          microseconds (`// [M.s.ms.us]`), then
//   `I ` / `W ` / `E ` / `D ` — GGML_LOG_LEVEL_INFO, _WARN, _ERROR, _DEBUG,
// then the message as the caller formatted it (`srv  log_server_response: …`, `llama_decode: failed to decode, ret =
// 1`). e.g. `1148.24.894.085 E llama_decode: failed to decode, ret = 1`. A continuation (GGML_LOG_LEVEL_CONT) or a
// line without a level prints no prefix; the colours (COMMON_LOG_COL_*) are escape codes a paste loses. The time is
// relative to the process's start, so the line states no time of its own.

import { levelOfWord, type LineLevel } from "../unread.js";

const HEAD = /^\d{1,7}\.\d{2}\.\d{3}\.\d{3} ([IWED]) /;

/** The level and where the message starts in a line of llama.cpp's common log, or null. */
export function readLlamaCppHead(line: string): { level: LineLevel; msgStart: number } | null {
  const c0 = line.charCodeAt(0);
  if (c0 < 48 || c0 > 57) return null;
  const m = HEAD.exec(line);
  return m === null ? null : { level: levelOfWord(m[1])!, msgStart: m[0].length };
}
