// Huawei Ascend's error reports (PD serving on NPUs: vLLM-Ascend, SGLang on
// Ascend, xLLM). Three writers print them to the process's stderr, in shapes of
// their own:
//   - CANN's error manager (metadef `error_manager/error_manager.cc`
//     ErrorManager::GetErrorMessage): a report of the thread's error items, each
//     under its error code `E` + module + four digits (`EE9999` the runtime's,
//     `EH9999` ACL's, `EI…` HCCL's, `EZ…` an operator's; 9000–9999 internal).
//     An internal report opens `EE9999: Inner Error!` and lists its items, in
//     the oldest releases as indented lines, then as `EH9999: [PID: 3132]
//     2025-10-15-16:32:20.074.608 wait for … failed …`, in the newest as
//     `EE9999[PID: 15252] 2026-08-24-11:45:01.740.629 (EE9999):  rtEvent… failed…`
//     (AssembleInnerErrorMessage), the first item followed by `        TraceBack
//     (most recent call last):` and the rest indented; a report of a user error
//     code opens `[PID: N] <time> <title>(EI0002): <message>` (newest) or
//     `EI0002: <message>` (oldest), then `        Possible Cause: …`,
//     `        Solution: …`, the other items indented;
//   - torch_npu's NPU_CHECK_ERROR / NPU_CHECK_WARN (Ascend/pytorch
//     `torch_npu/csrc/core/npu/NPUException.h`): `… NPU error, error code is
//     507013` (or `NPU warning, error code is 507013[Error]: `), then `[Error]: `
//     and the ACL code's text from `NPUErrorCodes.h` (`System Direct Memory
//     Access (DMA) hardware execution error. `), its advice indented on the
//     next line (`        Rectify the fault based on the error information in
//     the ascend log.`, `        Check whether …`), then CANN's report of the
//     call (c10_npu_get_error_message);
//   - torch_npu's error codes (`NPUException.cpp` formatErrorCode): `[ERROR]
//     2025-12-12-12:10:10 (PID:324, Device:5, RankID:-1) ERR02005 DIST internal
//     error` — `ERR`, the submodule (00 PTA, 01 OPS, 02 DIST, 03 GRAPH, 04 PROF)
//     and the ErrCode (100 an ACL call, 200 an HCCL call; ERR99999 torch_npu's
//     Python side's `UNKNOWN applicaiton exception`, sic).
//   - the runtime's dump of a device exception, seen in a pasted log only (its
//     printer was not found in a public source): `DEVICE[0] PID[415]: `, then
//     `EXCEPTION STREAM:` and indented `Exception info:…`, `Message info[0]:
//     RTS_HWTS: hwts sdma error, …`, `Other info[0]:…` lines (gpustack-3315-a).
// Each is one error-level record (a W code's report a warning's) whose
// continuation lines are the rest of its report: the indented lines, CANN's
// `TraceBack (most recent call last):` (a paste may strip its indentation),
// the report's item lines, and after torch_npu's `[Error]:` line the CANN
// report it appends.

import { classifyFailure, type FailureClass } from "../../messages/failureClass.js";
import type { LineLevel } from "../unread.js";

export const ASCEND_DIALECT = "ascend";

export interface AscendHead {
  level: LineLevel;
  msgStart: number;
  /** The error code the line states (`EE9999`, `EI0002`, `ERR02005`); none on torch_npu's `[Error]:` line. */
  code?: string;
}

/** CANN's error code: E (error) or W (warning), the module, four digits. */
const CODE = String.raw`[EW][0-9A-Z]\d{4}`;
const CODE_WORD = new RegExp(`^${CODE}$`);

/** A word that is CANN's error code (`EI0006`), which opens a report's lines as a node's name opens pdsh's. */
export function isCannErrorCode(word: string): boolean {
  return CODE_WORD.test(word);
}

/** A report's first line: `EE9999: Inner Error!`, the oldest `EI0002: <message>`, the newest `[PID: N] <time> <title>(EI0002): <message>`. */
const REPORT_HEAD = new RegExp(String.raw`^(?:(${CODE}): (?!\[PID: )|\[PID: \d+\] [\d:.-]+ [^(]*\((${CODE})\): +)`);
/** An item of an internal report: `EH9999: [PID: 3132] <time> <message>`, `EE9999[PID: 15252] <time> <title>(EE9999):  <message>`. */
const REPORT_ITEM = new RegExp(String.raw`^(${CODE})(?::\s)?\[PID: \d+\] [\d:.-]+ (?:[^(]*\(${CODE}\): +)?`);
/** CANN's header above a report's later items, which a paste may strip of its indentation. */
const CANN_TRACEBACK = "TraceBack (most recent call last):";
/** torch_npu's line of an ACL error code's text: `[Error]: Vector core execution timed out. `. */
const NPU_ERROR = "[Error]: ";
/** torch_npu's error code line: `[ERROR] 2025-12-12-12:10:10 (PID:324, Device:5, RankID:-1) ERR02005 DIST internal error`. */
const ERR_CODE = /^\[ERROR\] [\d:.-]+ \(PID:\d+, Device:-?\d+, RankID:-?\d+\)\.? (?=ERR(\d{2})(\d{3}) )/;

