// SGLang's request traces in the replay: a stage slice that ended moves its
// side of the room to the state that stage leads to (domain/telemetry.ts
// SGLANG_STAGES), at the slice's end — where the span event is placed, since
// an exporter writes a span when it ends. So a deployment with traces and
// default logs only still has rooms, their states and their stalls in time
// travel.

import type { EventOf } from "../../domain/domainEvent.js";
import { SGLANG_STAGES } from "../../domain/telemetry.js";
import { DECODE, PREFILL } from "./ranks.js";
import type { ModelState } from "./state.js";

export function onTraceSpan(s: ModelState, ev: EventOf<"trace.span">): void {
  if (ev.room === undefined || ev.stage === undefined) return;
  const stage = SGLANG_STAGES[ev.stage];
  if (stage?.after === undefined) return;
  const r = s.room(ev.room, ev);
  if (ev.rid !== undefined && r.rid === null) s.rooms.linkRid(ev.rid, r);
  const side = stage.side === "prefill" ? s.sender(r, s.rankOf(ev, PREFILL), ev) : s.receiver(r, s.rankOf(ev, DECODE), ev);
  side.set(s.profile.backend, stage.after, ev.seq);
  r.progressSeq = ev.seq;
}
