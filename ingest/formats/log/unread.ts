// What a record that no template read still says (issue "Every failure in an
// operator's logs becomes a finding"): its severity and, when it reports a
// failure, its class. A record is settled when it closes (./records.ts):
//   - a Python traceback whose header or exception line was cut, or whose
//     lines were re-logged one by one under another logger's prefix, is still
//     an exception (`log.exception`, its type unknown when the line is gone);
//     so is a torch C++ backtrace whose error line was cut (`frame #3: …`),
//     and the lines PyTorch appends to a CUDA error whose error line was
//     (`CUDA kernel errors might be asynchronously reported …`),
//     and UCX's backtrace of a fatal signal whose `Caught signal` line was
//     (` 4  /…/libucp.so.0(+0x9140f) [0x7fc44301140f]`);
//   - a line its dialect calls error or fatal (glog/absl `E`/`F`, Python
//     logging's ERROR/CRITICAL, vLLM's `ERROR 10-23 …`, Rust tracing, NCCL
//     WARN, UCX ERROR), or whose words are an exception's, a crash's, a failed
//     assertion's or a timeout's, or a line whose dialect states no level and
//     whose words are a verdict (`ibverbs init qp failed: End of file`; on a
//     bare line also `connect EPS failed`), is a
//     failure record (`log.error`) that process-failure or transport-failure judges,
//     unless its library's source shows the code carrying on after that very
//     print (./fallbacks.ts): then it is a `log.message` of level warning that
//     names the fallback;
//   - an SGLang line, whose prefix states no level, takes the level of the
//     logger call whose head its message opens with (../templates/sglang/sglangHeads.ts):
//     an error's is a failure record (a transfer's judged by transport-failure),
//     a warning's a `log.message` of level warning, whatever its words;
//   - any other line whose dialect was read is `log.message` (time, rank and
//     level known, the message not interpreted); a line in no known dialect
//     stays `log.unparsed`.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { classifyFailure } from "../messages/failureClass.js";
import { decodeFailureReason } from "../sglang/failureReason.js";
import { engineErrorClass } from "../templates/engines/engineFailure.js";
import { ascendErrorText, ascendFailureClass, ASCEND_DIALECT } from "./dialects/ascend.js";
import { isCudaErrorTail, isUcxBacktraceOwnLine } from "./recordTails.js";
import { fallbackPrintOf, type FallbackPrint } from "./fallbacks.js";
import { FAILURE_CLASS_NAME, FRAME_LINE, isInterrupt } from "./traceback.js";
import { COMPONENTS } from "../templates/index.js";
import { sglangHeadOf, type SglangHead } from "../templates/sglang/sglangHeads.js";
import type { TemplateComponent } from "../templates/template.js";

/** A line's severity, in the words of the dialects (normalised). */
export type LineLevel = "debug" | "info" | "warning" | "error" | "fatal";

const LEVEL_WORDS: Readonly<Record<string, LineLevel>> = {
  TRACE: "debug", DEBUG: "debug", D: "debug",
  INFO: "info", NOTICE: "info", I: "info",
  WARN: "warning", WARNING: "warning", W: "warning",
  ERROR: "error", ERR: "error", E: "error", ABORT: "error",
  CRITICAL: "fatal", FATAL: "fatal", F: "fatal", PANIC: "fatal",
  // The NATS server's labels (nats-server logger/log.go setPlainLabelFormats) and other short forms.
  TRC: "debug", DBG: "debug", INF: "info", WRN: "warning", SEVERE: "error", CRIT: "fatal", CRT: "fatal", FTL: "fatal",
  // zap's DPanicLevel, an error that panics only in development (go.uber.org/zap/zapcore level.go); Google Cloud's
  // LogSeverity names beyond ERROR, and its DEFAULT.
  DPANIC: "error", ALERT: "fatal", EMERGENCY: "fatal", DEFAULT: "info",
};

