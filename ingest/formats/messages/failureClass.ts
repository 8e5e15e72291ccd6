// What kind of failure an exception or failure message reports (CONTRACTS.md
// "Failure attributes"; docs/log-templates.md "Failure classes"). One function,
// used by every parser that sees an exception type or a failure text, so a
// CUDA fault reads the same whether it came from a traceback, a PD failure
// line's `with exception {e}` or a C++ transfer-engine line.
//
// Classes are tried in a fixed order and the first that matches wins: a
// specific cause beats a generic one (an NCCL watchdog timeout is `nccl`, a
// UCX `Endpoint timeout` is `transport`, a bare `timed out` is `timeout`).

export type FailureClass =
  | "host-oom" | "npu-oom" | "cuda-error" | "cuda-oom" | "segfault" | "hccl" | "nccl" | "npu-error" | "timeout" | "transport" | "assertion" | "other";

interface Rule {
  cls: FailureClass;
  /** Matched against the exception type (`torch.OutOfMemoryError`, `c10::DistBackendError`). */
  type?: RegExp;
  /** Matched against the message. */
  text?: RegExp;
}

const RULES: readonly Rule[] = [
  // Ray's memory monitor killed the task's worker for the host's memory (python/ray/exceptions.py
  // OutOfMemoryError, `Task was killed due to the node running low on memory.`): no CUDA allocation.
  { cls: "host-oom", type: /^ray\.exceptions\.OutOfMemoryError$/, text: /node running low on memory/ },
  // An Ascend NPU's memory ran out: torch_npu's caching allocator (`NPU out of memory. Tried to allocate …`, raised as
  // torch.OutOfMemoryError, so before cuda-oom's type), ACL's 207018 and 200000/207001 texts (torch_npu NPUErrorCodes.h).
  { cls: "npu-oom", text: /NPU out of memory|memory on the device is exhausted|Failed to apply for memory/ },
  // torch.OutOfMemoryError (torch ≥ 2.5), torch.cuda.OutOfMemoryError before; the
  // caching allocator's text; cuBLAS/cuDNN allocation failures.
  {
    cls: "cuda-oom",
    type: /OutOfMemoryError$/,
    // PyTorch's ROCm build says HIP where CUDA's says CUDA (the same allocator's text, hipified); HIP's error name.
    text: /(?:CUDA|HIP) out of memory|CUDA error: out of memory|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|cudaErrorMemoryAllocation|hipErrorOutOfMemory/,
  },
  // `CUDA error: an illegal memory access was encountered`, device-side asserts,
  // torch.AcceleratorError (torch ≥ 2.8), driver and library errors, Xid lines; on AMD GPUs the same from HIP (PyTorch's
  // `HIP error: …`, hipGetErrorName's `hipError…`), the HSA runtime's status names (hsa_status_string) and its own
  // reports of a device fault (ROCR-Runtime runtime.cpp VMFaultHandler, HwExceptionHandler).
  {
    cls: "cuda-error",
    type: /AcceleratorError$|CudaError$|CUDAError$/,
    // A kernel's own assert() prints `file.cu:1478: kernel: block: [..], thread: [..] Assertion `…` failed.` (the device-side assert).
    // DeepEP's EPException: `Failed: CU error …` (the driver API, v1), `CUDA runtime exception (…): …` / `CUDA driver exception (…)` (EPv2).
    text: /CUDA error|CUDA driver error|^Failed: CU error |^CUDA (?:runtime|driver) exception \(|cudaError|CUBLAS_STATUS_|CUDNN_STATUS_|cuDNN error|illegal memory access|device-side assert|unspecified launch failure|\bXid\b|\.cuh?:\d+: .*\bAssertion\b|HIP error|\bhipError(?!Success\b)[A-Z]\w*|\bHSA_STATUS_ERROR_|^Memory access fault by GPU node-|^HW Exception by GPU node-/,
  },
  { cls: "segfault", text: /Segmentation fault|SIGSEGV|\bBus error\b|SIGBUS/ },
  // HCCL, NCCL's counterpart on Ascend: torch_npu's ProcessGroupHCCL and its watchdog (`[Rank 5] HCCL watchdog thread
  // terminated with exception`, `WorkHCCL(…)`), its error codes' `call hccl api failed` (NPUException.cpp errCodeMap).
  { cls: "hccl", text: /\bHCCL\b|ProcessGroupHCCL|WorkHCCL|call hccl api failed/ },
  // c10::DistBackendError / torch.distributed.DistBackendError wrap NCCL failures;
  // the NCCL library's own result names; the ProcessGroupNCCL watchdog.
  {
    cls: "nccl",
    type: /DistBackendError$|NCCLError$/,
    text: /\bNCCL (?:error|Error|WARN)|^NCCL exception \(|nccl(?:InternalError|UnhandledCudaError|SystemError|RemoteError|InvalidUsage|InvalidArgument)|ProcessGroupNCCL|Watchdog caught collective operation timeout/,
  },
  // Transfer engines and the PD control plane: NIXL status names and exception
  // classes, Mooncake's dead-session and dead-thread texts, RDMA completion
  // statuses, UCX, ZMQ and socket errors.
  {
    cls: "transport",
    type: /^nixl|\.nixl\w*Error$|ZMQError$|ConnectionError$|ConnectionRefusedError$|ConnectionResetError$|BrokenPipeError$/,
    text: /NIXL_ERR_|NIXL transfer encountered ERR|KVSender transfer encountered an error|remote mooncake session|Transfer thread failed because of|Failed to get kvcache from prefill instance|Failed to send kv chunk|Failed to send state components|Los(?:t|ing) connection with prefill instance|Failed to send aux data|is healthy before, but now it is down|transport retry counter exceeded|Transport retry count exceeded|retry count exceeded|Work Request Flushed Error|Remote access error|Remote operation error|Endpoint timeout|Connection reset by remote peer|Connection refused|Connection reset|ibv_post_send|\bUCX\b|zmq\.error/i,
  },
  // An Ascend NPU's own error as torch_npu raises it (NPUException.h NPU_CHECK_ERROR `NPU error, error code is N`, the
  // newer `NPU function error: …, error code is N`) or codes it (`ERR00100 PTA call acl api failed`); after transport,
  // whose words name the cause when a transfer engine quotes it.
  { cls: "npu-error", text: /\bNPU (?:function )?error\b|call acl api failed/ },
  // DeepEP's host waits (v1 `DeepEP error: timeout (dispatch CPU)`; EPv2 `Dispatch CPU wait exception (…): …`, deep_ep's csrc/elastic/buffer.hpp); a failed absl::Status
  // of code DEADLINE_EXCEEDED printed whole, `DEADLINE_EXCEEDED: …` (abseil's StatusRep::ToString; ../log/unread.ts).
  {
    cls: "timeout",
    type: /TimeoutError$|^socket\.timeout$/,
    text: /timed out|\btimeout\b|Timed out waiting|^Dispatch CPU wait exception \(|^DEADLINE_EXCEEDED: /i,
  },
  // Python asserts, C assert() (`Assertion `x' failed.`), glog/absl CHECK failures, DeepEP's EP_HOST_ASSERT
  // (EPException: `Failed: Assertion error {file}:{line} '{cond}'` in v1, `Assertion exception ({file}:{line}): {cond}` in EPv2).
  { cls: "assertion", type: /^AssertionError$/, text: /^Assertion |Assertion `.*' failed|\bCheck failed: |^Failed: Assertion error / },
];

/**
 * The class of a failure from its exception type and message; undefined when
 * there is nothing to classify (neither a type nor a message).
 */
export function classifyFailure(excType: string | undefined, message: string): FailureClass | undefined {
  if ((excType === undefined || excType.length === 0) && message.length === 0) return undefined;
  for (const rule of RULES) {
    if (excType !== undefined && rule.type !== undefined && rule.type.test(excType)) return rule.cls;
    if (rule.text !== undefined && rule.text.test(message)) return rule.cls;
  }
  return "other";
}
