// TensorRT-LLM's two loggers. Its C++ logger (`cpp/include/tensorrt_llm/common/logger.h`, `Logger::getPrefix`):
// `[TensorRT-LLM][ERROR] message`, or `[TensorRT-LLM][INFO][3] message` from the overload that takes a rank; no time.
// Its Python logger (`tensorrt_llm/logger.py`, `Logger.log`) joins `[TRT-LLM]`, `[RANK n]` where a rank is set, the
// severity (`[F]` internal error, `[E]`, `[W]`, `[I]`, `[V]`, `[D]`) and the message with spaces; the newest puts the
// severity first and the calling module in brackets before the rank (`[TRT-LLM] [E] [executor] [RANK 0] …`). Its
// handler's format is `[%(asctime)s] %(message)s` with the date `%m/%d/%Y-%H:%M:%S`, in local time.

import { civilToUs, isValidCivil } from "../../sglang/prefix.js";

export interface TrtllmHead {
  level: string;
  /** The MPI rank the C++ overload (`[TensorRT-LLM][INFO][3] `) or the Python logger (`[RANK 3]`) prints. */
  rank?: number;
  /** The Python logger's time, in µs (-1: none printed). */
  tsUs: number;
  msgStart: number;
}

const TRTLLM = /^\[TensorRT-LLM\]\[(TRACE|DEBUG|INFO|WARNING|ERROR)\](?:\[(\d+)\])? /;

/** A line of TensorRT-LLM's C++ logger. */
export function readTrtllmHead(line: string): TrtllmHead | null {
  const m = TRTLLM.exec(line);
  if (m === null) return null;
  return { level: m[1]!, ...(m[2] !== undefined && { rank: Number(m[2]) }), tsUs: -1, msgStart: m[0].length };
}


const TRTLLM_PYTHON =
  /^(?:\[(\d\d)\/(\d\d)\/(\d{4})-(\d\d):(\d\d):(\d\d)\] )?\[TRT-LLM\] (?:\[RANK (\d+)\] )?\[([FEWIVD])\] (?:\[[\w.-]+\] )?(?:\[RANK (\d+)\] )?/;

/** A line of TensorRT-LLM's Python logger, with its handler's time or without it; the time is read in `tzOffsetMinutes`. */
export function readTrtllmPythonHead(line: string, tzOffsetMinutes: number): TrtllmHead | null {
  // `[06/` of the handler's date, or the logger's own `[TRT-LLM] `: a cheap refusal of every other bracketed line.
  if (line.charCodeAt(3) !== 47 /* / */ && !line.startsWith("[TRT-LLM] ")) return null;
  const m = TRTLLM_PYTHON.exec(line);
  if (m === null) return null;
  let tsUs = -1;
  if (m[1] !== undefined) {
    const civil = { year: +m[3]!, month: +m[1]!, day: +m[2]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
    if (!isValidCivil(civil)) return null;
    tsUs = civilToUs(civil, 0, tzOffsetMinutes);
  }
  const rank = m[7] ?? m[9];
  // The level as its letter, read by the dialect's one table of level words (../unread.ts levelOfWord); verbose is debug.
  return { level: m[8] === "V" ? "D" : m[8]!, ...(rank !== undefined && { rank: Number(rank) }), tsUs, msgStart: m[0].length };
}