/** The level a dialect's word or glog letter names, case-insensitively; undefined for any other word. */
export function levelOfWord(word: string | undefined): LineLevel | undefined {
  return word === undefined ? undefined : LEVEL_WORDS[word.toUpperCase()];
}

/** How the record's first line was read: which dialect, the level it stated, where its message starts. */
export interface RecordHead {
  /** The dialect that read the prefix (`sglang`, `glog`, `iso`, `vllm`, …); null when none did. */
  dialect: string | null;
  level?: LineLevel;
  /** Offset of the message in the first line's inner text. */
  msgStart: number;
  /** The place the prefix names: a glog `file.cc:123`, a Python logger, a Rust target. */
  source?: string;
  /** The error code the prefix states (CANN's `EI0002`, torch_npu's `ERR02005`: ./dialects/ascend.ts). */
  code?: string;
}

const TRACEBACK = "Traceback (most recent call last):";
/** What a traceback whose exception line was cut is, where a title would name the exception. */
const CUT_TRACEBACK = "a Python traceback whose exception line is not in the log";
/** `ValueError: …`, `zmq.error.ZMQError: …`, `KVTransferError(bootstrap_room=…): …`, `torch.OutOfMemoryError: …`, `torch._dynamo.exc.BackendCompilerFailed: …`. */
const EXCEPTION_LINE = new RegExp(`^(${FAILURE_CLASS_NAME})(\\([^)]*\\))?(?::\\s*(.*))?$`, "s");
/**
 * `Scheduler hit an exception: …`, `Exception in ControllerSingle:`, `TpModelWorkerClient hit an exception`, and asyncio's
 * report of a task or future that failed with nobody awaiting it, `Task exception was never retrieved` (CPython
 * Lib/asyncio/futures.py `Future.__del__`, logged by the loop's default exception handler; bare where logging is not
 * configured).
 */
const EXCEPTION_WORDS = /\bhit an exception\b|^Exception in [\w .-]+:|\b(?:Task|Future) exception was never retrieved\b/;
/** A faulthandler thread dump whose `Fatal Python error` header is missing or garbled. */
const THREAD_DUMP = /\b(?:Current thread|Thread) 0x[0-9a-f]{8,}\b|\(most recent call first\):/;
/**
 * Words that report a failure whatever the line's level: a crash, a failed assertion, a timeout, an error verdict at the
 * message's start, a GitHub Actions job's `##[error]` (the runner's rendering of an `::error::` workflow command and of a
 * failed step, `Process completed with exit code 1.`), the name of a CUDA or HIP error code, which a program prints only
 * of a call that failed: the runtime's (`cudaErrorNoDevice: no CUDA-capable device is detected`, cudaGetErrorName of a
 * cudaError_t; HIP's hipGetErrorName the same) and the driver's (`CUDA_ERROR_ILLEGAL_ADDRESS`, cuGetErrorName of a
 * CUresult), and ROCm's HSA runtime's (`HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION`, hsa_status_string of a failed
 * call); `cudaSuccess`, `CUDA_SUCCESS` and `HSA_STATUS_SUCCESS` name none. And the text of a failed absl::Status opening
 * the message: its canonical code's name, `: ` and its message (`RESOURCE_EXHAUSTED: Error loading program
 * 'jit__multi_slice': …`), which is what a status's ToString gives (abseil absl/status/internal/status_internal.cc
 * StatusRep::ToString, `absl::StrAppend(&text, absl::StatusCodeToString(code()), ": ", message())`;
 * absl/status/status.cc Status::ToStringSlow in older releases; the names from StatusCodeToStringView) and what XLA,
 * PJRT, TSL and JAX raise or print of a call that failed (jaxlib's XlaRuntimeError carries it as its text; a log console
 * or a paste keeps it alone). `OK` names no failure, and `CANCELLED` is left out: a call cancelled is one its caller
 * asked to stop.
 */
