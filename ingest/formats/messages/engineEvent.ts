// How a transfer-engine message becomes an event: an engine-level error
// (`xfer.error`) or timeout (`xfer.timeout`), with the engine named and the
// failure classed. C++ lines name no room and no side: the room stays unset
// and the role is the file's (docs/log-templates.md "C++ transfer engines").

import type { ParsedEvent } from "../../event.js";
import { LogKind } from "../../event.js";
import { classifyFailure } from "./failureClass.js";

export type Engine = "mooncake" | "nixl" | "ucx";

/** Fills an `xfer.error` event; `error` is the status or reason text the engine printed. */
export function engineError(ev: ParsedEvent, engine: Engine, errorKind: string, error: string, fields: Record<string, unknown>): true {
  ev.kind = LogKind.transportError;
  ev.attrs = { engine, errorKind, error, ...fields, failureClass: classifyFailure(undefined, error) ?? "transport" };
  if (ev.attrs.failureClass === "other") ev.attrs.failureClass = "transport";
  return true;
}

/** Fills an `xfer.timeout` event. */
export function engineTimeout(ev: ParsedEvent, engine: Engine, scope: string, fields: Record<string, unknown>): true {
  ev.kind = LogKind.transferTimeout;
  ev.attrs = { engine, scope, ...fields, failureClass: "timeout" };
  return true;
}
