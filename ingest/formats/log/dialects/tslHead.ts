// TensorFlow's and XLA's own log sink (tsl/platform/default/logging.cc, `LogMessage::GenerateLogMessage` and the
// absl log sink after it; tensorflow/core/platform/default/logging.cc before TSL split out):
// `%Y-%m-%d %H:%M:%S.%06d: %c[ %7u] %s:%d] %s` — local time to the microsecond, a colon, the severity letter (`IWEF`),
// the thread id where TF_CPP_LOG_THREAD_ID asks for it, the file and line, then the message. JAX, TensorFlow and a
// library that loads XLA (the TPU backends of vLLM and SGLang) print it on stderr before absl's own prefix is set up.

import { civilToUs, isValidCivil } from "../../sglang/prefix.js";

export interface TslHead {
  tsUs: number;
  /** The severity letter: `I`, `W`, `E` or `F`. */
  level: string;
  /** The file and line (`external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261`). */
  source: string;
  msgStart: number;
}

const TSL = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}): ([IWEF])(?: +\d+)? (\S+:\d+)\] /;

/** A line of TSL's sink; its time is read in `tzOffsetMinutes`. */
export function readTslHead(line: string, tzOffsetMinutes: number): TslHead | null {
  // `: ` after the microseconds, then the severity letter: a cheap refusal of every other dated line.
  if (line.charCodeAt(26) !== 58 || line.charCodeAt(27) !== 32) return null;
  const m = TSL.exec(line);
  if (m === null) return null;
  const civil = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
  if (!isValidCivil(civil)) return null;
  return { tsUs: civilToUs(civil, Number(m[7]), tzOffsetMinutes), level: m[8]!, source: m[9]!, msgStart: m[0].length };
}
