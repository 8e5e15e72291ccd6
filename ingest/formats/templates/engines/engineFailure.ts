// The failure class of a C++ transfer-engine event (docs/log-templates.md
// "C++ transfer engines"). C++ lines name no room and no side: the room stays
// unset and the role is the file's. An engine error is a transport failure
// unless its text names a more specific class (a CUDA error in an NVLink
// copy, a timeout); a timeout row carries `failureClass: timeout` as a constant.
// An SGLang transfer failure no template reads is classed the same way
// (ingest/formats/log/unread.ts, by its head in ../sglang/sglangHeads.ts).

import type { ParsedEvent } from "../../../../domain/event.js";
import { classifyFailure } from "../../messages/failureClass.js";

/** Appends `failureClass` from the `error` attr the row (or the unread record) filled. */
export function engineErrorClass(ev: ParsedEvent): void {
  const attrs = ev.attrs!;
  const cls = classifyFailure(undefined, attrs.error as string);
  attrs.failureClass = cls === undefined || cls === "other" ? "transport" : cls;
}
