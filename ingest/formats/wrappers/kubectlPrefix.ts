// `kubectl logs --prefix` (with a selector, `-l app=sglang`, the pods' lines
// interleaved in one stream): every line after `[pod/<pod>/<container>] `
// (kubectl `pkg/cmd/logs/logs.go` addPrefixIfNeeded); with `--timestamps` the
// runtime's RFC3339Nano time and a space follow. The pod is the line's host.

import { lineAfterTime } from "./rfc3339.js";
import type { Unwrapped } from "./index.js";
import { perLineWrapper } from "./perLine.js";

// A pod's name is a DNS subdomain; the container's a DNS label, empty where kubectl could not tell it.
const PREFIX = /^\[pod\/([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)\/([a-z0-9-]*)\] /;

function unwrap(line: string): Unwrapped {
  const m = PREFIX.exec(line);
  if (m === null) return { kind: "foreign", why: "no `kubectl logs --prefix` `[pod/…/…]` at the start" };
  return lineAfterTime(line.substring(m[0].length), m[1]!);
}

export const kubectlPrefix = perLineWrapper("kubectl-prefix", unwrap);
