// Huawei Ascend's error reports (ingest/formats/log/dialects/ascend.ts): CANN's error
// manager, torch_npu's `[Error]:` lines and its error codes. The first lines of
// each test are written by hand in the shape the source prints (metadef
// error_manager.cc GetErrorMessage / AssembleInnerErrorMessage, torch_npu
// NPUException.h NPU_CHECK_WARN and NPUException.cpp formatErrorCode); the
// others are pasted lines of the working half of test/corpus
// (vllm-ascend-3479-a, vllm-ascend-14802-a, vllm-ascend-10829-a, gpustack-3315-a).

import { test } from "node:test";
import assert from "node:assert/strict";
import { LogKind } from "../../domain/kinds.js";
import { parseLines } from "./sglangHarness.js";

const lineCount = (text: string): number => text.split("\n").length;

test("CANN's internal report, newest form: one error record from `Inner Error!` to its last item, quoting the first item", () => {
  const { events } = parseLines([
    "EE9999: Inner Error!",
    "EE9999[PID: 15252] 2026-08-24-11:45:01.740.629 (EE9999):  rtEventSynchronize execution failed, reason=vector core timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:69]",
    "        TraceBack (most recent call last):",
    "       rtDeviceSynchronizeWithTimeout execution failed, reason=vector core timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:69]",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level, e.attrs?.failureClass, lineCount(e.text)]), [[LogKind.error, "error", "npu-error", 4]]);
  assert.equal(events[0]!.attrs?.error, "rtEventSynchronize execution failed, reason=vector core timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:69]");
});

test("CANN's reports of a user error code, newest and oldest forms, and a warning code's: HCCL's codes are hccl, a W code a warning", () => {
  const { events } = parseLines([
    "[PID: 4242] 2026-08-24-11:45:01.740.629 Execution_Timeout(EI0002): The wait execution of the Notify register times out.",
    "        Possible Cause: The peer rank did not enter the collective.",
    "        Solution: Check the peer rank's log.",
    "EZ1001: The input shape is invalid.",
    "        TraceBack (most recent call last):",
    "        op check failed",
    "W11001: High-priority service of op[Cast] is invalid, low-priority service is used.",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level, e.attrs?.failureClass, lineCount(e.text)]), [
    [LogKind.error, "error", "hccl", 3],
    [LogKind.error, "error", "npu-error", 3],
    [LogKind.message, "warning", undefined, 1],
  ]);
  assert.equal(events[0]!.attrs?.error, "The wait execution of the Notify register times out.");
});

test("torch_npu's `[Error]:` line with its advice and the CANN report it appends is one record; memory exhausted is npu-oom", () => {
  const { events } = parseLines([
    "[W1015 16:32:20.401777530 NPUFunctions.cpp:227] Warning: NPU warning, error code is 507014[Error]: ",
    "[Error]: The aicore execution times out. ",
    "        Rectify the fault based on the error information in the ascend log.",
    "EH9999: Inner Error!",
    "        rtDeviceSynchronizeWithTimeout execute failed, reason=[aicore timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
    " (function npuSynchronizeDevice)",
    "[Error]: The memory on the device is exhausted. ",
    "        Check the memory usage on the device and properly plan the memory usage based on the memory specifications on the device.",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level, e.attrs?.failureClass, lineCount(e.text)]), [
    [LogKind.message, "warning", undefined, 1],
    [LogKind.error, "error", "npu-error", 5],
    [LogKind.error, "error", "npu-oom", 2],
  ]);
  assert.equal(events[1]!.attrs?.error, "The aicore execution times out.");
});

test("torch_npu's error codes: the DIST submodule is hccl, an ACL call's failure npu-error, ERR99999 by its words", () => {
  const { events } = parseLines([
    "[ERROR] 2026-08-24-11:45:01.740.629 (PID:324, Device:5, RankID:3). ERR02005 DIST internal error",
    "[ERROR] 2025-12-12-12:10:10 (PID:170, Device:1, RankID:-1) ERR00100 PTA call acl api failed",
    "[ERROR] 2025-12-09-15:43:14 (PID:1015, Device:-1, RankID:-1) ERR99999 UNKNOWN applicaiton exception",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.error, e.attrs?.failureClass]), [
    [LogKind.error, "ERR02005 DIST internal error", "hccl"],
    [LogKind.error, "ERR00100 PTA call acl api failed", "npu-error"],
    [LogKind.error, "ERR99999 UNKNOWN applicaiton exception", "other"],
  ]);
});

