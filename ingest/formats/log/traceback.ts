// Python tracebacks and thread deaths as they reach a server log
// (docs/protocol.md §1 "logger.exception appends traceback lines
// without prefix", §3.3 "Exception in thread …" via the default thread excepthook),
// and the C++ `terminate called after throwing` block torch prints when a
// watchdog kills the process.

import type { StackFrame } from "./waitingFrames.js";

export const TRACEBACK = "Traceback (most recent call last):";
const THREAD_HEAD = /^Exception in thread (.+):$/;
const PROCESS_HEAD = /^Process ([\w.:-]+):$/;
/**
 * Rust's default panic hook (rust-lang/rust library/std/src/panicking.rs,
 * default_hook): `thread '{name}' panicked at {location}:` with the message on
 * the next line (Rust 1.73 on), or `thread '{name}' panicked at '{msg}', {location}`
 * before; then `note: run with \`RUST_BACKTRACE=1\` environment variable to
 * display a backtrace`, or the backtrace.
 */
const RUST_PANIC = /^thread '([^']*)' panicked at (?:'(.*)', )?([^\s']+:\d+:\d+):?$/;
/** The lines Rust's panic hook prints after the panic's message. */
const RUST_PANIC_TAIL = /^(?:note: run with `RUST_BACKTRACE=|note: Some details are omitted|stack backtrace:)/;
const TERMINATE_HEAD = /^terminate called after throwing an instance of '([^']+)'/;
const WHAT = /^\s*what\(\):\s+(.*)$/;
const EXCEPTION_LINE = /^([A-Za-z_][\w.]*(?:::\w+)*)(?:: (.*))?$/s;
const CHAIN_MARKERS = [
  "During handling of the above exception, another exception occurred:",
  "The above exception was the direct cause of the following exception:",
];

/**
 * Where a record stands in reading a traceback, to tell a chained traceback
 * from a new one. `source`: after a frame line whose indentation a paste
 * stripped, the frame's source line, unindented too.
 */
export const TracebackState = {
  none: 0,
  frames: 1,
  done: 2,
  chained: 3,
  source: 4,
} as const;
export type TracebackState = (typeof TracebackState)[keyof typeof TracebackState];

/**
 * The file a frame line names, in the quotes Python prints (`File "{}", line {}, in {}`, CPython
 * Lib/traceback.py StackSummary.format_frame_summary) or in those a copy gave them: a rich-text paste
 * turns them typographic (`File “/vllm-workspace/…/worker_base.py”, line 311, in …`); a line copied out
 * of a JSON-encoded log record keeps JSON's escape of each quote (`File \"/sgl-workspace/…/x.py\", line
 * 863, in …`, RFC 8259 §7), as a log console or a log shipper's export shows its message field.
 */
const QUOTED_FILE = String.raw`(?:"[^"]+"|\u201c[^\u201d]+\u201d|\\"[^"]+\\")`;
/**
 * A frame line a paste stripped of its indentation: `File "/sgl-workspace/…/scheduler.py", line 1787, in run_scheduler_process`,
 * its file in any of QUOTED_FILE's quotes.
 */
const BARE_FRAME = new RegExp(`^File ${QUOTED_FILE}, line \\d+, in `);
/**
 * The class name of a Python exception that is a failure, qualified by its module where it is not a builtin, as a
 * traceback's last line and `logger.exception` print it (`RuntimeError`, `zmq.error.ZMQError`, `KeyboardInterrupt`,
 * `SystemExit`, `torch._dynamo.exc.BackendCompilerFailed`): a capitalised last name with the ending of an exception's
 * (behind underscores where the class is private: grpc's `grpc._channel._InactiveRpcError`, grpc/_channel.py),
 * any capitalised name in a module of exceptions (`triton.runtime.errors.OutOfResources`, `torch._dynamo.exc.Unsupported`),
 * or a C++ exception a binding registered under its C++ name, camel-cased from a lower-case prefix and printed with its
 * module: NIXL's `nixl._bindings.nixlBackendError` (ai-dynamo/nixl src/bindings/python/nixl_bindings.cpp,
 * `py::register_exception<nixlBackendError>(m, "nixlBackendError")` in `PYBIND11_MODULE(_bindings, m)`). The module is
 * required there: a bare `lastError: 0` is a field, not a class. The base class itself, `Exception`, is one too: an
 * exception of that class is printed `Exception: <str(e)>` (CPython Lib/traceback.py,
 * TracebackException.format_exception_only: the class's qualname, its module left out for builtins, then `: ` and
 * the message), and so is the message a program prints in its `except Exception as e:` handler in that shape
 * (triton-inference-server/triton_distributed examples/python/hello_world/client/client.py, `print(f"Exception: {e}")`
 * before returning exit code 1). A class a module names `Exception` is printed with its module: mpi4py's
 * `mpi4py.MPI.Exception: MPI_ERR_OTHER: …` (mpi4py src/mpi4py/MPI/Exception.pyx, MPI.src/ in the newest: the class every MPI error raises).
 */
export const FAILURE_CLASS_NAME = String.raw`(?:(?:[A-Za-z_]\w*\.)*Exception|(?:[A-Za-z_]\w*\.)*_*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure|Failed)|(?:[A-Za-z_]\w*\.)*(?:errors?|exceptions?|exc)\.[A-Z]\w*|(?:[A-Za-z_]\w*\.)+[a-z][a-z0-9]*[A-Z]\w*(?:Error|Exception))`;
/** A warning's category (`UserWarning`, `torch.jit.TracerWarning`), which an exception line may also name. */
const WARNING_CLASS_NAME = String.raw`(?:[A-Za-z_]\w*\.)*[A-Z]\w*Warning`;
/** What an exception line opens with: the class name of an exception or a warning. */
const EXCEPTION_NAME = new RegExp(`^(?:${FAILURE_CLASS_NAME}|${WARNING_CLASS_NAME})\\b`);
/**
 * The markers Python 3.11 on prints under a frame's source line, at the
 * columns of the failing expression (CPython Lib/traceback.py,
 * StackSummary.format_frame_summary: `^` and `~` only):
 * `            ^^^^^^^^^^^^^^^^`. A paste may strip their
 * indentation as it strips the frames'; they are never an exception line.
 */
const MARKERS = /^[ \t]*[\^~][\^~ \t]*$/;
/** A frame line, indented or not: a record opened by one is a traceback whose header line the paste or a search window cut. */
const FRAME_HEAD = new RegExp(`^[ \\t]*File ${QUOTED_FILE}, line \\d+, in `);
/**
 * A frame line of a traceback (`, line 12, in f`) or of a faulthandler dump (`, line 12 in f`), indented
 * or not: the line a record that no template read is known as a traceback by (./unread.ts).
 */
export const FRAME_LINE = new RegExp(`^\\s*File ${QUOTED_FILE}, line \\d+(?:,| in)`);

/** SIGINT's exception in Python (an operator's Ctrl-C, or `kill -INT`), qualified or not. */
export function isInterrupt(excType: string): boolean {
  return /(?:^|\.)KeyboardInterrupt$/.test(excType);
}

const FRAME_PARTS = new RegExp(`^\\s*File (${QUOTED_FILE}), line (\\d+), in (.+?)\\s*$`);

/** The frames of a record's last traceback, innermost first (a traceback lists them outermost first). */
export function innermostFrames(lines: readonly string[]): StackFrame[] {
  let start = 0;
  lines.forEach((l, i) => {
    if (l.trimStart().startsWith(TRACEBACK)) start = i + 1;
  });
  const frames: StackFrame[] = [];
  for (const line of lines.slice(start)) {
    const m = FRAME_PARTS.exec(line);
    if (m !== null) frames.push({ file: m[1]!.replace(/^\\?["\u201c]|\\?["\u201d]$/g, ""), line: Number(m[2]), fn: m[3]! });
  }
  return frames.reverse();
}

/** The state after one more line of a record. */
export function nextTracebackState(state: TracebackState, line: string): TracebackState {
  if (line.startsWith(TRACEBACK)) return TracebackState.frames;
  if ((state === TracebackState.frames || state === TracebackState.source) && line.length > 0 && !isIndented(line)) {
    if (BARE_FRAME.test(line)) return TracebackState.source;
    if (MARKERS.test(line)) return TracebackState.frames;
    // Below a bare frame, its source line; an exception line ends the traceback all the same.
    return state === TracebackState.source && !EXCEPTION_NAME.test(line) ? TracebackState.frames : TracebackState.done;
  }
  if (state === TracebackState.done && CHAIN_MARKERS.includes(line.trimEnd())) return TracebackState.chained;
  return state;
}

/** True while the next line is still the traceback's: its frames, or after a chain marker the chained traceback. */
export function tracebackGoesOn(state: TracebackState): boolean {
  return state === TracebackState.frames || state === TracebackState.source || state === TracebackState.chained;
}

/** Whether a record's first line opens a traceback; a paste may end its lines with spaces (Markdown's line break). */
export function opensTraceback(head: string): boolean {
  return head.trimEnd().endsWith(TRACEBACK);
}

/**
 * Where a record's first line leaves a traceback: its header opens the
 * frames; a frame line opens them too, its header cut (the file or the paste
 * starts inside the traceback, or the header is above the search window), so
 * that the frames' source lines, their markers and the exception line below
 * stay the one record; any other line opens none. `messageStart`: where the
 * message starts after a logger's prefix (a logger that re-logs a traceback
 * line by line may start with a frame when the paste began mid-traceback).
 */
export function tracebackStateOfHead(head: string, messageStart = 0): TracebackState {
  if (opensTraceback(head)) return TracebackState.frames;
  const c = head.charCodeAt(messageStart);
  if (c !== 70 /* F */ && c !== 32 && c !== 9) return TracebackState.none;
  const message = messageStart === 0 ? head : head.substring(messageStart);
  if (!FRAME_HEAD.test(message)) return TracebackState.none;
  // A frame line whose indentation was stripped may have its source line below it stripped too.
  return isIndented(message) ? TracebackState.frames : TracebackState.source;
}

interface ThreadDeath {
  /** The thread's target when Python names it `Thread-N (target)`, else the thread's name. */
  thread: string;
  threadName: string;
}

/** `Exception in thread Thread-3 (bootstrap_thread):` → the thread; null for any other line. */
function threadDeathOf(line: string): ThreadDeath | null {
  const m = THREAD_HEAD.exec(line);
  if (!m) return null;
  const threadName = m[1];
  const target = /\(([^()]+)\)$/.exec(threadName);
  return { thread: target ? target[1] : threadName, threadName };
}

/**
 * The attrs of an exception record opened by a death's header line: a thread's
 * (`Exception in thread …:`), or a child process's (`Process Process-2:`,
 * `SpawnProcess-1`, a given name), which multiprocessing writes only when the
 * child's target raised, before its traceback; the child then exits (CPython
 * Lib/multiprocessing/process.py BaseProcess._bootstrap). Null for any other line.
 */
export function deathAttrsOf(line: string): Record<string, unknown> | null {
  const c = line.charCodeAt(0);
  const thread = c === 69 /* E */ ? threadDeathOf(line) : null;
  if (thread !== null) return { thread: thread.thread, threadName: thread.threadName };
  if (c === 116 /* t */) return rustPanicOf(line);
  const child = c === 80 /* P */ ? PROCESS_HEAD.exec(line)?.[1] : undefined;
  // Its traceback (the lines that follow) names the exception; without it the record still says a child died.
  return child === undefined ? null : { process: child, what: `child process ${child} died of an exception`, fatal: true };
}

/** A Rust thread's panic (see RUST_PANIC): the thread, where it panicked, and the message when the line holds it. */
function rustPanicOf(line: string): Record<string, unknown> | null {
  const m = RUST_PANIC.exec(line);
  if (m === null) return null;
  const attrs: Record<string, unknown> = { thread: m[1], threadName: m[1], excType: "panic", what: `Rust thread '${m[1]}' panicked at ${m[3]}`, source: m[3] };
  if (m[2] !== undefined) attrs.excMessage = m[2];
  return attrs;
}

/** Whether a record's first line is a Rust panic whose message (Rust 1.73 on) is on the lines below it. */
export function opensRustPanic(head: string): boolean {
  return head.charCodeAt(0) === 116 /* t */ && head.endsWith(":") && RUST_PANIC.test(head);
}

/** A line Rust's panic hook prints after the message: the RUST_BACKTRACE note, the backtrace's header. */
export function isRustPanicTail(line: string): boolean {
  return RUST_PANIC_TAIL.test(line);
}

/** `terminate called after throwing an instance of 'c10::DistBackendError'` → the C++ type. */
export function terminateTypeOf(line: string): string | null {
  const m = TERMINATE_HEAD.exec(line);
  return m ? m[1] : null;
}

export interface ExceptionInfo {
  excType: string;
  excMessage?: string;
}

/**
 * The exception a record ends with: the line after the frames of its last
 * traceback (the outermost of a chain), or a C++ terminate block's `what()`.
 */
export function exceptionOf(head: string, lines: readonly string[]): ExceptionInfo | null {
  const cpp = terminateTypeOf(head);
  if (cpp !== null) {
    const what = lines.map((l) => WHAT.exec(l)).find((m) => m !== null);
    return what ? { excType: cpp, excMessage: what[1] } : { excType: cpp };
  }
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].startsWith(TRACEBACK)) {
      start = i + 1;
      break;
    }
  }
  let state: TracebackState = TracebackState.frames;
  if (start < 0) {
    state = tracebackStateOfHead(head);
    if (state === TracebackState.none) return null;
    start = 0;
  }
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    state = nextTracebackState(state, line);
    if (state !== TracebackState.done) continue;
    const m = EXCEPTION_LINE.exec(line.trimEnd());
    if (!m) return null;
    return m[2] !== undefined ? { excType: m[1], excMessage: m[2] } : { excType: m[1] };
  }
  return null;
}

function isIndented(line: string): boolean {
  const c = line.charCodeAt(0);
  return c === 32 || c === 9;
}
