// What a Kubernetes event says of a pod's containers (the Events table of
// `kubectl describe pod`, `kubectl get events`): its type (Normal, Warning)
// and reason, as the kubelet and the node's problem detector set them
// (kubernetes pkg/kubelet/events/event.go; node-problem-detector's
// `OOMKilling`). A Warning of a process killed is a failure: `OOMKilling`
// (the kernel's OOM killer, the message its `Killed process` line) and
// `Evicted` (the kubelet stopped the pod's containers for the node's
// pressure); every other Warning (BackOff, Unhealthy, FailedScheduling,
// FailedMount, …) is a warning, a Normal event information. An event's age
// (`2m3s`, `<unknown>`) is relative to when kubectl ran: it dates nothing.

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import type { Role } from "../../../domain/vocabulary.js";
import { roleOfName } from "../../inputs/pathIdentity.js";

/** `2m1s (x5 over 3m)`: how many times the event was seen. */
const COUNT = /\(x(\d+) over [^)]*\)/;

/** Fills `ev` from an event's type, reason and message, and how many times it was seen (`count`, when over one). */
export function podEventOf(ev: ParsedEvent, type: string, reason: string, message: string, count: number | undefined): void {
  const attrs: Record<string, unknown> = { eventType: type, reason, message };
  if (count !== undefined && count > 1) attrs.count = count;
  ev.attrs = attrs;
  if (type !== "Warning") {
    ev.kind = LogKind.podEvent;
    attrs.level = "info";
    return;
  }
  if (reason === "OOMKilling") {
    ev.kind = LogKind.crash;
    Object.assign(attrs, { what: "killed by the kernel's OOM killer", signal: "SIGKILL", fatal: true, failureClass: "host-oom", error: `the node's OOM killer: ${message}` });
    return;
  }
  if (reason === "Evicted") {
    ev.kind = LogKind.crash;
    Object.assign(attrs, { what: "evicted by the kubelet", fatal: true, failureClass: "evicted", error: `evicted: ${message}` });
    return;
  }
  ev.kind = LogKind.podEvent;
  attrs.level = "warning";
}

/** Objects whose name is a machine of ours: a pod, a node. */
const MACHINE_OBJECT = /^(pod|node)\/(.+)$/i;

/**
 * Places the record of an event on the object it is about, `<kind>/<name>`
 * as kubectl prints it (`pod/sglang-decode-0`, `node/gpu-node-3`): a pod's or a
 * node's name is the record's host (a pod's gives its role too) and says its
 * scope; any other object leaves the file's host and role (`file`).
 */
export function placeEvent(ev: ParsedEvent, object: string, file: { host?: string; role?: Role }): void {
  (ev.attrs ??= {}).object = object;
  const named = MACHINE_OBJECT.exec(object);
  const machine = named?.[2];
  if (named !== null) ev.attrs.scope = named[1]!.toLowerCase() === "node" ? "machine" : "pod";
  const host = machine ?? file.host;
  if (host !== undefined) ev.host = host;
  const role = (machine !== undefined ? roleOfName(machine) : undefined) ?? file.role;
  if (role !== undefined) ev.role = role;
}

/** The count an age cell states (`2m1s (x5 over 3m)`), where the table has no COUNT column. */
export function countOfAge(age: string): number | undefined {
  const n = COUNT.exec(age)?.[1];
  return n === undefined ? undefined : Number(n);
}
