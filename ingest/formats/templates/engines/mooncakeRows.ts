// Rows shared by Mooncake's components (kvcache-ai/Mooncake): the glog line
// their samples are written in, and the two events an engine row makes.

import { LogKind } from "../../../../domain/kinds.js";
import { engineErrorClass } from "./engineFailure.js";
import { cap, type LogTemplate } from "../template.js";

export const PEER_NIC = "10.99.91.49:15295@mlx5_1";

/** A glog line: `E0611 14:03:07.554102 88213 file:line] message`. */
export function glog(file: string, message: string, level = "E"): string {
  return `${level}0611 14:03:07.554102 88213 ${file}] ${message}`;
}

export const error = (errorKind: string, error: unknown = cap("error")) => ({ engine: "mooncake", errorKind, error });
export const timeout = (scope: string) => ({ engine: "mooncake", scope });

/** An `xfer.error` row: its failure class is read from its `error` (./engineFailure.ts). */
export function errorRow(t: Omit<LogTemplate, "kind" | "refine" | "checked"> & { refine?: LogTemplate["refine"] }): LogTemplate {
  return { checked: "✔", kind: LogKind.transportError, refine: engineErrorClass, ...t };
}

/** An `xfer.timeout` row: `failureClass: timeout` after its fields. */
export function timeoutRow(t: Omit<LogTemplate, "kind" | "checked">): LogTemplate {
  return { checked: "✔", kind: LogKind.transferTimeout, ...t, attrs: { ...t.attrs, failureClass: "timeout" } };
}
