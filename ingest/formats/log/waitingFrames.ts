// Where a stack's innermost frames say a thread waits: in a collective or in a KV transfer. Read of a py-spy dump
// (./pyspyDump.ts) and of the traceback a Python process prints when an operator interrupts it (KeyboardInterrupt,
// ./records.ts): both catch the main thread at one instant, innermost frame first here.

/**
 * Where a frame's file says it waits. Collectives: torch.distributed's (distributed_c10d.py and its wrappers),
 * SGLang's and vLLM's communication ops and device communicators (pynccl, custom all-reduce), DeepEP's buffer.
 * KV transfers: the PD transfer backends' connection code of SGLang (python/sglang/srt/disaggregation/{mooncake,
 * nixl,ascend,mori,common}/), where the scheduler polls a transfer's state; vLLM's KV connectors
 * (vllm/distributed/kv_transfer/, under vLLM's distributed/ but no collective); the Python bindings of NIXL
 * (`nixl/_api.py`), Mooncake (`mooncake/`) and LMCache (`lmcache/`). A transfer's file is read first.
 */
const COLLECTIVE_FILE = /(?:^|\/)(?:torch\/distributed\/|sglang\/srt\/distributed\/|vllm\/distributed\/|deep_ep\/)/;
const TRANSFER_FILE = /(?:^|\/)(?:sglang\/srt\/disaggregation\/(?:mooncake|nixl|ascend|mori|common|fake)\/|vllm\/distributed\/kv_transfer\/|(?:nixl|mooncake|lmcache)\/)/;
/** The standard library's and pyzmq's blocking calls: the frame that waits in them is the one that says on what. */
const WAITING_PRIMITIVE = /(?:^|\/)(?:threading|queue|selectors|socket|subprocess)\.py$|(?:^|\/)(?:zmq|asyncio|concurrent\/futures)\//;

export interface StackFrame {
  /** The function. */
  fn: string;
  /** Its file, as the stack names it. */
  file: string;
  line?: number;
}

export interface FrameWait {
  waitingIn: "collective" | "transfer";
  /** The function it waits in. */
  waitOp: string;
}

/** What the innermost frame past the standard library's blocking calls waits in, where its file says; else undefined. */
export function waitOfFrames(innermostFirst: readonly StackFrame[]): FrameWait | undefined {
  const waiter = innermostFirst.find((f) => !WAITING_PRIMITIVE.test(f.file));
  if (waiter === undefined) return undefined;
  const waitingIn = TRANSFER_FILE.test(waiter.file) ? "transfer" : COLLECTIVE_FILE.test(waiter.file) ? "collective" : undefined;
  return waitingIn === undefined ? undefined : { waitingIn, waitOp: waiter.fn };
}