const FAILURE_WORDS =
  /Segmentation fault|Fatal Python error|core dumped|terminate called|Assertion [`'"].*[`'"] failed|\bAssertion\b.*\bfailed\b|\b[Tt]imed out\b|CUDA error|^(?:Error|ERROR|Fatal|FATAL)\b|^##\[error\]|\b(?:cuda|hip)Error[A-Z][A-Za-z]+\b|\bCUDA_ERROR_[A-Z_]+\b|\bHSA_STATUS_ERROR_[A-Z_]+\b|^(?:UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|ALREADY_EXISTS|PERMISSION_DENIED|UNAUTHENTICATED|RESOURCE_EXHAUSTED|FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|UNAVAILABLE|DATA_LOSS): \S/;

/**
 * A verdict on the line's subject, `<what> failed: <why>`, `<what> error: <why>`:
 * a failure on a line whose dialect states no level (a kernel line, a line whose
 * prefix the paste cut, a bare line). Not on SGLang's own lines: SGLang prints
 * its warnings under the same level-less prefix as its errors
 * (`Setup Custom allreduce failed with CUDART error: … To silence this warning`),
 * and its failures have templates or heads (../templates/sglang/sglangHeads.ts).
 */
const FAILURE_VERDICT = /\b(?:failed|[Ee]rror): \S/;
/**
 * perror's shape, `<call>: <strerror(errno)>`, with the C library's text of an errno that a failed call of the
 * network, the memory or a device sets (glibc string/_strerror.c, sysdeps/gnu/errlist.h), then its number, a
 * stop or the end: `connect()10.1.0.21:15468: Connection refused [111]`, `write: Broken pipe`, Rust's
 * `… (os error 104)`, and Python's OSError as str() gives it, `[Errno 111] Connection refused`. The errnos a
 * healthy run also meets on its way (ENOENT of a probe, EAGAIN, EINTR) are not among them. A verdict where
 * FAILURE_VERDICT is one.
 */
const ERRNO_VERDICT =
  /(?:: |\[Errno \d+\] )(?:Connection (?:refused|reset by peer|timed out)|No route to host|Network is (?:unreachable|down)|Host is down|Broken pipe|Input\/output error|Remote I\/O error|Cannot allocate memory|No space left on device|Bad address|Transport endpoint is not connected|Address already in use|Cannot assign requested address|Too many open files|Device or resource busy|Operation not permitted|Permission denied|No such device|Protocol error)(?: \[\d+\]| \((?:os error|errno:?) ?\d+\)|[.,;]|$)/;
/**
 * A verdict on a line whose level no dialect gives, where nothing of a prefix is left but glog's place, if that:
 * `connect EPS failed`, `AsyncLLM output_handler failed.`, `… died unexpectedly` (vLLM's engine client of its core,
 * vllm/v1/engine/core_client.py, there at error level), ninja's `FAILED: {outputs}` of a build step that failed
 * (ninja src/status_printer.cc BuildEdgeFinished), pytest's `FAILED {nodeid} - {message}` of a test that failed (its short
 * test summary, src/_pytest/terminal.py), GNU make's errors, `make[2]: *** [Makefile:90: all] Error 2` (src/job.c
 * child_error's `*** ` and src/output.c's `make[N]: ` before a fatal), CMake's `CMake Error at CMakeLists.txt:12 (message):`
 * (Source/cmMessenger.cxx) and the CUDA front end's `1 error detected in the compilation of "…".`, `Prefetch operation ... failed to retrieve page ...`,
 * `ibgda_rc_init2rtr failed on RC #0.`, `ionic_comp_msn:1277: cqe with error 12 for 0x1 (msn)`,
 * `Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error` (nvidia-smi), curl's report of a
 * transfer that failed, `curl: (52) Empty reply from server` (curl src/tool_operate.c: `"curl: (%d) %s\n"` only
 * when the result is not CURLE_OK),
 * `NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.`,
 * `gds_utils.cpp:163] Error in setting up Batch`; a program that could not start: Docker's client relaying the
 * daemon's refusal (`docker: Error response from daemon: could not select device driver …`, moby client/errors.go),
 * the dynamic loader's `python3: error while loading shared libraries: libcuda.so.1: …` (glibc elf/dl-error.c),
 * CPython's `python3: can't open file '…': [Errno 2] …` (Modules/main.c pymain_run_file_obj) and runpy's
 * `/usr/bin/python3: No module named sglang.launch_server` (Lib/runpy.py _run_module_as_main); a child that failed, as
 * the one who waited for it says: CPython's CalledProcessError, `Command '[…]' returned non-zero exit status 1.` or
 * `… died with <Signals.SIGKILL: 9>.` (Lib/subprocess.py CalledProcessError.__str__, printed bare where a caller
 * re-raises its text), `kubectl exec`'s `command terminated with exit code 137` (client-go
 * tools/remotecommand/v4.go errorDecoderV4) and a JetBrains IDE's run console, `Process finished with exit code 1`
 * (its process-terminated listener; 0 is a success). Not on the kernel's
 * lines, which say `failed` of probes and firmware a machine runs on without, nor on SGLang's (FAILURE_VERDICT's reason).
 */
const BARE_VERDICT =
  /\b(?:[Ff]ailed|[Uu]nable) to [a-z]|\b(?:died|exited|terminated) unexpectedly\b|^FAILED: \S|^FAILED \S+\.py::\S|^g?make(?:\[\d+\])?: \*\*\* |^CMake Error\b|\b\d+ errors? detected in the compilation of |^curl: \(\d+\) |\bfailed[.!]?$|\w failed(?: on| with| because| due to|,)|\b(?:has|have) failed\b|^Error (?:in|while|during|when)\b|\b(?:with|returned) error (?:code )?-?[1-9]\d*\b|\bError response from daemon: |(?:^|: )error while loading shared libraries: |^\S*python[\d.]*: (?:can't open file .*: \[Errno \d+\]|No module named \S)|\breturned non-zero exit status [1-9]\d*|\bdied with <Signals\.SIG[A-Z0-9]+: \d+>|\bcommand terminated with exit code [1-9]\d*|^Process finished with exit code (?:-\d|[1-9])/;
/**
 * A count or rate of no failures: a summary, not a verdict. `5 passed, 0 failed`, `failed=0`, and a statistic whose
 * label names errors or failures and whose value is zero, as report printers of every kind print them
 * (`Error rate: 0.00%`, `Error count: 0`, `Failed requests:   0`; printf's `"Error rate: %.1f%%"` and the like).
 */
const NO_FAILURE_COUNT = /\b0 failed\b|\bfailed[=:] ?0\b|^(?:[A-Z]?[a-z]+ )?(?:[Ee]rrors?|[Ff]ail(?:ed|ures?))(?: [a-z]+){0,2}(?: \([^)]*\))?[:=] *0(?:\.0+)? *%?$/;
/** A level below error that a line states in its words (`… WARN: Failed to initialize all selected devices. Perf may be limited.`): no verdict then. */
const LEVEL_BELOW_ERROR = /\b(?:WARN(?:ING)?|INFO|DEBUG|NOTICE|TRACE)\b|^Warning\b/;
/** A line of a torch C++ backtrace, which c10::Error appends to its message (torch c10/util/Exception.cpp): `Exception raised from … (most recent call first):`, then `frame #N: …`. */
const CPP_BACKTRACE = /^(?:frame #\d+: |Exception raised from )/;

const SOURCE_FILES = COMPONENTS.filter((c) => c.sourceFiles !== undefined);

/** The component whose C++ sources a glog place names (`client.cpp:380` → Mooncake store), else undefined. */
export function componentOfSource(source: string | undefined): TemplateComponent | undefined {
  if (source === undefined) return undefined;
  // The base name: a place may carry the path the build gave it (`../torch_npu/csrc/…/X.cpp:3009`).
  const file = source.replace(/:\d+$/, "").replace(/^.*\//, "");
  return SOURCE_FILES.find((c) => c.sourceFiles!.test(file));
}

/**
 * CPython's report of an exception it could not raise — in a finalizer (`__del__`), a weakref or GC callback, an atexit
 * callback, at interpreter shutdown: `Exception ignored in: <function Pool.__del__ at 0x…>` (since 3.8 also
 * `Exception ignored in atexit callback: …`, since 3.13 `Exception ignored while …`), then the traceback and the
 * exception line (Python/errors.c, the default unraisable hook, format_unraisable). The exception is dropped and the
 * program goes on, or was already exiting.
 */
const UNRAISABLE = /^Exception ignored (?:in|on|while)\b/;

/** Settles a closed record that no template read (see the file's head). */
export function settleUnread(ev: ParsedEvent, head: string, more: readonly string[], how: RecordHead): void {
  const unraisable = (ev.kind === LogKind.exception || ev.kind === LogKind.unparsed) && UNRAISABLE.test(head.substring(how.msgStart).trimStart());
  if (unraisable) return asIgnoredException(ev, more, how);
  // A traceback ./traceback.ts ended with its exception line keeps the level and place of the line that logged it.
  if (ev.kind === LogKind.exception && how.dialect !== null) withHead(ev, how);
  // One it could not end (the record stops inside the frames) says so, rather than being known by its header line.
  if (ev.kind === LogKind.exception && ev.attrs?.excType === undefined && ev.attrs?.what === undefined && isTraceback(head.trimEnd(), more)) {
    (ev.attrs ??= {}).what = CUT_TRACEBACK;
  }
  if (ev.kind !== LogKind.unparsed) return;
  const message = head.substring(how.msgStart).trim();
  // SGLang's prefix states no level: the head of the logger call that printed the message does (../templates/sglang/sglangHeads.ts).
  const sglang = how.dialect === "sglang" && how.level === undefined ? sglangHeadOf(message) : undefined;
  settleMessage(ev, message, more, sglang === undefined ? how : { ...how, level: sglang.level, source: sglang.file }, sglang);
}

/** An unread record by its message, the level its prefix or its SGLang head (`sglang`) states, and the lines after it. */
function settleMessage(ev: ParsedEvent, message: string, more: readonly string[], how: RecordHead, sglang: SglangHead | undefined): void {
  if (isTraceback(message, more)) return asException(ev, message, more, how);
  const exception = EXCEPTION_LINE.exec(message);
  if (exception !== null && how.level !== "debug" && how.level !== "info") return asExceptionLine(ev, exception, how);
  if (how.dialect === null && CPP_BACKTRACE.test(message)) return asCutBacktrace(ev, message, "a C++ backtrace whose error line is not in the log");
  if (how.dialect === null && isUcxBacktraceOwnLine(message)) return asCutBacktrace(ev, message, "a UCX backtrace whose error line (its `Caught signal …`) is not in the log");
  // PyTorch appends these lines only to a CUDA or HIP error's message (c10/cuda/CUDAException.cpp, ./crash.ts CUDA_ERROR_TAIL).
  if (how.dialect === null && isCudaErrorTail(message)) return asCutBacktrace(ev, message, "the lines PyTorch appends to a CUDA error, whose error line is not in the log", "cuda-error");
  const verdict =
    how.level === undefined &&
    how.dialect !== "sglang" &&
    !NO_FAILURE_COUNT.test(message) &&
    (FAILURE_VERDICT.test(message) || ERRNO_VERDICT.test(message) || ((how.dialect === null || how.dialect === "glog") && BARE_VERDICT.test(message) && !LEVEL_BELOW_ERROR.test(message)));
  const failing =
    how.level === "error" ||
    how.level === "fatal" ||
    verdict ||
    EXCEPTION_WORDS.test(message) ||
    (FAILURE_WORDS.test(message) && !NO_FAILURE_COUNT.test(message)) ||
    THREAD_DUMP.test(message) ||
    more.some((l) => THREAD_DUMP.test(l));
  if (failing && how.level !== "debug" && how.level !== "info" && how.level !== "warning") {
    // A print its library follows by carrying on (./fallbacks.ts): a warning that names what the code does instead.
    const fallback = how.level !== "fatal" ? fallbackPrintOf(message, how.source) : undefined;
    return fallback === undefined ? asError(ev, message, more, how, sglang) : asFallback(ev, how, fallback);
  }
  if (how.dialect !== null) asMessage(ev, how);
}

function isTraceback(message: string, more: readonly string[]): boolean {
  if (message.endsWith(TRACEBACK) || FRAME_LINE.test(message)) return true;
  return more.some((l) => l.startsWith(TRACEBACK) || FRAME_LINE.test(l));
}

/** The last line of a record's continuation that is neither a frame nor indented, read as an exception line; else null. */
function lastExceptionLine(more: readonly string[]): RegExpExecArray | null {
  const last = [...more].reverse().find((l) => l.trim().length > 0 && !FRAME_LINE.test(l) && !/^\s/.test(l));
  return last !== undefined ? EXCEPTION_LINE.exec(last.trim()) : null;
}

/** A traceback that ./traceback.ts could not end with its exception line: the line was cut, or the header was. */
function asException(ev: ParsedEvent, message: string, more: readonly string[], how: RecordHead): void {
  ev.kind = LogKind.exception;
  const attrs = withHead(ev, how);
  const line = lastExceptionLine(more);
  if (line !== null) {
    attrs.excType = line[1];
    if (line[3] !== undefined) attrs.excMessage = line[3];
  } else {
    attrs.what = message.endsWith(TRACEBACK) || more.some((l) => l.startsWith(TRACEBACK)) ? CUT_TRACEBACK : "Python traceback frames whose header and exception line are not in the log";
  }
  attrs.failureClass ??= classifyFailure(line?.[1], line?.[3] ?? message);
  delete ev.unparsedMessage;
}

/** C++ backtrace frames whose error line (a c10 `… terminated with exception: …`, a `what():`, UCX's `Caught signal`) is not in the log. */
function asCutBacktrace(ev: ParsedEvent, message: string, what: string, failureClass = classifyFailure(undefined, message)): void {
  ev.kind = LogKind.exception;
  const attrs = (ev.attrs ??= {});
  attrs.what = what;
  attrs.failureClass = failureClass;
  delete ev.unparsedMessage;
}

/** A bare exception line (`ValueError: port_base … is not available`): the exception, its traceback not in the log. */
function asExceptionLine(ev: ParsedEvent, line: RegExpExecArray, how: RecordHead): void {
  const [, excType, args, excMessage] = line;
  ev.kind = LogKind.exception;
  const attrs = withHead(ev, how);
  attrs.excType = excType;
  if (excMessage !== undefined) attrs.excMessage = excMessage;
  attrs.failureClass = classifyFailure(excType, excMessage ?? "");
  // An interrupt's line without its traceback: a stop someone asked for, with no frame to say where it waited.
  if (isInterrupt(excType!)) attrs.interrupted = true;
  if (/(?:^|\.)KVTransferError$/.test(excType!)) {
    // str(KVTransferError) is `KVTransferError(bootstrap_room={room}): {reason}` (docs/log-templates.md "Failure reasons").
    const reason = decodeFailureReason(`KVTransferError${args ?? ""}: ${excMessage ?? ""}`);
    attrs.reasonKind = reason.reasonKind;
    if (reason.errorRoom !== undefined) ev.room = reason.errorRoom;
  }
  delete ev.unparsedMessage;
}

/** An exception CPython reported and dropped: a warning naming the exception (`ignoredException`), no failure. */
function asIgnoredException(ev: ParsedEvent, more: readonly string[], how: RecordHead): void {
  const line = ev.attrs?.excType === undefined ? lastExceptionLine(more) : null;
  const excType = ev.attrs?.excType ?? line?.[1];
  const excMessage = ev.attrs?.excMessage ?? line?.[3];
  ev.kind = LogKind.message;
  ev.attrs = {};
  const attrs = withHead(ev, how);
  if (how.level !== undefined && how.level !== "warning") attrs.printedLevel = how.level;
  attrs.level = "warning";
  if (excType !== undefined) attrs.ignoredException = excType;
  if (excMessage !== undefined) attrs.excMessage = excMessage;
  delete ev.unparsedMessage;
}

/** UCX's component and level words before its message (`UCX  ERROR `): everything UCX's logger prints is UCX's. */
const UCX_WORDS = /^UCX +[A-Z]+ +/;

function asError(ev: ParsedEvent, message: string, more: readonly string[], how: RecordHead, sglang: SglangHead | undefined): void {
  if (how.dialect === "ucx") return asEngineError(ev, message.replace(UCX_WORDS, ""), how, "ucx");
  // Everything NVSHMEM's error macros print is its transport's or its set-up's failure (./dialects/nvshmemHead.ts);
  // an error-level 3FS line is a failure of the storage HiCache keeps its pages in (./dialects/threeFsHead.ts).
  if (how.dialect === "nvshmem" || how.dialect === "3fs") return asEngineError(ev, message, how, how.dialect);
  const engine = sglang?.engine ?? componentOfSource(how.source)?.engine;
  if (engine !== undefined) return asEngineError(ev, message, how, engine);
  ev.kind = LogKind.error;
  const attrs = withHead(ev, how);
  if (how.dialect === ASCEND_DIALECT) {
    // An Ascend report says what failed in its later lines (./dialects/ascend.ts).
    attrs.error = ascendErrorText(message, more);
    if (how.code !== undefined) attrs.errorCode = how.code;
    attrs.failureClass = ascendFailureClass(how.code, message, more);
  } else {
    // The message without its wrapper and prefix: what a finding quotes.
    attrs.error = message;
    // A transfer's, a bootstrap's or a peer's failure is a transport failure unless its words name a narrower class, as an engine's is.
    if (sglang?.transfer === true) engineErrorClass(ev);
    else attrs.failureClass = FAILURE_WORDS.test(message) || !isDump(message, more) ? classifyFailure(undefined, message) : "thread-dump";
  }
  if (how.level === "fatal" && how.dialect === "glog") attrs.fatal = true;
  delete ev.unparsedMessage;
}

/** An error line of a transfer engine's own sources that no row of its table reads: that engine's transport error all the same. */
function asEngineError(ev: ParsedEvent, message: string, how: RecordHead, engine: string): void {
  ev.kind = LogKind.transportError;
  const attrs = withHead(ev, how);
  attrs.engine = engine;
  attrs.errorKind = "unrecognised";
  attrs.error = message;
  engineErrorClass(ev);
  if (how.level === "fatal") attrs.fatal = true;
  delete ev.unparsedMessage;
}

function isDump(message: string, more: readonly string[]): boolean {
  return THREAD_DUMP.test(message) || more.some((l) => THREAD_DUMP.test(l));
}

/** An error-level print whose code goes on (./fallbacks.ts): a `log.message` of level warning naming the fallback and the level printed. */
function asFallback(ev: ParsedEvent, how: RecordHead, print: FallbackPrint): void {
  ev.kind = LogKind.message;
  const attrs = withHead(ev, how);
  attrs.level = "warning";
  if (how.level !== undefined) attrs.printedLevel = how.level;
  attrs.fallbackPrint = print.id;
  attrs.fallback = print.fallback;
}

function asMessage(ev: ParsedEvent, how: RecordHead): void {
  ev.kind = LogKind.message;
  // A line whose prefix names no level or place keeps no attrs (most SGLang lines).
  if (how.level !== undefined || how.source !== undefined || ev.attrs !== undefined) withHead(ev, how);
}

/** The record's attrs with its level, source and component added. */
function withHead(ev: ParsedEvent, how: RecordHead): Record<string, unknown> {
  const attrs = (ev.attrs ??= {});
  if (how.level !== undefined) attrs.level = how.level;
  if (how.source !== undefined) attrs.source = how.source;
  const component = componentOfSource(how.source);
  if (component !== undefined) attrs.component = component.name;
  return attrs;
}
