// pdsh (and ClusterShell's clush, which prints the same): a command run on
// many nodes at once, each line of its output after the node's name and a
// colon, `gpu-node-3: <line>` (pdsh(1): "-N  Disable hostname: prefix on lines
// of output"). How logs of a multi-node deployment are gathered on a cluster
// without Kubernetes (`pdsh -w node[01-04] 'tail -n 2000 sglang.log'`). The
// node is the line's host. Only a name with a digit, a dash or a dot counts
// (`node01`, `gpu-node-3`, `10.0.0.12`), so that `RuntimeError: …` or
// `WARNING: …` opening an ordinary log is no node.

import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

const NODE = /^([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*): /;

function unwrap(line: string): Unwrapped {
  const m = NODE.exec(line);
  if (m === null || !/[A-Za-z.]/.test(m[1]!) || !/[\d.-]/.test(m[1]!)) return { kind: "foreign", why: "no `pdsh` node name at the start" };
  return { kind: "line", inner: line.substring(m[0].length), tsUs: -1, host: m[1]! };
}

export const pdsh = perLineWrapper("pdsh", unwrap);
