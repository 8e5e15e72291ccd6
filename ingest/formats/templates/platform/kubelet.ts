// The kubelet's Warning events about a pod's containers, as a paste holds their messages without the Events table
// around them (`kubectl describe pod`'s Events, `kubectl get events`, read by ../../kubectl/podEvents.ts): a probe that
// failed and a container restarted with back-off. Read here as the table reads them, one home for what such an event
// is (podEventOf): a warning. A container's end is a failure where its state says so (its Terminated state, a
// CrashLoopBackOff with restarts), not by these messages.

import type { ParsedEvent } from "../../../../domain/event.js";
import { LogKind } from "../../../../domain/kinds.js";
import { countOfAge, podEventOf } from "../../kubectl/podEvents.js";
import type { Groups, LogTemplate, TemplateComponent } from "../template.js";

/** The Warning event of `reason` whose message the template's `message` group holds. */
function asEvent(reason: string): (ev: ParsedEvent, g: Groups) => void {
  return (ev, g) => podEventOf(ev, "Warning", reason, g.message!, undefined);
}

const EVENT_ROW = /(?<type>Normal|Warning) {2,}(?<reason>[A-Z][A-Za-z]+) {2,}(?<age>\S.*?) {2,}(?<from>\S+(?:, \S+)?) {2,}(?<message>\S.*)$/y;

/** A row of the Events table, its cells as the table lays them out: the row's event, as the table's reader reads it (its kind too). */
function readRow(line: string, at: number, ev: ParsedEvent): boolean {
  EVENT_ROW.lastIndex = at;
  const g = EVENT_ROW.exec(line)?.groups;
  if (g === undefined) return false;
  podEventOf(ev, g.type!, g.reason!, g.message!, countOfAge(g.age!));
  return true;
}

const templates: LogTemplate[] = [
  {
    id: "kubelet.event_row",
    kind: LogKind.podEvent,
    checked: "✔",
    level: "(the row's type)",
    format:
      "{Normal|Warning}  {reason}  {age}  {from}  {message} — a row of `kubectl describe`'s Events table pasted without the table's header: read as the table's reader reads a row (a Warning OOMKilling or Evicted a process's death, any other event a warning or information)",
    source: "kubectl's describe printer, DescribeEvents (k8s.io/kubectl pkg/describe/describe.go: `Type\tReason\tAge\tFrom\tMessage`, cells padded by its tab writer); ../../kubectl/podEvents.ts",
    head: (line, at) => line.startsWith("Warning  ", at) || line.startsWith("Normal  ", at),
    firstChars: "NW",
    pattern: EVENT_ROW,
    read: readRow,
    samples: ['Warning  Unhealthy  3m (x20 over 6m)  kubelet  Readiness probe failed: Get "http://10.244.3.17:30000/health": dial tcp 10.244.3.17:30000: connect: connection refused'],
  },
  {
    id: "kubelet.probe_failed",
    kind: LogKind.podEvent,
    checked: "✔",
    level: "Warning",
    format: "{Readiness|Liveness|Startup} probe {failed|errored}: {output} — the event Unhealthy: a probe of the container did not succeed (a readiness probe fails while a server loads its model)",
    source: "kubernetes pkg/kubelet/prober/prober.go runProbeWithRetries' caller probe: recordContainerEvent(…, v1.EventTypeWarning, events.ContainerUnhealthy, \"%s probe failed: %s\" | \"%s probe errored: %v\", probeType, …) (index copies)",
    head: (line, at) => line.includes(" probe ", at),
    firstChars: "RLS",
    pattern: /(?<message>(?:Readiness|Liveness|Startup) probe (?:failed|errored): .*)$/ys,
    attrs: {},
    refine: asEvent("Unhealthy"),
    samples: [
      'Readiness probe failed: Get "http://10.244.3.17:30000/health": dial tcp 10.244.3.17:30000: connect: connection refused',
      "Liveness probe failed: HTTP probe failed with statuscode: 503",
    ],
  },
  {
    id: "kubelet.back_off",
    kind: LogKind.podEvent,
    checked: "✔",
    level: "Warning",
    format: "Back-off restarting failed container[ {container} in pod {pod}] — the event BackOff: the kubelet waits before restarting a container that exited",
    source: "kubernetes pkg/kubelet/kuberuntime/kuberuntime_manager.go doBackOff, events.BackOffStartContainer (index copies)",
    head: "Back-off restarting failed container",
    pattern: /(?<message>Back-off restarting failed container(?: \S+ in pod \S+)?)$/y,
    attrs: {},
    refine: asEvent("BackOff"),
    samples: ["Back-off restarting failed container sglang in pod sglang-decode-0_default(4c1d2e3f-0000-4000-8000-000000000001)"],
  },
];

export const KUBELET: TemplateComponent = {
  name: "kubelet",
  dialect: "kubelet",
  title: "The kubelet: a container's probe failed, a container backed off",
  intro:
    "The messages of the kubelet's Warning events about a pod's containers, on a line of their own (a paste of the Events table's message column, a line quoted from `kubectl get events`): the same warnings the Events table's reader makes of them (`pod.event`, `level: warning`, the event's reason). A probe that fails while a server loads is no failure, and a restart's failure shows in the container's state.",
  templates,
};
