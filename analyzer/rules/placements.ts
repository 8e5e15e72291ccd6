// Which machine each pod ran on, as Kubernetes said it (`kubectl describe
// pod`'s `Node:`, a pod object's `spec.nodeName`: the parsers keep it on the
// pod's records as `nodeName`, ingest/formats/kubectl/). A pod's logs name the
// pod (its folder, its name), the kernel's and the node's records the
// machine: this joins them, so that a machine's death can explain a silence
// of a pod on it.

import { LogKind } from "../../domain/kinds.js";
import { attrString, type Evidence } from "./evidence.js";

const cache = new WeakMap<Evidence, Map<string, string>>();

/** Pod (host) → the machine it ran on, for every pod whose records say it. */
export function machinesOfPods(evidence: Evidence): Map<string, string> {
  let out = cache.get(evidence);
  if (out) return out;
  out = new Map();
  for (const ev of evidence.ofKinds(LogKind.podEvent, LogKind.crash)) {
    const node = attrString(ev, "nodeName");
    if (node !== undefined && ev.host !== null && !out.has(ev.host)) out.set(ev.host, node);
  }
  cache.set(evidence, out);
  return out;
}
