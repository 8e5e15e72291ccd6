// pdsh (and ClusterShell's clush, which prints the same): a command run on
// many nodes at once, each line of its output after the node's name and a
// colon, `gpu-node-3: <line>` (pdsh(1): "-N  Disable hostname: prefix on lines
// of output"). How logs of a multi-node deployment are gathered on a cluster
// without Kubernetes (`pdsh -w node[01-04] 'tail -n 2000 sglang.log'`). The
// node is the line's host. Only a name with a letter or a dot and a digit
// counts (pdsh's node ranges, `-w node[01-04]`, and addresses: `node01`,
// `gpu-node-3`, `10.0.0.12`), and never a Python exception's name, so that
// what opens an ordinary log's line is no node: `RuntimeError: …`, `WARNING: …`,
// an exception's qualified name (`torch.OutOfMemoryError: …`, `zmq.error.ZMQError: …`),
// a logger's (`torch.distributed.elastic.multiprocessing.api: [ERROR] …`), a
// program's (`nvidia-smi: NVIDIA-SMI has failed …`), or CANN's error code that opens
// each line of an Ascend error report (`EI0006: [PID: 2201] …`, ../log/dialects/ascend.ts).

import { isCannErrorCode } from "../log/dialects/ascend.js";
import { FAILURE_CLASS_NAME } from "../log/traceback.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

const NODE = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*): /;

function unwrap(line: string): Unwrapped {
  const m = NODE.exec(line);
  if (m === null || !isNodeName(m[1]!)) return { kind: "foreign", why: "no `pdsh` node name at the start" };
  return { kind: "line", inner: line.substring(m[0].length), tsUs: -1, host: m[1]! };
}

function isNodeName(name: string): boolean {
  return /[A-Za-z.]/.test(name) && /\d/.test(name) && !EXCEPTION_NAME.test(name) && !isCannErrorCode(name);
}

/** A Python exception's qualified name, whatever digits its modules carry (`cuda12.CudaError`). */
const EXCEPTION_NAME = new RegExp(`^${FAILURE_CLASS_NAME}$`);

export const pdsh = perLineWrapper("pdsh", unwrap);
