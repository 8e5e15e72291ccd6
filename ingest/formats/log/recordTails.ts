// The lines under a crash or an error that continue its record rather than open one: a faulthandler dump's threads
// and frames, the C++ backtraces torch, glog, UCX, TensorRT-LLM and gdb print, PyTorch's fixed CUDA-error lines, a
// Rust error's cause chain, a broken urllib3 message; and what a faulthandler dump's lines say in summary (its threads). The records themselves are ./records.ts; the lines that open a crash are ./crash.ts.

/** Lines of a faulthandler dump after its first: thread headers, frames, the module list. */
export function isDumpLine(line: string): boolean {
  return (
    line.startsWith("Thread 0x") ||
    line.startsWith("Current thread 0x") ||
    line.startsWith("Extension modules:") ||
    line.startsWith("<no Python frame>") ||
    line.startsWith("Stack (most recent call first):") ||
    line.startsWith("Python runtime state:")
  );
}

/** Lines of a C++ backtrace torch, glog, UCX, TensorRT-LLM or gdb prints under an error. */
export function isBacktraceLine(line: string): boolean {
  return (
    line.startsWith("frame #") ||
    line.startsWith("Exception raised from ") ||
    line.startsWith("*** ") ||
    line.startsWith("@ ") ||
    isUcxBacktraceLine(line) ||
    isTrtllmFrame(line) ||
    isCudaErrorTail(line) ||
    isGdbFrame(line)
  );
}

/**
 * A frame of gdb's `bt` (gdb/stack.c print_frame: `#N  ` padded, the pc and ` in ` unless the frame is at the start
 * of a line, the function and its arguments, then ` at file:line` or ` from library`):
 * `#0  0x00007f3a1c2a9e2c in __pthread_kill_implementation () from /lib/x86_64-linux-gnu/libc.so.6`.
 */
const GDB_FRAME = /^#\d+ +(?:0x[0-9a-f]+ in )?[\w:~<>.$@]+ \(/;

function isGdbFrame(line: string): boolean {
  return line.charCodeAt(0) === 35 /* # */ && GDB_FRAME.test(line);
}

/**
 * A frame of the backtrace TensorRT-LLM appends to a TllmException's message
 * (NVIDIA/TensorRT-LLM cpp/tensorrt_llm/common/tllmException.cpp, getTrace):
 * `"%-3d %*p %s + %zd"` with the demangled symbol and its offset
 * (`1       0x7f8524ec97bf tensorrt_llm::_v1::common::throwRuntimeError(char const*, int, char const*) + 76`),
 * else `"%-3d %*p %s"` with backtrace_symbols' text; the pointer is padded to 18
 * columns, which a paste may squeeze. The frames start at 1, under the
 * exception's `[TensorRT-LLM][ERROR] … (file:line)` message.
 */
const TRTLLM_FRAME = /^\d{1,3} +0x[0-9a-f]{4,16} \S/;

function isTrtllmFrame(line: string): boolean {
  const c = line.charCodeAt(0);
  return c >= 49 && c <= 57 && TRTLLM_FRAME.test(line);
}

/**
 * The fixed lines PyTorch appends to a CUDA or HIP error's message (c10/cuda,
 * `c10_cuda_check_implementation` and the suffix it adds), each on a line of
 * its own, unindented, under the line that logged the error (a c10 watchdog's
 * `… terminated with exception: CUDA error: an illegal memory access was
 * encountered`, a `RuntimeError: CUDA error: …`):
 * ``Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/… for more information.``,
 * `CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.`,
 * `For debugging consider passing CUDA_LAUNCH_BLOCKING=1` (`AMD_SERIALIZE_KERNEL=3` on ROCm),
 * ``Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.``.
 * They continue that record; none is a record of its own.
 */
