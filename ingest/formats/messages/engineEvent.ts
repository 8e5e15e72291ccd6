// How a transfer-engine message becomes an event: an engine-level error
// (`xfer.error`) or timeout (`xfer.timeout`), with the engine named and the
// failure classed. C++ lines name no room and no side: the room stays unset
// and the role is the file's (docs/log-templates.md "C++ transfer engines").

import type { ParsedEvent } from "../../../domain/event.js";
import { LogKind } from "../../../domain/kinds.js";
import { classifyFailure } from "./failureClass.js";

export type Engine = "mooncake" | "nixl" | "ucx";

/**
 * Fills an `xfer.error` event; `error` is the status or reason text the engine
 * printed. An engine error is a transport failure unless its text names a
 * more specific class (a CUDA error in an NVLink copy, a timeout).
 */
export function engineError(ev: ParsedEvent, engine: Engine, errorKind: string, error: string, fields: Record<string, unknown>): true {
  const cls = classifyFailure(undefined, error);
  ev.kind = LogKind.transportError;
  ev.attrs = { engine, errorKind, error, ...fields, failureClass: cls === undefined || cls === "other" ? "transport" : cls };
  return true;
}

/** Fills an `xfer.timeout` event. */
export function engineTimeout(ev: ParsedEvent, engine: Engine, scope: string, fields: Record<string, unknown>): true {
  ev.kind = LogKind.transferTimeout;
  ev.attrs = { engine, scope, ...fields, failureClass: "timeout" };
  return true;
}
