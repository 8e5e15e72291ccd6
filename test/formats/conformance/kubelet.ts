// The kubelet's rows (ingest/formats/templates/platform/kubelet.ts): its event messages and a headerless row of the
// Events table, written by hand from kubelet's prober.go and kuberuntime_manager.go and kubectl's describe printer:
// warnings, as the Events table's reader makes them.

import { LogKind } from "../../../domain/kinds.js";
import type { EngineConformanceRow } from "./row.js";

export const KUBELET_ROWS: EngineConformanceRow[] = [
  { template: "kubelet.event_row", expect: { kind: LogKind.podEvent, attrs: { eventType: "Warning", reason: "Unhealthy", count: 20, level: "warning" } } },
  { template: "kubelet.probe_failed", expect: { kind: LogKind.podEvent, attrs: { eventType: "Warning", reason: "Unhealthy", level: "warning" } } },
  { template: "kubelet.probe_failed", sample: 1, expect: { kind: LogKind.podEvent, attrs: { reason: "Unhealthy", message: "Liveness probe failed: HTTP probe failed with statuscode: 503" } } },
  { template: "kubelet.back_off", expect: { kind: LogKind.podEvent, attrs: { eventType: "Warning", reason: "BackOff", level: "warning" } } },
];