/** The device exception dump's first line, and the line under it (see the file's head). */
const DEVICE_DUMP = /^DEVICE\[\d+\] PID\[\d+\]:\s*$/;
const DEVICE_DUMP_STREAM = "EXCEPTION STREAM:";
/** The dump's line that says what failed: `Message info[0]:RTS_HWTS: hwts sdma error, slot_id=15, stream_id=1`. */
const DEVICE_DUMP_MESSAGE = /^\s*Message info\[\d+\]:\s*(.*)$/;

/** The level and message of a line that opens an Ascend error report, or null. */
export function readAscendHead(line: string): AscendHead | null {
  const c0 = line.charCodeAt(0);
  if (c0 === 91 /* [ */) {
    if (line.startsWith(NPU_ERROR)) return { level: "error", msgStart: NPU_ERROR.length };
    const err = ERR_CODE.exec(line);
    if (err !== null) return { level: "error", msgStart: err[0].length, code: `ERR${err[1]}${err[2]}` };
    const report = line.startsWith("[PID: ") ? REPORT_HEAD.exec(line) : null;
    return report === null ? null : cannHead(report[2]!, report[0].length);
  }
  if (c0 === 68 /* D */) return DEVICE_DUMP.test(line) ? { level: "error", msgStart: 0 } : null;
  if (c0 !== 69 /* E */ && c0 !== 87 /* W */) return null;
  const m = REPORT_ITEM.exec(line) ?? REPORT_HEAD.exec(line);
  return m === null ? null : cannHead(m[1]!, m[0].length);
}

function cannHead(code: string, msgStart: number): AscendHead {
  return { level: code.startsWith("W") ? "warning" : "error", msgStart, code };
}

/**
 * The lines that go on with the report a record's first line opened (not its
 * indented ones, which continue any record): its items, CANN's `TraceBack`
 * header, and one CANN report after torch_npu's `[Error]:` line; a device
 * exception dump's `EXCEPTION STREAM:` line.
 */
export function ascendReportTail(head: string): (line: string) => boolean {
  if (DEVICE_DUMP.test(head)) return (line) => line.startsWith(DEVICE_DUMP_STREAM);
  let reportOpened = !head.startsWith(NPU_ERROR);
  return (line) => {
    if (line.startsWith(CANN_TRACEBACK) || REPORT_ITEM.test(line)) return true;
    if (reportOpened || !REPORT_HEAD.test(line)) return false;
    reportOpened = true;
    return true;
  };
}

/**
 * What an Ascend record's finding quotes: its message, except CANN's `Inner
 * Error!`, which says only that the report lists internal items (then the
 * report's first item, its code, PID and time left out), and a device exception
 * dump's first line (then its message).
 */
export function ascendErrorText(message: string, more: readonly string[]): string {
  if (DEVICE_DUMP.test(message)) {
    const line = more.map((l) => DEVICE_DUMP_MESSAGE.exec(l)).find((m) => m !== null);
    return line?.[1]?.trim() ?? message.trim();
  }
  if (message !== "Inner Error!") return message;
  for (const line of more) {
    const item = REPORT_ITEM.exec(line);
    const text = item === null ? line.trim() : line.substring(item[0].length).trim();
    if (text.length > 0 && !text.startsWith(CANN_TRACEBACK)) return text;
  }
  return message;
}

/** torch_npu's error code: its submodule and ErrCode. */
const TORCH_NPU_CODE = /^ERR(\d{2})(\d{3})$/;

/**
 * The class of an Ascend report from its lines. torch_npu's error codes by
 * their parts: the DIST submodule (ProcessGroupHCCL) and an HCCL call's failure
 * are `hccl`, an ACL call's `npu-error`, any other (ERR99999, an application's
 * exception) by its words. CANN's reports and torch_npu's `[Error]:` lines:
 * HCCL's and HCCP's codes (EI, EJ) are `hccl`; the device's memory running out
 * `npu-oom`; anything else the NPU's own error (`npu-error`), a device task's
 * timeout included: the report is the device runtime's.
 */
export function ascendFailureClass(code: string | undefined, message: string, more: readonly string[]): FailureClass {
  const text = more.length === 0 ? message : `${message}\n${more.join("\n")}`;
  const err = code === undefined ? null : TORCH_NPU_CODE.exec(code);
  if (err !== null) return err[1] === "02" || err[2] === "200" ? "hccl" : err[2] === "100" ? "npu-error" : (classifyFailure(undefined, text) ?? "other");
  if (code?.startsWith("EI") === true || code?.startsWith("EJ") === true || /^E[IJ]\d{4}\b/m.test(text)) return "hccl";
  const cls = classifyFailure(undefined, text);
  return cls === "hccl" || cls === "npu-oom" ? cls : "npu-error";
}