const CUDA_ERROR_TAIL =
  /^(?:Search for `(?:cuda|hip)Error\w*' in |(?:CUDA|HIP) kernel errors might be asynchronously reported |For debugging consider passing (?:CUDA_LAUNCH_BLOCKING|HIP_LAUNCH_BLOCKING|AMD_SERIALIZE_KERNEL)=|Compile with `TORCH_USE_(?:CUDA|HIP)_DSA` )/;

export function isCudaErrorTail(line: string): boolean {
  return CUDA_ERROR_TAIL.test(line);
}

/**
 * The header of a Rust error's cause chain as `anyhow` (and `eyre`) print an
 * error with `{:?}` (anyhow `src/fmt.rs`, `ErrorImpl::debug`): the message, a
 * blank line, `Caused by:`, then each cause indented (`    0: creating primary
 * lease`). Dynamo's runtime logs its errors so (`Application shutdown with
 * error: …`, `Error: …`). The header continues the error above it.
 */
export function isErrorChainHead(line: string): boolean {
  return line.trimEnd() === "Caused by:";
}

/**
 * urllib3's retry failure, the message requests raises as a ConnectionError
 * and SGLang logs after `Error fetching prefill parallel info from bootstrap: `
 * (urllib3 src/urllib3/exceptions.py: PoolError `f"{pool}: {message}"` with the
 * pool `HTTPConnectionPool(host=…, port=…)`, MaxRetryError `f"Max retries
 * exceeded with url: {url} (Caused by {reason!r})"`): a part of it on a line
 * of its own, where a paste or a terminal broke the line, continues the record above.
 */
const URLLIB3_MESSAGE_PART = /^(?:HTTPS?ConnectionPool\(host=|\(Caused by \w+\()/;

export function isUrllib3MessagePart(line: string): boolean {
  return URLLIB3_MESSAGE_PART.test(line);
}

/**
 * A frame of the backtrace UCX prints when it handles a fatal signal or a
 * failed assertion (openucx/ucx src/ucs/debug/debug.c,
 * UCS_DEBUG_BACKTRACE_LINE_FMT): `"%2d  %s"` with backtrace_symbols' text
 * (` 5  /…/libuct-4eacacdc.so.0.0.0(uct_tcp_ep_am_bcopy+0x8d) [0x7fc4604d557d]`),
 * or, built with BFD, `"%2d 0x%016lx %s()  %s:%u"`
 * (` 3 0x0000000000029b69 uct_tcp_ep_am_bcopy()  ???:0`). A paste may strip
 * the padding of the frame number.
 */
const UCX_FRAME = /^\s*\d{1,2} +(?:\S.*\) \[0x[0-9a-f]+\]|0x[0-9a-f]{8,16} \S.*\(\) +\S*:\d+)\s*$/;

const RULE_OF_EQUALS = /^={20,}\s*$/;

/** A UCX backtrace's frame, or its `==== backtrace (tid:%7d) ====` header and its closing line of `=`. */
export function isUcxBacktraceLine(line: string): boolean {
  const c = line.charCodeAt(0);
  if (c === 61 /* = */) return line.startsWith("==== backtrace (tid:") || RULE_OF_EQUALS.test(line);
  return (c === 32 || (c >= 48 && c <= 57)) && UCX_FRAME.test(line);
}

/**
 * A UCX backtrace's line that is one for sure without the lines above it: its header or a frame. The closing row of `=`
 * is one only under a backtrace; alone it is the rule that benchmark summaries, sanitizers and banners draw.
 */
export function isUcxBacktraceOwnLine(line: string): boolean {
  return isUcxBacktraceLine(line) && !RULE_OF_EQUALS.test(line);
}

const FRAME = /^ {2}File "([^"]+)", line (\d+) in (\S+)/;

/** From a faulthandler dump: the crashing thread's innermost frame, and how many threads were dumped. */
export function dumpSummary(lines: readonly string[]): { threads: number; frame?: string } {
  let threads = 0;
  let frame: string | undefined;
  let inCurrent = false;
  for (const line of lines) {
    if (line.startsWith("Thread 0x") || line.startsWith("Current thread 0x")) {
      threads++;
      inCurrent = line.startsWith("Current");
      continue;
    }
    if (inCurrent && frame === undefined) {
      const m = FRAME.exec(line);
      if (m) frame = `${m[3]} (${m[1]}:${m[2]})`;
    }
  }
  return frame !== undefined ? { threads, frame } : { threads };
}
