// Refinements shared by several templates: what a captured text says beyond
// its captures (a failure's class, a PD failure's reason).

import type { ParsedEvent } from "../../../domain/event.js";
import { classifyFailure, type FailureClass } from "../messages/failureClass.js";
import { decodeFailureReason, type ReasonKind } from "../sglang/failureReason.js";
import type { Groups } from "./template.js";

/** A raised request's error is classed by its text (`Connection refused`, `Read timed out`); an empty one is `other`. */
export function classifyError(ev: ParsedEvent, g: Groups): void {
  ev.attrs!.failureClass = classifyFailure(undefined, g.error!) ?? "other";
}

/** Reason kinds whose failure class is known without reading the text again (docs/log-templates.md "Failure reasons"). */
const REASON_CLASS: Partial<Record<ReasonKind, FailureClass>> = {
  timeout: "timeout",
  peer_loss: "transport",
  mooncake_transfer: "transport",
  nixl_error: "transport",
  abort: "other",
  propagated: "other",
};

/**
 * `{Side} {what} failed for request …`: the rid and room of whichever era's
 * form printed them, and the reason after ` with exception ` (§3.5).
 */
export function requestFailure(ev: ParsedEvent, g: Groups): void {
  if (g.rid !== undefined) ev.rid = g.rid === "None" ? undefined : g.rid.substring(1, g.rid.length - 1);
  else if (g.ridBare !== undefined && g.ridBare !== "None") ev.rid = g.ridBare;
  const room = g.room ?? g.roomBare;
  if (room !== undefined && room !== "None") ev.room = room;
  const exception = g.exception;
  if (exception === undefined) return;
  const attrs = ev.attrs!;
  const reason = decodeFailureReason(exception);
  Object.assign(attrs, reason);
  attrs.failureClass = REASON_CLASS[reason.reasonKind] ?? classifyFailure(undefined, exception);
}
