// Failure classes (CONTRACTS.md "Failure attributes"), from exception types
// and messages as PyTorch, torch_npu, NCCL, HCCL, NIXL, Mooncake and Python print them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { classifyFailure } from "../../ingest/formats/messages/failureClass.js";

test("each class from the exception type or the message that names it", () => {
  const cases: Array<[string | undefined, string, string]> = [
    ["torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 139.81 GiB", "cuda-oom"],
    ["torch.cuda.OutOfMemoryError", "", "cuda-oom"],
    ["RuntimeError", "CUDA error: out of memory", "cuda-oom"],
    ["RuntimeError", "CUDA error: an illegal memory access was encountered", "cuda-error"],
    ["torch.AcceleratorError", "CUDA error: unspecified launch failure", "cuda-error"],
    [undefined, "Fatal Python error: Segmentation fault", "segfault"],
    ["c10::DistBackendError", "[PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception", "nccl"],
    ["RuntimeError", "NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details)", "nccl"],
    [undefined, "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE) ran for 600020 milliseconds before timing out.", "nccl"],
    ["nixl_cu13._bindings.nixlNotFoundError", "NIXL_ERR_NOT_FOUND", "transport"],
    ["RuntimeError", "NIXL transfer encountered ERR room=6555093254675405189", "transport"],
    ["RuntimeError", "Transfer thread failed because of [Errno 104] Connection reset by peer. Prefill instance with bootstrap_port=8998 is dead.", "transport"],
    ["zmq.error.ZMQError", "Resource temporarily unavailable", "transport"],
    [undefined, "KVTransferError(bootstrap_room=6555093254675405189): Request 6555093254675405189 timed out after 300.0s in KVPoll.WaitingForInput", "timeout"],
    ["TimeoutError", "", "timeout"],
    ["RuntimeError", "[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete", "timeout"],
    ["AssertionError", "First message should be b'NixlMsgGuard'. Foreign traffic?", "assertion"],
    [undefined, "Check failed: slice->target_id >= 0", "assertion"],
    // DeepEP's EPException (csrc/kernels/exception.cuh in v1, deep_ep/include/deep_ep/common/exception.cuh in EPv2) and its host waits.
    ["RuntimeError", "Failed: Assertion error /workspace/DeepEP/csrc/deep_ep.cpp:475 'num_rdma_recv_tokens >= 0'", "assertion"],
    ["RuntimeError", "Assertion exception (/workspace/DeepEP/csrc/elastic/buffer.hpp:979): num_sms <= jit::device_runtime->get_num_sms()", "assertion"],
    ["RuntimeError", "Failed: CUDA error /workspace/DeepEP/csrc/deep_ep.cpp:86 'unspecified launch failure'", "cuda-error"],
    ["RuntimeError", "CUDA runtime exception (/workspace/DeepEP/csrc/elastic/buffer.hpp:210): an illegal memory access was encountered", "cuda-error"],
    ["RuntimeError", "NCCL exception (/workspace/DeepEP/csrc/kernels/backend/nccl.cu:88): unhandled system error", "nccl"],
    ["RuntimeError", "DeepEP error: CPU recv timeout", "timeout"],
    ["RuntimeError", "Dispatch CPU wait exception (/workspace/DeepEP/csrc/elastic/buffer.hpp:1063): CPU side received count (scaleup: 3): 12 0 # 4 4", "timeout"],
    // torch_npu raises its allocator's failure as torch.OutOfMemoryError, the type cuda-oom reads: the words say NPU.
    ["torch.OutOfMemoryError", "NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity; 58.12 GiB already allocated)", "npu-oom"],
    [undefined, "[Rank 5] HCCL watchdog thread terminated with exception:", "hccl"],
    ["RuntimeError", "operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:47 NPU function error: SUSPECT REMOTE ERROR, error code is 507057", "npu-error"],
    [undefined, "ERR00100 PTA call acl api failed", "npu-error"],
    ["ValueError", "invalid literal for int() with base 10: b'ABORT'", "other"],
    [undefined, "Aborted by AbortReq.", "other"],
  ];
  for (const [type, message, expected] of cases) assert.equal(classifyFailure(type, message), expected, `${type}: ${message}`);
});

test("nothing to classify is undefined, not other", () => {
  assert.equal(classifyFailure(undefined, ""), undefined);
  assert.equal(classifyFailure("", ""), undefined);
});