test("pasted reports: a window opening on an item, a TraceBack header stripped of its indentation, a process tag before each line", () => {
  const { events } = parseLines([
    "        rtDeviceSynchronizeWithTimeout execute failed, reason=[sdma copy error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
    "EH9999: [PID: 3132] 2025-10-15-16:32:20.074.608 wait for compute device to finish failed, runtime result = 507013.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]",
    "        TraceBack (most recent call last):",
    " (function npuSynchronizeDevice)",
    "[Error]: Vector core execution timed out. ",
    "        Rectify the fault based on the error information in the ascend log.",
    "EE9999: Inner Error!",
    "EE9999[PID: 15252] 2026-08-24-11:45:01.740.629 (EE9999):  rtEventSynchronize execution failed, reason=vector core timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:69]",
    "TraceBack (most recent call last):",
    "       rtDeviceSynchronizeWithTimeout execution failed, reason=vector core timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:69]",
    " (function npuSynchronizeDevice)",
    "(EngineCore_DP0 pid=36528) EZ9999: Inner Error!",
    "(EngineCore_DP0 pid=36528) EZ9999[PID: 36569] 2026-06-22-20:20:52.577.656 (EZ9999):  The error from device(chipId:4, dieId:0), serial number is 4, there is an exception of fftsplus aivector error, core id is 15, error code = 0x800000",
  ]);
  assert.deepEqual(events.map((e) => [e.line, e.kind, e.attrs?.failureClass, lineCount(e.text)]), [
    // The window opens on an item whose report's head it cut: a verdict on a bare line (`… execute failed, reason=…`).
    [1, LogKind.error, "other", 1],
    [2, LogKind.error, "npu-error", 3],
    [5, LogKind.error, "npu-error", 7],
    [12, LogKind.error, "npu-error", 2],
  ]);
  assert.equal(events[1]!.attrs?.error, "wait for compute device to finish failed, runtime result = 507013.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]");
  assert.match(String(events[3]!.attrs?.error), /^The error from device\(chipId:4, dieId:0\)/);
});

test("a device exception dump (pasted; its printer not found in a source) is one error record quoting its message", () => {
  const { events } = parseLines([
    "(EngineCore_DP0 pid=415) DEVICE[0] PID[415]: ",
    "(EngineCore_DP0 pid=415) EXCEPTION STREAM:",
    "(EngineCore_DP0 pid=415)   Exception info:TGID=3256087, model id=65535, stream id=1, stream phase=3",
    "(EngineCore_DP0 pid=415)   Message info[0]:RTS_HWTS: hwts sdma error, slot_id=15, stream_id=1",
    "(EngineCore_DP0 pid=415)     Other info[0]:time=2025-11-17-03:40:18.381.648, function=int_process_hwts_sdma_error, line=1381, error code=0x20b",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.error, e.attrs?.failureClass, lineCount(e.text)]), [
    [LogKind.error, "RTS_HWTS: hwts sdma error, slot_id=15, stream_id=1", "npu-error", 5],
  ]);
});

test("lines that only look like a report's keep their readers: glog's letters, level words, prose", () => {
  const { events } = parseLines([
    "E0611 14:03:07.554102 88213 scheduler.cpp:91] Failed to bind request to instance incarnation ids.",
    "E20251022 15:08:56.529011 140899 etcd_client.cpp:104] etcd get XLLM:SERVICE:INSTANCE failed: etcd-cpp-apiv3: key not found",
    "WARNING: the NPU driver is older than the toolkit",
    "EXCEPTION STREAM:",
    "DEVICE[0] PID[415]: the device is ready",
    "E1001 is the code the docs list for this",
  ]);
  assert.deepEqual(events.map((e) => [e.kind, e.attrs?.level]), [
    [LogKind.error, "error"],
    [LogKind.error, "error"],
    [LogKind.message, "warning"],
    [LogKind.unparsed, undefined],
    [LogKind.unparsed, undefined],
    [LogKind.unparsed, undefined],
  ]);
});
